import { canonicalLang, dictionaryKey } from '../lib/canonical.js';
import { DEFAULTS } from '../lib/defaults.js';
import type { GlossaryApi } from '../model/desired.js';
import { readLiveEntries } from '../lib/live-entries.js';
import type { Entries, EntryList } from '../model/entries.js';
import type { ComparedEntries, DictionaryKey, DictionaryToRead, EntriesVisitor, ExpectedLiteral, LiveGlossary, LiveState, LiveStyleRules, RawEntries, SameLiteral } from '../model/live.js';

/** An answer's entries, visited in order with each line checked as it goes (the client's EntriesText). */
export interface EntriesReading {
  readonly usual: boolean;
  readonly visit: EntriesVisitor;
  /** The text itself (escaped: as in the answer's JSON string), for a comparison of whole texts. */
  readonly text?: string;
  readonly escaped?: boolean;
}

/** The reads the live fetch needs from the service client (a structural subset of it). */
export interface LiveReader {
  listGlossaries(): Promise<readonly LiveGlossary[]>;
  listGlossariesV2(): Promise<readonly LiveGlossary[]>;
  listStyleRules(): Promise<readonly LiveStyleRules[]>;
  getEntries(glossaryId: string, sourceLang: string, targetLang: string): Promise<EntryList>;
  getEntriesV2(glossaryId: string): Promise<EntryList>;
  /**
   * The same entries as the text the service sent, read without a list of pairs. With `literal`:
   * an answer whose entries string is byte for byte one of its literals is told so (SameLiteral)
   * and not decoded; any other is read as without it.
   */
  readEntries?(glossaryId: string, sourceLang: string, targetLang: string, literal?: ExpectedLiteral): Promise<EntriesReading | SameLiteral>;
  readEntriesV2?(glossaryId: string): Promise<EntriesReading>;
  /** Requests the client sends at once: no more reads than this are started at a time. */
  readonly concurrency?: number;
}

type EntriesClient = Pick<LiveReader, 'getEntries' | 'getEntriesV2' | 'readEntries' | 'readEntriesV2' | 'concurrency'>;

/**
 * One dictionary's entries as the service sent them: its text when the client can give it. With
 * `literal` (deferred entries, see SameLiteral), an answer that is byte for byte one of its
 * literals is told so by the client, not decoded.
 */
async function readRaw(client: EntriesClient, d: DictionaryToRead, literal?: ExpectedLiteral): Promise<RawEntries> {
  if (d.api === 'v2') return client.readEntriesV2 ? client.readEntriesV2(d.glossaryId) : { list: await client.getEntriesV2(d.glossaryId) };
  if (!client.readEntries) return { list: await client.getEntries(d.glossaryId, d.sourceLang, d.targetLang) };
  return literal === undefined ? client.readEntries(d.glossaryId, d.sourceLang, d.targetLang) : client.readEntries(d.glossaryId, d.sourceLang, d.targetLang, literal);
}

/**
 * How the fetch compares a dictionary with the repository's entries as it reads it: the planner's
 * (plan/compare/ compareDictionary), given by the caller, which calls `read` for the answer.
 */
export type CompareDictionary = (expected: Entries, read: (literal?: ExpectedLiteral) => Promise<RawEntries>, hashed: boolean) => Promise<ComparedEntries>;

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

/** What the live fetch read of the dictionaries' entries. */
export interface FetchedEntries {
  /** Entries read whole (dictionaries read without entries to compare with). */
  readonly entries: Map<DictionaryKey, Entries>;
  /** Dictionaries compared with the repository's entries as they were read. */
  readonly compared: Map<DictionaryKey, ComparedEntries>;
}

export interface FetchOptions {
  /** Hash the live entries of compared dictionaries as they are read (a plan that may be saved). */
  readonly hashes?: boolean;
  /** Compares the dictionaries to read that have `expected` entries (required when any has). */
  readonly compare?: CompareDictionary;
}

/**
 * Reads the given dictionaries' entries, as many at once as the client sends (`concurrency`): each
 * answer is compared with `expected` (or canonicalised) as it arrives and then let go. Reads are
 * started only as earlier ones finish, so that no answer waits (or is kept) behind a queue of
 * thousands: what a read returns dies young. The first failure stops the reads not yet started.
 */
export async function fetchEntries(client: EntriesClient, toRead: readonly DictionaryToRead[], options: FetchOptions = {}): Promise<FetchedEntries> {
  const entries = new Map<DictionaryKey, Entries>();
  const compared = new Map<DictionaryKey, ComparedEntries>();
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < toRead.length) {
      const d = toRead[next++] as DictionaryToRead;
      const key = dictionaryKey(d.glossaryId, d.sourceLang, d.targetLang);
      try {
        if (d.expected === undefined) entries.set(key, readLiveEntries(await readRaw(client, d)));
        else {
          if (options.compare === undefined) throw new Error('internal error: entries to compare, and no comparison given to the fetch');
          compared.set(key, await options.compare(d.expected, (literal) => readRaw(client, d, literal), options.hashes === true));
        }
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const workers = Math.max(1, Math.min(toRead.length, Math.floor(client.concurrency ?? DEFAULTS.concurrency)));
  await Promise.all(Array.from({ length: workers }, worker));
  return { entries, compared };
}

/**
 * Fetches what the plan needs: every glossary and style rule list (metadata, all pages), and the
 * entries of only those dictionaries that `select` names (reading entries is the expensive part).
 */
export async function fetchLive(
  client: LiveReader,
  select: (glossaries: readonly LiveGlossary[]) => readonly DictionaryToRead[],
  v2Names: ReadonlySet<string> = new Set(),
  options: FetchOptions = {},
): Promise<LiveState> {
  const [v3, v2, styleRules] = await Promise.all([client.listGlossaries(), client.listGlossariesV2(), client.listStyleRules()]);
  const glossaries = mergeGlossaryListings(v3, v2, v2Names);
  const { entries, compared } = await fetchEntries(client, select(glossaries), options);
  return { glossaries, styleRules, entries, ...(compared.size === 0 ? {} : { compared }) };
}
