import * as z from 'zod';

/** The saved plan (format_version "1.0"), as `apply plan.json` accepts it. */

const api = z.enum(['v2', 'v3']);
const address = z.object({ kind: z.enum(['glossary', 'style_rules']), name: z.string() });
const lang = z.string().min(1);
const count = z.number().int().min(0);
const payload = z.object({ sourceLang: lang, targetLang: lang, entries: z.array(z.tuple([z.string(), z.string()])) });
const configuredRules = z.record(z.string(), z.record(z.string(), z.string()));
const instructions = z.array(z.object({ label: z.string(), prompt: z.string(), sourceLanguage: z.string().optional() }));
const base = { key: z.string().regex(/^op-[1-9]\d*$/, 'expected a key like op-1'), dependsOn: z.array(z.string()), resource: address };

const operation = z.discriminatedUnion('type', [
  z.object({ ...base, type: z.literal('glossary.create'), name: z.string(), dictionaries: z.array(payload) }),
  z.object({ ...base, type: z.literal('glossary_v2.create'), name: z.string(), dictionary: payload }),
  z.object({ ...base, type: z.literal('glossary.patch'), glossaryId: z.string(), name: z.string().optional(), dictionary: payload.optional() }),
  z.object({ ...base, type: z.literal('glossary.put_dictionary'), glossaryId: z.string(), dictionary: payload }),
  z.object({ ...base, type: z.literal('glossary.delete_dictionary'), glossaryId: z.string(), sourceLang: lang, targetLang: lang }),
  z.object({ ...base, type: z.literal('glossary.delete'), glossaryId: z.string(), api }),
  z.object({
    ...base,
    type: z.literal('style_rules.create'),
    name: z.string(),
    language: lang,
    configuredRules,
    customInstructions: instructions,
  }),
  z.object({ ...base, type: z.literal('style_rules.rename'), styleId: z.string(), name: z.string() }),
  z.object({ ...base, type: z.literal('style_rules.put_configured_rules'), styleId: z.string(), configuredRules }),
  z.object({ ...base, type: z.literal('style_rules.create_instruction'), styleId: z.string(), label: z.string(), prompt: z.string(), sourceLanguage: z.string().optional() }),
  z.object({
    ...base,
    type: z.literal('style_rules.update_instruction'),
    styleId: z.string(),
    instructionId: z.string(),
    label: z.string(),
    prompt: z.string(),
    sourceLanguage: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('style_rules.delete_instruction'),
    styleId: z.string(),
    instructionId: z.string(),
    label: z.string(),
    fallback: z.object({ name: z.string(), language: lang, configuredRules, customInstructions: instructions }).optional(),
  }),
  z.object({ ...base, type: z.literal('style_rules.delete'), styleId: z.string() }),
]);

const entryChange = z.object({ source: z.string(), before: z.string().optional(), after: z.string().optional() });

const dictionaryChange = z.object({
  sourceLang: lang,
  targetLang: lang,
  action: z.enum(['create', 'update', 'delete']),
  method: z.enum(['PATCH', 'PUT', 'DELETE', 'POST']),
  added: count,
  changed: count,
  removed: count,
  entriesBefore: count,
  entriesAfter: count,
  entryChanges: z.array(entryChange),
});

const resourceChange = z.object({
  address,
  action: z.enum(['create', 'update', 'delete', 'replace']),
  api: api.optional(),
  reasons: z.array(z.string()),
  liveId: z.string().optional(),
  renamedFrom: z.string().optional(),
  dictionaries: z.array(dictionaryChange),
  details: z.array(z.string()),
  operations: z.array(z.string()),
});

const liveCopy = z.object({ id: z.string(), api: api.optional(), creationTime: z.string() });

const fingerprints = z.object({
  glossaries: z.array(
    z.object({ id: z.string(), name: z.string(), api, dictionaries: z.array(z.string()), entryHashes: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)) }),
  ),
  styleRules: z.array(z.object({ id: z.string(), name: z.string(), version: z.number().int() })),
  names: z.object({ glossaries: z.array(z.string()), styleRules: z.array(z.string()) }).optional(),
});

export const planSchema = z.object({
  format_version: z.literal('1.0'),
  target: z.string(),
  changes: z.array(resourceChange),
  operations: z.array(operation),
  guards: z.array(
    z.object({
      guard: z.enum(['prevent_destroy', 'max_deletes', 'max_removed_entries_percent', 'allow_empty']),
      message: z.string(),
      resource: address.optional(),
    }),
  ),
  notManaged: z.array(z.object({ kind: z.enum(['glossary', 'style_rules']), name: z.string(), id: z.string() })),
  duplicates: z
    .array(
      z.object({
        kind: z.enum(['glossary', 'style_rules']),
        name: z.string(),
        keep: liveCopy,
        keptBecause: z.enum(['ids_file', 'matches', 'oldest']),
        remove: z.array(liveCopy),
      }),
    )
    .optional(),
  warnings: z.array(z.object({ resource: address, message: z.string() })).optional(),
  notRefreshed: count.optional(),
  fingerprints,
  summary: z.object({
    add: count,
    change: count,
    destroy: count,
    dictionaries: count,
    entriesAdded: count,
    entriesChanged: count,
    entriesRemoved: count,
    calls: z.object({ POST: count, PUT: count, PATCH: count, DELETE: count }),
    uploadBytes: count,
  }),
});
