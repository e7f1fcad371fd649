import * as z from 'zod';
import type { LiveDictionary, LiveGlossary, LiveInstruction, LiveStyleRules } from '../model/live.js';
import { canonicalLang } from '../lib/canonical.js';
import { ServiceError } from './errors.js';
import { isLongPlaceholder } from './json-long-strings.js';
import { clip, hideKey, withoutKey } from './send-request.js';

/**
 * Runtime checks of the service's answers. Raw snake_case shapes become the model's camelCase
 * types here and nowhere else; unknown extra fields are dropped (zod strips them), missing or
 * mistyped fields are an `invalid_response` error naming the endpoint and the field.
 */

export type LiveGlossaryInfo = LiveGlossary & { readonly ready?: boolean };

/**
 * A language code as BCP 47 writes one: subtags of 1 to 8 ASCII letters or digits joined by
 * hyphens (`de`, `en-US`, `zh-Hans`), at most 35 characters in all (the length RFC 5646 asks every
 * implementation to handle). Codes become file names (`pull`, `import`), YAML values and request
 * parameters: anything else from the service — a path (`../../x`), a NUL, a line break — is refused
 * here, before any of those uses.
 */
const LANGUAGE_CODE = /^[a-z0-9]{1,8}(?:-[a-z0-9]{1,8})*$/i;
export const MAX_LANGUAGE_CODE = 35;

/** The canonical (trimmed, lowercase) form of a language code from the service, or undefined when it does not have a language code's shape. */
export function serviceLanguage(code: string): string | undefined {
  const canonical = canonicalLang(code);
  return canonical.length <= MAX_LANGUAGE_CODE && LANGUAGE_CODE.test(canonical) ? canonical : undefined;
}

/** How a refused code is shown in the message: clipped, control characters as `?`; a long string cut out of the answer by its size. */
function shownLanguage(code: string): string {
  return isLongPlaceholder(code) ? 'a string of over 4096 characters' : `"${clip(code, 40)}"`;
}

function toLanguage(code: string, ctx: z.RefinementCtx): string {
  const canonical = serviceLanguage(code);
  if (canonical !== undefined) return canonical;
  // The code travels raw in `params`: parseWith takes the key out of it before it is clipped (a
  // key cut in half by the clip would no longer be recognised where the message is printed).
  ctx.addIssue({ code: 'custom', message: languageMessage(code), params: { languageCode: code } });
  return z.NEVER;
}

function languageMessage(code: string): string {
  return `expected a language code (letters, digits and hyphens, at most ${MAX_LANGUAGE_CODE} characters), got ${shownLanguage(code)}`;
}

const lang = z.string().transform(toLanguage);
/** An optional language (an instruction's `source_language`): absent, null or empty is none. */
const optionalLang = z
  .string()
  .nullish()
  .transform((code, ctx) => (code === undefined || code === null || code === '' ? undefined : toLanguage(code, ctx)));
const count = z.number().int().nonnegative();

const dictionaryMeta = z.object({ source_lang: lang, target_lang: lang, entry_count: count });

const glossaryV3 = z.object({
  glossary_id: z.string().min(1),
  name: z.string(),
  ready: z.boolean().optional(),
  dictionaries: z.array(dictionaryMeta),
  creation_time: z.string(),
});

const glossaryV2 = z.object({
  glossary_id: z.string().min(1),
  name: z.string(),
  ready: z.boolean().optional(),
  source_lang: lang,
  target_lang: lang,
  creation_time: z.string(),
  entry_count: count,
});

const configuredRules = z.record(z.string(), z.record(z.string(), z.string()));

const instruction = z.object({
  id: z.string().min(1),
  label: z.string(),
  prompt: z.string(),
  source_language: optionalLang,
});

const styleRules = z.object({
  style_id: z.string().min(1),
  name: z.string(),
  language: lang,
  version: z.number().int(),
  configured_rules: configuredRules,
  custom_instructions: z.array(instruction),
  creation_time: z.string(),
  updated_time: z.string(),
});

export const schemas = {
  glossaryV3,
  glossaryV2,
  glossaryListV3: z.object({ glossaries: z.array(glossaryV3) }),
  glossaryListV2: z.object({ glossaries: z.array(glossaryV2) }),
  entriesV3: z.object({
    dictionaries: z.array(
      z.object({ source_lang: lang, target_lang: lang, entries: z.string(), entries_format: z.string().optional() }),
    ),
  }),
  dictionaryMeta,
  styleRules,
  styleRulesList: z.object({ style_rules: z.array(styleRules) }),
  instruction,
  languages: z.array(z.unknown()),
  translations: z.object({ translations: z.array(z.object({ text: z.string(), detected_source_language: optionalLang })) }),
} as const;

/** The service's error body; every field optional (a proxy may answer with anything). */
const errorBody = z.object({
  message: z.string().optional(),
  code: z.string().optional(),
  detail: z.string().optional(),
});

/**
 * The service's error body, fit for a one-line message: the API key taken out (written with JSON
 * escapes, it decodes to the key: see withoutKey) before the fields are cut to length and what a
 * terminal would act on is replaced (clip).
 */
export function parseErrorBody(text: string, apiKey = ''): { message?: string; code?: string; detail?: string } {
  let json: unknown;
  try {
    json = withoutKey(JSON.parse(text), text, apiKey);
  } catch {
    return {};
  }
  const result = errorBody.safeParse(json);
  if (!result.success) return {};
  const out: { message?: string; code?: string; detail?: string } = {};
  if (result.data.message !== undefined) out.message = clip(result.data.message, 500);
  if (result.data.code !== undefined) out.code = clip(result.data.code, 100);
  if (result.data.detail !== undefined) out.detail = clip(result.data.detail, 500);
  return out;
}

/**
 * `data` checked against `schema`. The data is the service's, as it sent it (a name or an entry may
 * hold the key, and is compared and written as it is); the message about an answer that does not
 * fit names a field the server chose, so the key is taken out of it (`apiKey`: the client's).
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  data: unknown,
  where: { method: string; path: string; traceId?: string },
  apiKey = '',
): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? `\`${hideKey(issue.path.join('.'), apiKey)}\`` : 'the body';
  const languageCode: unknown = issue?.code === 'custom' ? issue.params?.['languageCode'] : undefined;
  const message = typeof languageCode === 'string' ? languageMessage(hideKey(languageCode, apiKey)) : (issue?.message ?? 'invalid');
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problems)` : '';
  throw new ServiceError(
    'invalid_response',
    { method: where.method, path: where.path, ...(where.traceId === undefined ? {} : { traceId: where.traceId }) },
    `unexpected response: ${field}: ${message}${more}`,
  );
}

export function toDictionary(raw: z.output<typeof dictionaryMeta>): LiveDictionary {
  return { sourceLang: raw.source_lang, targetLang: raw.target_lang, entryCount: raw.entry_count };
}

export function toGlossaryV3(raw: z.output<typeof glossaryV3>): LiveGlossaryInfo {
  return {
    id: raw.glossary_id,
    name: raw.name,
    api: 'v3',
    dictionaries: raw.dictionaries.map(toDictionary),
    creationTime: raw.creation_time,
    ...(raw.ready === undefined ? {} : { ready: raw.ready }),
  };
}

export function toGlossaryV2(raw: z.output<typeof glossaryV2>): LiveGlossaryInfo {
  return {
    id: raw.glossary_id,
    name: raw.name,
    api: 'v2',
    dictionaries: [{ sourceLang: raw.source_lang, targetLang: raw.target_lang, entryCount: raw.entry_count }],
    creationTime: raw.creation_time,
    ...(raw.ready === undefined ? {} : { ready: raw.ready }),
  };
}

export function toInstruction(raw: z.output<typeof instruction>): LiveInstruction {
  return {
    id: raw.id,
    label: raw.label,
    prompt: raw.prompt,
    ...(raw.source_language ? { sourceLanguage: raw.source_language } : {}),
  };
}

export function toStyleRules(raw: z.output<typeof styleRules>): LiveStyleRules {
  return {
    id: raw.style_id,
    name: raw.name,
    language: raw.language,
    version: raw.version,
    configuredRules: raw.configured_rules,
    customInstructions: raw.custom_instructions.map(toInstruction),
    creationTime: raw.creation_time,
    updatedTime: raw.updated_time,
  };
}
