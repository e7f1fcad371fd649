import { GLOSSARY_EXCLUDED, GLOSSARY_LANGUAGES } from './languages-data.js';
import { INVALID_ENTRIES_MESSAGE, parseEntries, renderTsv, utf8Bytes } from './parse-entries.js';
import { FieldReader } from './read-fields.js';
import { NO_CONTENT, jsonResponse, type RequestContext, type ServiceResponse } from './request-context.js';
import { ServiceError, badRequest, notFound } from './service-error.js';
import { MAX_GLOSSARIES_PER_ACCOUNT, MAX_GLOSSARY_BYTES, type Dictionary, type Glossary } from './store.js';

const MAX_NAME_BYTES = 1024;
const GLOSSARY_LANGUAGE_SET = new Set(GLOSSARY_LANGUAGES);

/** Language code as a glossary accepts it: case-insensitive in, lowercase out; surrounding whitespace is not a code. */
export function readGlossaryLang(value: string, field: string): string {
  const lang = value.toLowerCase();
  if (!GLOSSARY_LANGUAGE_SET.has(lang)) {
    throw badRequest(`Unsupported ${field} "${value.slice(0, 40)}": expected one of ${GLOSSARY_LANGUAGES.filter((l) => !GLOSSARY_EXCLUDED.has(l)).join(', ')}`);
  }
  if (GLOSSARY_EXCLUDED.has(lang)) throw badRequest(`Unsupported ${field} "${value}": glossaries cannot be created for Thai`);
  return lang;
}

function readPair(sourceRaw: string, targetRaw: string): { sourceLang: string; targetLang: string } {
  const sourceLang = readGlossaryLang(sourceRaw, 'source_lang');
  const targetLang = readGlossaryLang(targetRaw, 'target_lang');
  if (sourceLang === targetLang) throw badRequest(`source_lang and target_lang are both "${sourceLang}": a dictionary needs two different languages`);
  return { sourceLang, targetLang };
}

function readName(reader: FieldReader): string {
  const name = reader.requiredString('name');
  if (name.trim() === '') throw badRequest('`name` must not be empty');
  const bytes = utf8Bytes(name);
  if (bytes > MAX_NAME_BYTES) throw badRequest(`\`name\` is ${bytes} UTF-8 bytes; the limit is ${MAX_NAME_BYTES}`);
  return name;
}

/** Reads one dictionary object (create, PUT, PATCH) and parses its entries. */
function readDictionary(reader: FieldReader): Dictionary {
  const pair = readPair(reader.requiredString('source_lang'), reader.requiredString('target_lang'));
  const entries = reader.requiredString('entries');
  const format = reader.optionalString('entries_format') ?? 'tsv';
  if (format !== 'tsv' && format !== 'csv') throw badRequest(`Expected \`entries_format\` to be "tsv" or "csv", got "${format.slice(0, 40)}"`);
  reader.finish();
  const parsed = parseEntries(entries, format, pair);
  if (!parsed.ok) throw badRequest(INVALID_ENTRIES_MESSAGE, parsed.detail);
  return { ...pair, entries: parsed.value.entries, bytes: parsed.value.bytes };
}

function glossaryBytes(dictionaries: readonly Dictionary[]): number {
  return dictionaries.reduce((sum, d) => sum + d.bytes, 0);
}

function checkSize(bytes: number): void {
  if (bytes > MAX_GLOSSARY_BYTES) {
    throw new ServiceError(413, `Glossary size ${bytes} bytes exceeds the limit of ${MAX_GLOSSARY_BYTES} bytes (10 MiB)`);
  }
}

function checkGlossaryQuota(ctx: RequestContext): void {
  if (ctx.account.glossaries.size >= MAX_GLOSSARIES_PER_ACCOUNT) {
    throw badRequest(`The account already has ${MAX_GLOSSARIES_PER_ACCOUNT} glossaries, the maximum; delete one first`);
  }
}

function dictionaryMeta(d: Dictionary): { source_lang: string; target_lang: string; entry_count: number } {
  return { source_lang: d.sourceLang, target_lang: d.targetLang, entry_count: d.entries.size };
}

function v3Meta(g: Glossary): Record<string, unknown> {
  return { glossary_id: g.id, name: g.name, dictionaries: g.dictionaries.map(dictionaryMeta), creation_time: g.creationTime };
}

/**
 * v2 shape. Codes in uppercase as in the spec's v2 sample ("Response casing varies (v3 glossary
 * schema lowercase, v2 list sample uppercase)"): a client that compares codes case-sensitively
 * fails here as it would against the service.
 */
function v2Meta(g: Glossary): Record<string, unknown> {
  const d = g.dictionaries[0] as Dictionary;
  return {
    glossary_id: g.id,
    ready: true,
    name: g.name,
    source_lang: d.sourceLang.toUpperCase(),
    target_lang: d.targetLang.toUpperCase(),
    creation_time: g.creationTime,
    entry_count: d.entries.size,
  };
}

/**
 * Spec: one store serves both APIs. With separate stores (a behaviour of other servers of this
 * family) each API sees only the glossaries it created.
 */
function seenBy(ctx: RequestContext, g: Glossary, api: 'v2' | 'v3' | 'any'): boolean {
  return api === 'any' || ctx.behaviour.separateStores !== true || g.api === api;
}

function findGlossary(ctx: RequestContext, id: string, api: 'v2' | 'v3' | 'any' = 'v3'): Glossary {
  const glossary = ctx.account.glossaries.get(id);
  if (glossary === undefined || !seenBy(ctx, glossary, api)) throw notFound(`Glossary "${id.slice(0, 80)}" not found`);
  return glossary;
}

/** v2 sees the monolingual glossaries: those with exactly one dictionary. */
function findV2Glossary(ctx: RequestContext, id: string): Glossary {
  const glossary = findGlossary(ctx, id, 'v2');
  if (glossary.dictionaries.length !== 1) {
    throw notFound(`Glossary "${id}" has ${glossary.dictionaries.length} dictionaries; v2 endpoints only see glossaries with exactly one (use v3)`);
  }
  return glossary;
}

function queryPair(ctx: RequestContext): { sourceLang: string; targetLang: string } {
  const source = ctx.query.get('source_lang');
  const target = ctx.query.get('target_lang');
  if (source === null || target === null) throw badRequest('Query parameters `source_lang` and `target_lang` are required');
  return { sourceLang: readGlossaryLang(source, 'source_lang'), targetLang: readGlossaryLang(target, 'target_lang') };
}

function dictionaryIndex(glossary: Glossary, pair: { sourceLang: string; targetLang: string }): number {
  return glossary.dictionaries.findIndex((d) => d.sourceLang === pair.sourceLang && d.targetLang === pair.targetLang);
}

function noDictionary(glossary: Glossary, pair: { sourceLang: string; targetLang: string }): ServiceError {
  return notFound(`Glossary "${glossary.id}" has no dictionary ${pair.sourceLang} → ${pair.targetLang}`);
}

// ---- v3 ------------------------------------------------------------------------------------------

export function createGlossaryV3(ctx: RequestContext): ServiceResponse {
  const reader = FieldReader.fromBody(ctx.body());
  const name = readName(reader);
  const list = reader.optionalArray('dictionaries');
  reader.finish();
  if (list === undefined) throw badRequest('Missing required field `dictionaries`');
  if (list.length === 0) throw badRequest('`dictionaries` must hold at least one dictionary');
  const dictionaries: Dictionary[] = [];
  const pairs = new Set<string>();
  list.forEach((item, i) => {
    const dictionary = readDictionary(new FieldReader(item, `dictionaries[${i}]`, ctx.body().kind === 'form'));
    const key = `${dictionary.sourceLang}-${dictionary.targetLang}`;
    if (pairs.has(key)) throw badRequest(`dictionaries[${i}] repeats the language pair ${dictionary.sourceLang} → ${dictionary.targetLang}`);
    pairs.add(key);
    dictionaries.push(dictionary);
  });
  checkSize(glossaryBytes(dictionaries));
  checkGlossaryQuota(ctx);
  const glossary: Glossary = { id: ctx.newId(), api: 'v3', name, creationTime: ctx.nowIso, dictionaries };
  ctx.account.glossaries.set(glossary.id, glossary);
  const meta = v3Meta(glossary);
  return jsonResponse(201, { glossary_id: meta['glossary_id'], ready: true, ...meta });
}

export function listGlossariesV3(ctx: RequestContext): ServiceResponse {
  return jsonResponse(200, { glossaries: [...ctx.account.glossaries.values()].filter((g) => seenBy(ctx, g, 'v3')).map(v3Meta) });
}

export function getGlossaryV3(ctx: RequestContext, id: string): ServiceResponse {
  return jsonResponse(200, v3Meta(findGlossary(ctx, id)), { 'X-Trace-ID': ctx.newTraceId() });
}

export function getEntriesV3(ctx: RequestContext, id: string): ServiceResponse {
  const glossary = findGlossary(ctx, id);
  const pair = queryPair(ctx);
  const dictionary = glossary.dictionaries[dictionaryIndex(glossary, pair)];
  if (dictionary === undefined) throw noDictionary(glossary, pair);
  return jsonResponse(200, {
    dictionaries: [{ source_lang: dictionary.sourceLang, target_lang: dictionary.targetLang, entries: renderTsv(dictionary.entries), entries_format: 'tsv' }],
  });
}

export function putDictionaryV3(ctx: RequestContext, id: string): ServiceResponse {
  const glossary = findGlossary(ctx, id);
  const dictionary = readDictionary(FieldReader.fromBody(ctx.body()));
  const index = dictionaryIndex(glossary, dictionary);
  const others = glossary.dictionaries.filter((_, i) => i !== index);
  checkSize(glossaryBytes(others) + dictionary.bytes);
  if (index === -1) glossary.dictionaries.push(dictionary);
  else glossary.dictionaries[index] = dictionary;
  return jsonResponse(200, dictionaryMeta(dictionary));
}

export function patchGlossaryV3(ctx: RequestContext, id: string): ServiceResponse {
  const glossary = findGlossary(ctx, id);
  const body = ctx.body();
  const reader = FieldReader.fromBody(body);
  const name = reader.has('name') ? readName(reader) : undefined;
  const list = reader.optionalArray('dictionaries');
  reader.finish();
  if (name === undefined && list === undefined) throw badRequest('Nothing to change: send `name` and/or `dictionaries`');
  let merged: Dictionary | undefined;
  let index = -1;
  if (list !== undefined) {
    if (list.length !== 1) throw badRequest(`\`dictionaries\` must hold exactly one dictionary (one dictionary changes per call), got ${list.length}`);
    const patch = readDictionary(new FieldReader(list[0], 'dictionaries[0]', body.kind === 'form'));
    index = dictionaryIndex(glossary, patch);
    const existing = glossary.dictionaries[index];
    // Rule 2: new sources are added, existing ones replaced in place; a missing pair merges into nothing.
    // The merged size is worked out from the patch alone, so a small merge into a large dictionary stays cheap.
    const entries = existing?.entries ?? new Map<string, string>();
    let bytes = existing?.bytes ?? 0;
    let count = entries.size;
    for (const [s, t] of patch.entries) {
      const old = entries.get(s);
      if (old === undefined) {
        bytes += (count > 0 ? 1 : 0) + utf8Bytes(s) + 1 + utf8Bytes(t);
        count += 1;
      } else {
        bytes += utf8Bytes(t) - utf8Bytes(old);
      }
    }
    checkSize(glossaryBytes(glossary.dictionaries.filter((_, i) => i !== index)) + bytes);
    for (const [s, t] of patch.entries) entries.set(s, t);
    merged = { sourceLang: patch.sourceLang, targetLang: patch.targetLang, entries, bytes };
  }
  if (name !== undefined) glossary.name = name;
  if (merged !== undefined) {
    if (index === -1) glossary.dictionaries.push(merged);
    else glossary.dictionaries[index] = merged;
  }
  return jsonResponse(200, v3Meta(glossary));
}

export function deleteGlossary(ctx: RequestContext, id: string): ServiceResponse {
  findGlossary(ctx, id);
  ctx.account.glossaries.delete(id);
  return NO_CONTENT;
}

export function deleteDictionaryV3(ctx: RequestContext, id: string): ServiceResponse {
  const glossary = findGlossary(ctx, id);
  const pair = queryPair(ctx);
  const index = dictionaryIndex(glossary, pair);
  if (index === -1) throw noDictionary(glossary, pair);
  // Choice (not shown): deleting the last dictionary is allowed and leaves an empty glossary (same id,
  // name, still counted toward the 1000), which a later PUT can fill again. A pair change done as
  // "delete old pair, then PUT new pair" relies on this.
  glossary.dictionaries.splice(index, 1);
  return NO_CONTENT;
}

// ---- v2 ------------------------------------------------------------------------------------------

export function createGlossaryV2(ctx: RequestContext): ServiceResponse {
  const reader = FieldReader.fromBody(ctx.body());
  const name = readName(reader);
  const dictionary = readDictionary(reader);
  checkSize(dictionary.bytes);
  checkGlossaryQuota(ctx);
  const glossary: Glossary = { id: ctx.newId(), api: 'v2', name, creationTime: ctx.nowIso, dictionaries: [dictionary] };
  ctx.account.glossaries.set(glossary.id, glossary);
  return jsonResponse(201, v2Meta(glossary));
}

export function deleteGlossaryV2(ctx: RequestContext, id: string): ServiceResponse {
  findV2Glossary(ctx, id);
  ctx.account.glossaries.delete(id);
  return NO_CONTENT;
}

export function listGlossariesV2(ctx: RequestContext): ServiceResponse {
  const glossaries = [...ctx.account.glossaries.values()].filter((g) => g.dictionaries.length === 1 && seenBy(ctx, g, 'v2'));
  return jsonResponse(200, { glossaries: glossaries.map(v2Meta) });
}

export function getGlossaryV2(ctx: RequestContext, id: string): ServiceResponse {
  return jsonResponse(200, v2Meta(findV2Glossary(ctx, id)));
}

const TSV_MEDIA = 'text/tab-separated-values';

export function getEntriesV2(ctx: RequestContext, id: string): ServiceResponse {
  const glossary = findV2Glossary(ctx, id);
  const accept = ctx.headers.accept?.trim() ?? '';
  const acceptable =
    accept === '' ||
    accept.split(',').some((part) => {
      const media = part.split(';', 1)[0]?.trim().toLowerCase();
      return media === TSV_MEDIA || media === '*/*' || media === 'text/*';
    });
  if (!acceptable) throw new ServiceError(415, `Unsupported entries format "${accept.slice(0, 80)}" in Accept: only ${TSV_MEDIA} is supported`);
  const dictionary = glossary.dictionaries[0] as Dictionary;
  return { status: 200, text: renderTsv(dictionary.entries), contentType: `${TSV_MEDIA}; charset=utf-8` };
}

export function glossaryLanguagePairs(): ServiceResponse {
  const langs = GLOSSARY_LANGUAGES.filter((l) => !GLOSSARY_EXCLUDED.has(l));
  const pairs: Array<{ source_lang: string; target_lang: string }> = [];
  for (const s of langs) for (const t of langs) if (s !== t) pairs.push({ source_lang: s, target_lang: t });
  return jsonResponse(200, { supported_languages: pairs });
}

/**
 * Spec: a dictionary with target en, pt or zh "is applied automatically in translations to any
 * variant of that language (for en: en-US, en-GB; for pt: pt-PT, pt-BR; for zh: zh-Hans)". Only
 * these variants fall back to the base dictionary; zh-Hant and es-419 are not listed, so they have
 * no dictionary (a glossary's enumeration has no variants).
 */
const VARIANT_BASE: ReadonlyMap<string, string> = new Map([
  ['en-us', 'en'],
  ['en-gb', 'en'],
  ['pt-pt', 'pt'],
  ['pt-br', 'pt'],
  ['zh-hans', 'zh'],
]);

/** The dictionary a translation with this glossary uses. */
export function glossaryDictionaryFor(ctx: RequestContext, id: string, sourceLang: string, targetLang: string): Dictionary {
  // Translation uses a glossary of either API.
  const glossary = findGlossary(ctx, id, 'any');
  const target = targetLang.toLowerCase();
  const pair = { sourceLang: sourceLang.toLowerCase(), targetLang: VARIANT_BASE.get(target) ?? target };
  const dictionary = glossary.dictionaries[dictionaryIndex(glossary, pair)];
  if (dictionary === undefined) throw badRequest(`Glossary "${id}" has no dictionary ${pair.sourceLang} → ${pair.targetLang} for this translation`);
  return dictionary;
}
