import { canonicalLang } from '../lib/canonical.js';
import { ENDPOINTS, requestTo } from '../lib/endpoints.js';
import type { EntryList } from '../model/entries.js';
import type { ExpectedLiteral, SameLiteral } from '../model/live.js';
import type { DictionaryPayload } from '../model/plan.js';
import { createOnce, ensureListed, findCreated, SeenIds } from './create-recovery.js';
import { schemas, toDictionary, toGlossaryV2, toGlossaryV3, type LiveGlossaryInfo } from './parse-responses.js';
import { readEntriesV2, readEntriesV3 } from './read-glossary-entries.js';
import type { ServiceCalls, ServiceRequest, Where } from './service-calls.js';
import type { UploadBody } from '../lib/entries-tsv.js';
import { encodeEntriesForUpload, type EntriesText } from './tsv-entries.js';

/** The glossary endpoints of the client (v3, and v2 for legacy glossaries). */
export interface GlossaryEndpoints {
  listGlossaries(): Promise<LiveGlossaryInfo[]>;
  listGlossariesV2(): Promise<LiveGlossaryInfo[]>;
  getGlossary(id: string): Promise<LiveGlossaryInfo>;
  getEntries(id: string, sourceLang: string, targetLang: string): Promise<EntryList>;
  getEntriesV2(id: string): Promise<EntryList>;
  /** The entries of one dictionary as the TSV text the service sent, each line checked as it is visited. */
  readEntries(id: string, sourceLang: string, targetLang: string): Promise<EntriesText>;
  /**
   * The same, or, when the answer's entries string is byte for byte one of `literal`'s (deferred
   * entries: see SameLiteral), only that: the answer is then never decoded. Any other answer is
   * read (and refused) exactly as without `literal`.
   */
  readEntries(id: string, sourceLang: string, targetLang: string, literal: ExpectedLiteral): Promise<EntriesText | SameLiteral>;
  readEntriesV2(id: string): Promise<EntriesText>;
  createGlossary(name: string, dictionaries: readonly DictionaryPayload[]): Promise<LiveGlossaryInfo>;
  createGlossaryV2(name: string, dictionary: DictionaryPayload): Promise<LiveGlossaryInfo>;
  putDictionary(id: string, dictionary: DictionaryPayload): Promise<{ sourceLang: string; targetLang: string; entryCount: number }>;
  patchGlossary(id: string, change: { name?: string; dictionary?: DictionaryPayload }): Promise<LiveGlossaryInfo>;
  deleteGlossary(id: string): Promise<void>;
  deleteGlossaryV2(id: string): Promise<void>;
  deleteDictionary(id: string, sourceLang: string, targetLang: string): Promise<void>;
}

function dictionaryBody(d: DictionaryPayload): Record<string, string | UploadBody> {
  return { source_lang: canonicalLang(d.sourceLang), target_lang: canonicalLang(d.targetLang), ...encodeEntriesForUpload(d.entries) };
}

function listV3(calls: ServiceCalls): Promise<LiveGlossaryInfo[]> {
  return calls.getJson(requestTo(ENDPOINTS.listGlossaries, {}), (data, where) => calls.parseAnswer(schemas.glossaryListV3, data, where).glossaries.map(toGlossaryV3));
}

function listV2(calls: ServiceCalls): Promise<LiveGlossaryInfo[]> {
  return calls.getJson(requestTo(ENDPOINTS.listGlossariesV2, {}), (data, where) => calls.parseAnswer(schemas.glossaryListV2, data, where).glossaries.map(toGlossaryV2));
}

/** The glossary a lost create made, adopted (see findCreated). */
function adopt(calls: ServiceCalls, seen: SeenIds, name: string, list: () => Promise<LiveGlossaryInfo[]>): Promise<LiveGlossaryInfo | undefined> {
  return findCreated(seen, name, list, (found, candidates) => {
    calls.logger.debug({ id: found.id, candidates }, 'adopting the glossary the lost create made');
    seen.add(found.name, found.id);
  });
}

/**
 * A glossary created once (see createOnce), of the API `list` lists: listed first (see
 * ensureListed), then the POST `request` makes (its body built only then), its answer read by `read`.
 */
async function create(
  calls: ServiceCalls,
  seen: SeenIds,
  name: string,
  list: () => Promise<LiveGlossaryInfo[]>,
  request: () => ServiceRequest,
  read: (data: unknown, where: Where) => LiveGlossaryInfo,
): Promise<LiveGlossaryInfo> {
  await ensureListed(seen, list);
  const post = request();
  const created = await createOnce(calls, post, (answer) => read(calls.json(answer, post), { method: 'POST', path: post.path }), () => adopt(calls, seen, name, list));
  seen.add(created.name, created.id);
  return created;
}

function patch(calls: ServiceCalls, id: string, change: { name?: string; dictionary?: DictionaryPayload }): Promise<LiveGlossaryInfo> {
  const json = {
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.dictionary === undefined ? {} : { dictionaries: [dictionaryBody(change.dictionary)] }),
  };
  return calls.getJson({ ...requestTo(ENDPOINTS.patchGlossary, { id }), json }, (data, where) => toGlossaryV3(calls.parseAnswer(schemas.glossaryV3, data, where)));
}

/** The glossary endpoints of one client: creates are recovered by name (see create-recovery.ts). */
export function glossaryEndpoints(calls: ServiceCalls): GlossaryEndpoints {
  const seen = new SeenIds();
  return {
    async listGlossaries() {
      const list = await listV3(calls);
      seen.remember(list);
      return list;
    },
    async listGlossariesV2() {
      const list = await listV2(calls);
      seen.remember(list);
      return list;
    },
    getGlossary: (id) => calls.getJson(requestTo(ENDPOINTS.getGlossary, { id }), (data, where) => toGlossaryV3(calls.parseAnswer(schemas.glossaryV3, data, where))),
    getEntries: async (id, sourceLang, targetLang) => ((await readEntriesV3(calls, id, sourceLang, targetLang)) as EntriesText).toList(),
    getEntriesV2: async (id) => (await readEntriesV2(calls, id)).toList(),
    readEntries: ((id: string, sourceLang: string, targetLang: string, literal?: ExpectedLiteral) => readEntriesV3(calls, id, sourceLang, targetLang, literal)) as GlossaryEndpoints['readEntries'],
    readEntriesV2: (id) => readEntriesV2(calls, id),
    createGlossary: (name, dictionaries) =>
      create(
        calls,
        seen,
        name,
        () => listV3(calls),
        () => ({ ...requestTo(ENDPOINTS.createGlossary, {}), json: { name, dictionaries: dictionaries.map(dictionaryBody) } }),
        (data, where) => toGlossaryV3(calls.parseAnswer(schemas.glossaryV3, data, where)),
      ),
    createGlossaryV2: (name, dictionary) =>
      create(
        calls,
        seen,
        name,
        () => listV2(calls),
        () => ({ ...requestTo(ENDPOINTS.createGlossaryV2, {}), json: { name, ...dictionaryBody(dictionary) } }),
        (data, where) => toGlossaryV2(calls.parseAnswer(schemas.glossaryV2, data, where)),
      ),
    putDictionary: (id, dictionary) =>
      calls.getJson({ ...requestTo(ENDPOINTS.putDictionary, { id }), json: dictionaryBody(dictionary) }, (data, where) => toDictionary(calls.parseAnswer(schemas.dictionaryMeta, data, where))),
    patchGlossary: (id, change) => patch(calls, id, change),
    deleteGlossary: (id) => calls.remove(requestTo(ENDPOINTS.deleteGlossary, { id })),
    deleteGlossaryV2: (id) => calls.remove(requestTo(ENDPOINTS.deleteGlossaryV2, { id })),
    deleteDictionary: (id, sourceLang, targetLang) =>
      calls.remove(requestTo(ENDPOINTS.deleteDictionary, { id }, { source_lang: canonicalLang(sourceLang), target_lang: canonicalLang(targetLang) })),
  };
}
