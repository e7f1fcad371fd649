import * as z from 'zod';
import { DEFAULTS } from '../lib/defaults.js';
import { GLOSSARY_LANGUAGES, STYLE_RULE_LANGUAGES } from './languages.js';

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

const glossaryLanguage = z.string().meta({ enum: [...GLOSSARY_LANGUAGES], description: 'Glossary language code (lowercase)' });
const styleLanguage = z.string().meta({ enum: [...STYLE_RULE_LANGUAGES], description: 'Target language of the rules' });

/** How a TBX file's terms are chosen when a language of a concept has several (see read-concepts.ts). */
export const TERM_CHOICES = ['preferred', 'first'] as const;

/** Options of a multilingual entries file (TBX, workbook, CSV/TSV with language columns). */
const fileOptions = {
  terms: z
    .enum(TERM_CHOICES)
    .optional()
    .meta({
      description:
        'TBX: which term of a language counts when a concept has several. preferred (default): the first preferredTerm-admn-sts, else the first admittedTerm-admn-sts, else the first without a status; first: the first one. Deprecated and superseded terms never count.',
    }),
  sheet: z
    .union([z.string().min(1), z.int().min(1)])
    .optional()
    .meta({ description: 'Workbook (.xlsx): the sheet to read, by name or by position (1 = the first); default: the first sheet' }),
  header_row: z
    .int()
    .min(1)
    .optional()
    .meta({ description: 'Workbook or CSV/TSV with language columns: the row (line) of the language codes; default: the first of the first 10 rows that names a declared language' }),
};

export const dictionarySchema = z.strictObject({
  source_lang: glossaryLanguage,
  target_lang: glossaryLanguage,
  entries_file: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Path of the entries file, relative to this resource file: .tsv or .csv (source, target), or .tbx or .xlsx (the pair is taken from its languages)' }),
  entries: z.record(z.string(), z.string()).optional().meta({ description: 'Inline entries: source phrase → target phrase' }),
  ...fileOptions,
});

const testTerm = z.string().min(1).meta({ pattern: NOT_BLANK });

export const glossaryTestSchema = z.strictObject({
  source_lang: glossaryLanguage,
  target_lang: z.string().meta({
    description: 'Glossary language code of the dictionary to test, or a variant it applies to (en-gb, en-us, pt-br, pt-pt, zh-hans)',
  }),
  text: z.string().min(1).meta({ description: 'Text translated with the glossary (costs its characters of the account quota)', pattern: NOT_BLANK }),
  expect: z.array(testTerm).default([]).meta({ description: 'Terms that must appear in the translation (ignoring case; an inflected form that contains the term counts)' }),
  forbid: z.array(testTerm).default([]).meta({ description: 'Terms that must not appear in the translation (ignoring case)' }),
});

export const glossarySchema = z.strictObject({
  kind: z.literal('glossary'),
  name: z.string().min(1).meta({ description: 'Identity on the service (at most 1024 UTF-8 bytes)', pattern: NOT_BLANK }),
  api: z.enum(['v2', 'v3']).default('v3'),
  prevent_destroy: z.boolean().default(false),
  renamed_from: z.string().min(1).optional(),
  entries_file: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        'One multilingual file for every dictionary (instead of `dictionaries`): .tbx, .xlsx, or .csv/.tsv whose header row names a language per column; relative to this resource file',
    }),
  languages: z
    .array(glossaryLanguage)
    .min(2)
    .optional()
    .meta({ description: 'With a glossary-level `entries_file`: the languages the glossary holds (the first is the default source)' }),
  pairs: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .optional()
    .meta({
      description:
        'With a glossary-level `entries_file`: the dictionaries. "from en" (default: from the first language): en to every other language; "all": every ordered pair; or a list such as [en-de, de-en]',
    }),
  ...fileOptions,
  dictionaries: z.array(dictionarySchema).optional(),
  tests: z.array(glossaryTestSchema).default([]).meta({ description: 'Smoke tests run by `termsync verify` through the translation endpoint' }),
});

export const instructionSchema = z.strictObject({
  label: z.string().min(1).meta({ pattern: NOT_BLANK }),
  prompt: z.string().min(1).max(300).meta({ pattern: NOT_BLANK }),
  source_language: z.string().min(1).optional(),
});

export const configuredRulesSchema = z
  .record(z.string().meta({ pattern: NOT_BLANK }), z.record(z.string().meta({ pattern: NOT_BLANK }), z.string().meta({ pattern: NOT_BLANK })).meta({ minProperties: 1 }))
  .meta({ description: 'category → rule → option, e.g. punctuation: { apostrophe: use_curly_apostrophes }' });

/** Custom instructions the service enables per style rule list (spec, "Limits"). */
export const MAX_INSTRUCTIONS = 200;

export const styleRulesSchema = z.strictObject({
  kind: z.literal('style_rules'),
  name: z.string().min(1).max(1024).meta({ pattern: NOT_BLANK }),
  language: styleLanguage,
  prevent_destroy: z.boolean().default(false),
  renamed_from: z.string().min(1).optional(),
  configured_rules: configuredRulesSchema.default({}),
  custom_instructions: z.array(instructionSchema).max(MAX_INSTRUCTIONS).default([]),
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

export const envName = z
  .string()
  .regex(/^TERMSYNC_[A-Za-z0-9_]+$/, 'expected the name of an environment variable that starts with TERMSYNC_')
  .meta({ description: 'Name of an environment variable; it must start with TERMSYNC_' });

/** The variables a target reads when it does not name its own (the README and `init` say so too). */
export const DEFAULT_BASE_URL_ENV = 'TERMSYNC_BASE_URL';
export const DEFAULT_API_KEY_ENV = 'TERMSYNC_API_KEY';

/** Authorization schemes: the spec's, and the one the vendor's own service (and its mock) expect. */
export const AUTH_SCHEMES = ['Service-Auth-Key', 'DeepL-Auth-Key'] as const;

export const capabilitiesSchema = z.strictObject({
  delete_custom_instruction: z
    .enum(['auto', 'yes', 'no'])
    .default('auto')
    .meta({
      description:
        'Whether the service has DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id} (not in the spec; the vendor API has it). auto (default): try it, and where the service answers 404/405/501 with the instruction still there, replace the list (create new, then delete old), remembered for the run; yes: always use it; no: never (a removed instruction replaces the list)',
    }),
});

export const targetSchema = z.strictObject({
  name: z.string().min(1),
  base_url_env: envName.default(DEFAULT_BASE_URL_ENV),
  api_key_env: envName.default(DEFAULT_API_KEY_ENV),
  auth_scheme: z
    .enum(AUTH_SCHEMES)
    .default('Service-Auth-Key')
    .meta({ description: 'The Authorization header scheme: Service-Auth-Key (default, as the spec says) or DeepL-Auth-Key (the vendor service and its mock)' }),
  capabilities: capabilitiesSchema.default({ delete_custom_instruction: 'auto' }).meta({ description: 'What this target supports beyond the spec' }),
});

export const guardsSchema = z.strictObject({
  max_deletes: z.int().min(0).default(10),
  max_removed_entries_percent: z.number().min(0).max(100).default(50),
  allow_empty: z.boolean().default(false),
});

export const rateLimitSchema = z.strictObject({
  requests_per_second: z.number().positive().default(DEFAULTS.requestsPerSecond),
  concurrency: z.int().min(1).default(DEFAULTS.concurrency),
});

export const verifySchema = z.strictObject({
  max_characters: z.int().min(0).default(DEFAULTS.verifyMaxCharacters).meta({ description: 'Characters one verify run may send to one target; a run that would send more sends nothing' }),
  sample: z.int().min(0).default(DEFAULTS.verifySample).meta({ description: 'Entries per dictionary translated alone by verify (0: only the declared tests)' }),
  seed: z.int().default(DEFAULTS.verifySeed).meta({ description: 'Seed of the sample: the same seed and entries give the same sample' }),
});

export const configSchema = z.strictObject({
  version: z.literal(1),
  resources: z.array(z.string().min(1)).min(1).default(['glossaries']),
  prune: z.enum(['off', 'owned', 'all']).default('off'),
  owned_names: z.string().min(1).optional().meta({ description: 'With prune: owned, the glob of live names termsync may delete' }),
  guards: guardsSchema.default({ max_deletes: 10, max_removed_entries_percent: 50, allow_empty: false }),
  rate_limit: rateLimitSchema.default({ requests_per_second: DEFAULTS.requestsPerSecond, concurrency: DEFAULTS.concurrency }),
  schedule: z.string().min(1).optional().meta({ description: 'Cron expression of the daemon full reconcile' }),
  verify: verifySchema.default({ max_characters: DEFAULTS.verifyMaxCharacters, sample: DEFAULTS.verifySample, seed: DEFAULTS.verifySeed }),
  targets: z.array(targetSchema).min(1),
});

export type GlossaryInput = z.output<typeof glossarySchema>;
export type StyleRulesInput = z.output<typeof styleRulesSchema>;
export type ConfigInput = z.output<typeof configSchema>;

/** JSON Schemas for editors (`schema/*.schema.json`), generated from the zod schemas. */
export function jsonSchemas(): { resource: unknown; config: unknown } {
  return {
    resource: { ...z.toJSONSchema(resourceSchema, { io: 'input' }), title: 'termsync resource (glossary or style rule list)' },
    config: { ...z.toJSONSchema(configSchema, { io: 'input' }), title: 'termsync project config' },
  };
}
