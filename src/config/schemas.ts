import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { DEFAULTS, defaultConcurrency } from '../lib/defaults.js';
import { GLOSSARY_LANGUAGES, STYLE_RULE_LANGUAGES } from '../lib/languages.js';
import { TEXT_ENCODINGS } from '../formats/common/text-encoding.js';
import { schemaUrl } from './schema-urls.js';

// zod/mini rather than zod: the same validation (one core, the same issues), without the methods
// the full API attaches to every schema it builds, which made loading these schemas the largest
// cost of a short `validate`. The full API adds English messages by itself; mini needs them set.
z.config(en());

/*
 * The repository formats (see the contract). Language codes are plain strings here so that the
 * loader can give a precise diagnostic (region variant, uppercase); the JSON Schema still offers
 * the enumeration to editors through `meta`.
 */

/*
 * Texts the loader refuses when they are only whitespace (validate-resource.ts: glossary/blank-name,
 * style/blank-text, style/empty-category, style/blank-option, as the service does). The check stays
 * in the loader, which gives located messages; editors learn it from the JSON Schema through this
 * pattern (at least one character that is not whitespace: the same set as String#trim).
 */
const NOT_BLANK = '\\S';

/** Metadata for editors (descriptions, patterns, enumerations): read by the JSON Schema, never by validation. */
type Meta = z.core.GlobalMeta;

/** `schema` with its metadata for the JSON Schema. */
function meta<T extends z.ZodMiniType>(schema: T, data: Meta): T {
  z.globalRegistry.add(schema, data);
  return schema;
}

/** A string of at least one character. */
const nonEmpty = (): z.ZodMiniString<string> => z.string().check(z.minLength(1));

const glossaryLanguage = meta(z.string(), { enum: [...GLOSSARY_LANGUAGES], description: 'Glossary language code (lowercase)' });
const styleLanguage = meta(z.string(), { enum: [...STYLE_RULE_LANGUAGES], description: 'Target language of the rules' });

/** How a TBX file's terms are chosen when a language of a concept has several (see read-concepts.ts). */
export const TERM_CHOICES = ['preferred', 'first'] as const;

/** A CSV file's `delimiter` as written (`tab` and a tab character are one). */
export const DELIMITERS = [',', ';', '\t', 'tab'] as const;
export type DelimiterSetting = (typeof DELIMITERS)[number];

/** Options of an entries file: a multilingual one (TBX, workbook, CSV/TSV with language columns), and a text file's dialect. */
const fileOptions = {
  terms: meta(z.optional(z.enum(TERM_CHOICES)), {
    description:
      'TBX: which term of a language counts when a concept has several. preferred (default): the first preferred term (preferredTerm-admn-sts, preferred, …), else the first admitted one, else the first without a status; first: the first one. Terms whose usage status forbids them (deprecated, superseded, not recommended, obsolete, forbidden, in any spelling) never count.',
  }),
  sheet: meta(z.optional(z.union([nonEmpty(), z.int().check(z.gte(1))])), {
    description: 'Workbook (.xlsx): the sheet to read, by name or by position (1 = the first); default: the first sheet',
  }),
  header_row: meta(z.optional(z.int().check(z.gte(1))), {
    description: 'Workbook or CSV/TSV with language columns: the row (line) of the language codes; default: the first of the first 10 rows that names a declared language',
  }),
  delimiter: meta(z.optional(z.enum(DELIMITERS)), {
    description:
      'CSV: what separates the fields: "," (default), ";" (what Excel writes in many European locales) or tab ("\\t" or tab). A glossary-level CSV with language columns finds it from its header row when not given',
  }),
  encoding: meta(z.optional(z.enum(TEXT_ENCODINGS)), {
    description: 'TSV or CSV: the encoding of the text, when not UTF-8 (the default): windows-1252 (Excel "CSV" on Windows), iso-8859-1, or utf-16 (Excel "Unicode Text", with its byte order mark)',
  }),
};

export const dictionarySchema = z.strictObject({
  source_lang: glossaryLanguage,
  target_lang: glossaryLanguage,
  entries_file: meta(z.optional(nonEmpty()), {
    description: 'Path of the entries file, relative to this resource file: .tsv or .csv (source, target), or .tbx or .xlsx (the pair is taken from its languages)',
  }),
  entries: meta(z.optional(z.record(z.string(), z.string())), { description: 'Inline entries: source phrase → target phrase' }),
  ...fileOptions,
});

const testTerm = meta(nonEmpty(), { pattern: NOT_BLANK });

export const glossaryTestSchema = z.strictObject({
  source_lang: glossaryLanguage,
  target_lang: meta(z.string(), {
    description: 'Glossary language code of the dictionary to test, or a variant it applies to (en-gb, en-us, pt-br, pt-pt, zh-hans)',
  }),
  text: meta(nonEmpty(), { description: 'Text translated with the glossary (costs its characters of the account quota)', pattern: NOT_BLANK }),
  expect: meta(z._default(z.array(testTerm), []), { description: 'Terms that must appear in the translation (ignoring case; an inflected form that contains the term counts)' }),
  forbid: meta(z._default(z.array(testTerm), []), { description: 'Terms that must not appear in the translation (ignoring case)' }),
});

export const glossarySchema = z.strictObject({
  kind: z.literal('glossary'),
  name: meta(nonEmpty(), { description: 'Identity on the service (at most 1024 UTF-8 bytes)', pattern: NOT_BLANK }),
  api: z._default(z.enum(['v2', 'v3']), 'v3'),
  prevent_destroy: z._default(z.boolean(), false),
  renamed_from: z.optional(nonEmpty()),
  entries_file: meta(z.optional(nonEmpty()), {
    description:
      'One multilingual file for every dictionary (instead of `dictionaries`): .tbx, .xlsx, or .csv/.tsv whose header row names a language per column; relative to this resource file',
  }),
  languages: meta(z.optional(z.array(glossaryLanguage).check(z.minLength(2))), {
    description: 'With a glossary-level `entries_file`: the languages the glossary holds (the first is the default source)',
  }),
  pairs: meta(z.optional(z.union([nonEmpty(), z.array(nonEmpty()).check(z.minLength(1))])), {
    description:
      'With a glossary-level `entries_file`: the dictionaries. "from en" (default: from the first language): en to every other language; "all": every ordered pair; or a list such as [en-de, de-en]',
  }),
  ...fileOptions,
  dictionaries: z.optional(z.array(dictionarySchema)),
  tests: meta(z._default(z.array(glossaryTestSchema), []), { description: 'Smoke tests run by `termsync verify` through the translation endpoint' }),
});

export const instructionSchema = z.strictObject({
  label: meta(nonEmpty(), { pattern: NOT_BLANK }),
  prompt: meta(nonEmpty().check(z.maxLength(300)), { pattern: NOT_BLANK }),
  source_language: z.optional(nonEmpty()),
});

export const configuredRulesSchema = meta(
  z.record(meta(z.string(), { pattern: NOT_BLANK }), meta(z.record(meta(z.string(), { pattern: NOT_BLANK }), meta(z.string(), { pattern: NOT_BLANK })), { minProperties: 1 })),
  { description: 'category → rule → option, e.g. punctuation: { apostrophe: use_curly_apostrophes }' },
);

/** Custom instructions the service enables per style rule list (spec, "Limits"). */
export const MAX_INSTRUCTIONS = 200;

export const styleRulesSchema = z.strictObject({
  kind: z.literal('style_rules'),
  name: meta(nonEmpty().check(z.maxLength(1024)), { pattern: NOT_BLANK }),
  language: styleLanguage,
  prevent_destroy: z._default(z.boolean(), false),
  renamed_from: z.optional(nonEmpty()),
  configured_rules: z._default(configuredRulesSchema, {}),
  custom_instructions: z._default(z.array(instructionSchema).check(z.maxLength(MAX_INSTRUCTIONS)), []),
});

export const resourceSchema = z.discriminatedUnion('kind', [glossarySchema, styleRulesSchema]);

/**
 * The repository names the variables a target's URL and key come from, and a pull request can
 * change the repository: only variables of termsync's own prefix may be named, so that a change
 * cannot send another secret of the job as the key (or the key to an address of its choosing).
 * Every `*_env` field of the config must use this schema (validate-config.ts also checks every
 * `*_env` field it finds, whatever its schema).
 */
export const ENV_PREFIX = 'TERMSYNC_';

export const envName = meta(z.string().check(z.regex(/^TERMSYNC_[A-Za-z0-9_]+$/, 'expected the name of an environment variable that starts with TERMSYNC_')), {
  description: 'Name of an environment variable; it must start with TERMSYNC_',
});

/** The variables a target reads when it does not name its own (the README and `init` say so too). */
export const DEFAULT_BASE_URL_ENV = 'TERMSYNC_BASE_URL';
export const DEFAULT_API_KEY_ENV = 'TERMSYNC_API_KEY';

/** Authorization schemes: the spec's, and the one the vendor's own service (and its mock) expect. */
export const AUTH_SCHEMES = ['Service-Auth-Key', 'DeepL-Auth-Key'] as const;

export const capabilitiesSchema = z.strictObject({
  delete_custom_instruction: meta(z._default(z.enum(['auto', 'yes', 'no']), 'auto'), {
    description:
      'Whether the service has DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id} (not in the spec; the vendor API has it). auto (default): try it, and where the service answers 404/405/501 with the instruction still there, replace the list (create new, then delete old), remembered for the run; yes: always use it; no: never (a removed instruction replaces the list)',
  }),
});

// `concurrency` left out follows the rate (`defaultConcurrency`), resolved here once both are known.
export const rateLimitSchema = z.pipe(
  z.strictObject({
    requests_per_second: z._default(z.number().check(z.positive()), DEFAULTS.requestsPerSecond),
    concurrency: meta(z.optional(z.int().check(z.gte(1))), {
      description: 'Requests in flight at once. Default: follows the rate, ceil(requests_per_second × 0.4) kept between 4 and 16 (4 at the default 5 requests/s, 8 at 20)',
    }),
  }),
  z.transform(({ requests_per_second, concurrency }) => ({ requests_per_second, concurrency: concurrency ?? defaultConcurrency(requests_per_second) })),
);

export const targetSchema = z.strictObject({
  name: nonEmpty(),
  base_url_env: z._default(envName, DEFAULT_BASE_URL_ENV),
  api_key_env: z._default(envName, DEFAULT_API_KEY_ENV),
  auth_scheme: meta(z._default(z.enum(AUTH_SCHEMES), 'Service-Auth-Key'), {
    description: 'The Authorization header scheme: Service-Auth-Key (default, as the spec says) or DeepL-Auth-Key (the vendor service and its mock)',
  }),
  capabilities: meta(z._default(capabilitiesSchema, { delete_custom_instruction: 'auto' }), { description: 'What this target supports beyond the spec' }),
  suspend: meta(z._default(z.boolean(), false), {
    description: 'The daemon (termsync watch) writes nothing to this target: it keeps planning and reporting the differences. apply from the command line still writes',
  }),
  rate_limit: meta(z.optional(rateLimitSchema), {
    description:
      "This target's own rate limit, in place of the config's top-level rate_limit (the whole of it: a concurrency left out follows this target's rate). Every command and the daemon pace this target's requests by it",
  }),
});

export const guardsSchema = z.strictObject({
  max_deletes: z._default(z.int().check(z.gte(0)), 10),
  max_removed_entries_percent: z._default(z.number().check(z.gte(0), z.lte(100)), 50),
  allow_empty: z._default(z.boolean(), false),
});

export const verifySchema = z.strictObject({
  max_characters: meta(z._default(z.int().check(z.gte(0)), DEFAULTS.verifyMaxCharacters), {
    description: 'Characters one verify run may send to one target; a run that would send more sends nothing',
  }),
  sample: meta(z._default(z.int().check(z.gte(0)), DEFAULTS.verifySample), { description: 'Entries per dictionary translated alone by verify (0: only the declared tests)' }),
  seed: meta(z._default(z.int(), DEFAULTS.verifySeed), { description: 'Seed of the sample: the same seed and entries give the same sample' }),
});

export const uiSchema = z.strictObject({
  show_terms: meta(z.optional(z.boolean()), {
    description:
      "Whether the daemon's dashboard shows terms: the term diffs of runs and drift, and the messages of a repository's problems (they may quote terms). Default: true when the daemon listens on a loopback address (--listen 127.0.0.1:9464), false otherwise (a container's 0.0.0.0:9464)",
  }),
  keep_runs: meta(z._default(z.int().check(z.gte(1), z.lte(1000)), DEFAULTS.uiKeepRuns), {
    description: 'Runs the dashboard keeps in memory, each with its plan (the oldest is forgotten first)',
  }),
});

/** What `pull` does with a TBX term the service no longer has. */
export const TBX_REMOVED = ['remove', 'deprecate'] as const;

export const pullSchema = z.strictObject({
  tbx_removed: meta(z._default(z.enum(TBX_REMOVED), 'remove'), {
    description:
      'What pull does with a TBX term the service no longer has: remove (default) removes its tig/ntig/termSec (or its langSet when that held only this term); deprecate keeps it and marks it deprecatedTerm-admn-sts, so it is never uploaded again',
  }),
});

export const configSchema = z.strictObject({
  version: z.literal(1),
  resources: z._default(z.array(nonEmpty()).check(z.minLength(1)), ['glossaries']),
  prune: z._default(z.enum(['off', 'owned', 'all']), 'off'),
  owned_names: meta(z.optional(nonEmpty()), { description: 'With prune: owned, the glob of live names termsync may delete' }),
  guards: z._default(guardsSchema, { max_deletes: 10, max_removed_entries_percent: 50, allow_empty: false }),
  rate_limit: z.prefault(rateLimitSchema, { requests_per_second: DEFAULTS.requestsPerSecond }),
  schedule: meta(z.optional(nonEmpty()), { description: 'Cron expression of the daemon full reconcile' }),
  suspend: meta(z._default(z.boolean(), false), {
    description: 'The daemon (termsync watch) writes nothing to any target: it keeps planning and reporting the differences, and picks up a change of this value without a restart. apply from the command line still writes',
  }),
  parallel_targets: meta(z.optional(z.int().check(z.gte(1), z.lte(256))), {
    description: 'Targets the daemon reconciles at once (default 8), each with its own client, rate limit and back-off',
  }),
  verify: z._default(verifySchema, { max_characters: DEFAULTS.verifyMaxCharacters, sample: DEFAULTS.verifySample, seed: DEFAULTS.verifySeed }),
  ui: meta(z._default(uiSchema, { keep_runs: DEFAULTS.uiKeepRuns }), { description: "The daemon's dashboard (termsync watch, on its --listen address)" }),
  pull: meta(z._default(pullSchema, { tbx_removed: 'remove' }), { description: 'How pull writes the service\'s edits into the files of record' }),
  targets: z.array(targetSchema).check(z.minLength(1)),
});

export type GlossaryInput = z.output<typeof glossarySchema>;
export type StyleRulesInput = z.output<typeof styleRulesSchema>;
export type ConfigInput = z.output<typeof configSchema>;

/**
 * JSON Schemas for editors (`schema/*.schema.json`) of a release `version`, generated from the zod
 * schemas: each with its `$id` (schema-urls.ts). The resource schema chooses its branch by `kind`
 * (`if`/`then`) rather than zod's `oneOf`, so that a validator reports the fields of the kind the
 * file says it is, not why it matches neither kind.
 */
export function jsonSchemas(version: string): { resource: unknown; config: unknown } {
  const { $schema, oneOf } = z.toJSONSchema(resourceSchema, { io: 'input' }) as unknown as { $schema: string; oneOf: { properties: { kind: { const: string } } }[] };
  const kinds = oneOf.map((branch) => branch.properties.kind.const);
  return {
    resource: {
      $schema,
      $id: schemaUrl('resource', version),
      title: 'termsync resource (glossary or style rule list)',
      type: 'object',
      required: ['kind'],
      properties: { kind: { description: `What the file declares: ${kinds.join(' or ')}`, enum: kinds } },
      allOf: oneOf.map((branch) => ({ if: { properties: { kind: { const: branch.properties.kind.const } }, required: ['kind'] }, then: branch })),
    },
    config: (({ $schema: draft, ...rest }) => ({ $schema: draft, $id: schemaUrl('config', version), title: 'termsync project config', ...rest }))(z.toJSONSchema(configSchema, { io: 'input' })),
  };
}
