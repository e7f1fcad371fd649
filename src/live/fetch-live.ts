import { canonicalLang } from '../lib/canonical.js';
import type { GlossaryApi } from '../model/desired.js';
import type { Entries, EntryList } from '../model/entries.js';
import type { DictionaryKey, LiveGlossary, LiveState, LiveStyleRules } from '../model/live.js';
import { readLiveEntries, type RawEntries } from './compare-live.js';

/** One dictionary whose entries must be read. */
export interface DictionaryToRead {
  readonly glossaryId: string;
  readonly api: GlossaryApi;
  readonly sourceLang: string;
  readonly targetLang: string;
  /**
   * The repository's entries for this dictionary, when the plan compares them: the answer is
   * compared as it is read and, when equal, not kept (see readLiveEntries).
   */
  readonly expected?: Entries;
}

/** The reads the live fetch needs from the service client (a structural subset of it). */
export interface LiveReader {
  listGlossaries(): Promise<readonly LiveGlossary[]>;
  listGlossariesV2(): Promise<readonly LiveGlossary[]>;
  listStyleRules(): Promise<readonly LiveStyleRules[]>;
  getEntries(glossaryId: string, sourceLang: string, targetLang: string): Promise<EntryList>;
  getEntriesV2(glossaryId: string): Promise<EntryList>;
  /** The same entries as the TSV text the service sent (each line checked), read without a list of pairs. */
  getEntriesTsv?(glossaryId: string, sourceLang: string, targetLang: string): Promise<string>;
  getEntriesV2Tsv?(glossaryId: string): Promise<string>;
}

/** One dictionary's entries as the service sent them: TSV text when the client can give it. */
async function readRaw(client: Pick<LiveReader, 'getEntries' | 'getEntriesV2' | 'getEntriesTsv' | 'getEntriesV2Tsv'>, d: DictionaryToRead): Promise<RawEntries> {
  if (d.api === 'v2') return client.getEntriesV2Tsv ? { tsv: await client.getEntriesV2Tsv(d.glossaryId) } : { list: await client.getEntriesV2(d.glossaryId) };
  return client.getEntriesTsv
    ? { tsv: await client.getEntriesTsv(d.glossaryId, d.sourceLang, d.targetLang) }
    : { list: await client.getEntries(d.glossaryId, d.sourceLang, d.targetLang) };
}

export function dictionaryKey(glossaryId: string, sourceLang: string, targetLang: string): DictionaryKey {
  return `${glossaryId}/${canonicalLang(sourceLang)}-${canonicalLang(targetLang)}`;
}

/**
 * Merges the v3 and v2 listings by id, so that one glossary never counts twice. The service
 * lists every glossary of exactly one dictionary under /v2 as well, whichever API created it, so
 * the listing alone cannot tell a legacy glossary: one counts as v2 when the v2 listing shows it
 * and the repository declares a v2 glossary of its name (`v2Names`). Anything else is v3, the API
 * that edits glossaries in place (a v2 glossary the repository does not declare is imported as v3).
 */
export function mergeGlossaryListings(v3: readonly LiveGlossary[], v2: readonly LiveGlossary[], v2Names: ReadonlySet<string> = new Set()): LiveGlossary[] {
  const inV2 = new Set(v2.map((g) => g.id));
  const inV3 = new Set(v3.map((g) => g.id));
  const byId = new Map<string, LiveGlossary>();
  for (const g of [...v3, ...v2]) {
    if (byId.has(g.id)) continue;
    const legacy = inV2.has(g.id) && (v2Names.has(g.name) || !inV3.has(g.id));
    byId.set(g.id, {
      id: g.id,
      name: g.name,
      api: legacy ? 'v2' : 'v3',
      creationTime: g.creationTime,
      dictionaries: g.dictionaries.map((d) => ({
        sourceLang: canonicalLang(d.sourceLang),
        targetLang: canonicalLang(d.targetLang),
        entryCount: d.entryCount,
      })),
    });
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Names (and old names) of the glossaries the repository declares with `api: v2`. */
export function declaredV2Names(desired: { readonly glossaries: readonly { readonly name: string; readonly api: GlossaryApi; readonly renamedFrom?: string }[] }): Set<string> {
  return new Set(desired.glossaries.filter((g) => g.api === 'v2').flatMap((g) => (g.renamedFrom === undefined ? [g.name] : [g.name, g.renamedFrom])));
}

/**
 * Reads the given dictionaries' entries in parallel (the client's queue bounds how many at once).
 * Each answer is canonicalised (and compared with `expected`) as it arrives and then let go: only
 * the entries of dictionaries that differ from the repository's are kept.
 */
export async function fetchEntries(
  client: Pick<LiveReader, 'getEntries' | 'getEntriesV2' | 'getEntriesTsv' | 'getEntriesV2Tsv'>,
  toRead: readonly DictionaryToRead[],
): Promise<Map<DictionaryKey, Entries>> {
  const entries = new Map<DictionaryKey, Entries>();
  await Promise.all(
    toRead.map(async (d) => {
      const raw = await readRaw(client, d);
      entries.set(dictionaryKey(d.glossaryId, d.sourceLang, d.targetLang), readLiveEntries(raw, d.expected));
    }),
  );
  return entries;
}

/**
 * Fetches what the plan needs: every glossary and style rule list (metadata, all pages), and the
 * entries of only those dictionaries that `select` names (reading entries is the expensive part).
 */
export async function fetchLive(
  client: LiveReader,
  select: (glossaries: readonly LiveGlossary[]) => readonly DictionaryToRead[],
  v2Names: ReadonlySet<string> = new Set(),
): Promise<LiveState> {
  const [v3, v2, styleRules] = await Promise.all([client.listGlossaries(), client.listGlossariesV2(), client.listStyleRules()]);
  const glossaries = mergeGlossaryListings(v3, v2, v2Names);
  const entries = await fetchEntries(client, select(glossaries));
  return { glossaries, styleRules, entries };
}
