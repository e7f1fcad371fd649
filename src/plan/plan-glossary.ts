import { canonicalLang, pairKey } from '../lib/canonical.js';
import { TermsyncError } from '../lib/errors.js';
import type {
  ComparedEntries,
  DesiredDictionary,
  DesiredGlossary,
  DictionaryChange,
  DictionaryPayload,
  Entries,
  EntriesDiff,
  EntryList,
  LiveDictionary,
  LiveGlossary,
  ResourceAddress,
} from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import { toEntryList } from '../lib/entries-tsv.js';
import { allAdded, diffEntries, entriesOfCompared } from './diff-entries.js';
import type { DraftChange, DraftOperation, Refs } from './draft.js';
import { keptReason, type Match } from './match-live.js';

/** Entries of a live dictionary as read by the live fetch (undefined when not read). */
export type EntriesOf = (glossary: LiveGlossary, dict: LiveDictionary) => Entries | undefined;

/**
 * A live dictionary as the live fetch read it: its entries, or its comparison with the repository's
 * entries made as it was read (undefined when not read).
 */
export type LiveEntriesOf = (glossary: LiveGlossary, dict: LiveDictionary) => Entries | ComparedEntries | undefined;

const EMPTY: Entries = new Map();

function isCompared(read: Entries | ComparedEntries): read is ComparedEntries {
  return 'diff' in read && 'expected' in read;
}

/** What must happen to the live dictionary to make it `want`: the comparison made while reading it, when made with `want`. */
function diffOf(entriesOf: LiveEntriesOf, g: LiveGlossary, have: LiveDictionary, want: Entries): EntriesDiff {
  const read = entriesOf(g, have);
  if (read !== undefined && isCompared(read)) return read.expected === want ? read.diff : diffEntries(want, entriesOfCompared(read));
  return diffEntries(want, requireEntries(read, g, have));
}

function requireEntries(entries: Entries | undefined, g: LiveGlossary, dict: LiveDictionary): Entries {
  if (entries !== undefined) return entries;
  if (dict.entryCount === 0) return EMPTY;
  // A bug in the caller, not bad input: the live fetch reads what dictionariesToRead lists.
  throw new TermsyncError(
    'plan_entries_not_read',
    `internal error: the entries of ${pairKey(dict)} in glossary "${g.name}" (id ${g.id}) were not read, but the plan must compare them`,
  );
}

export function entriesEqual(a: Entries, b: Entries): boolean {
  // The live fetch hands back the repository's own entries for a dictionary that equals them.
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [source, target] of a) if (b.get(source) !== target) return false;
  return true;
}

function sortedDictionaries<T extends { readonly sourceLang: string; readonly targetLang: string }>(dicts: readonly T[]): T[] {
  return [...dicts].sort((a, b) => compareStrings(pairKey(a), pairKey(b)));
}

/**
 * Sorted entry lists of the dictionaries one resource change writes: a new dictionary's list is both
 * its payload and its list of added terms, sorted once (and its upload body built once from it).
 */
type Lists = Map<DesiredDictionary, EntryList>;

function listOf(dict: DesiredDictionary, lists: Lists): EntryList {
  let list = lists.get(dict);
  if (list === undefined) {
    list = toEntryList(dict.entries);
    lists.set(dict, list);
  }
  return list;
}

function payload(dict: DesiredDictionary, lists: Lists): DictionaryPayload {
  return { sourceLang: canonicalLang(dict.sourceLang), targetLang: canonicalLang(dict.targetLang), entries: listOf(dict, lists) };
}

function langs(dict: { readonly sourceLang: string; readonly targetLang: string }): { sourceLang: string; targetLang: string } {
  return { sourceLang: canonicalLang(dict.sourceLang), targetLang: canonicalLang(dict.targetLang) };
}

function createdDictionary(dict: DesiredDictionary, method: 'POST' | 'PUT', lists: Lists): DictionaryChange {
  const list = listOf(dict, lists);
  return { ...langs(dict), action: 'create', method, added: list.length, changed: 0, removed: 0, entriesBefore: 0, entriesAfter: list.length, entryChanges: allAdded(list) };
}

/** A dictionary that goes away; its terms are listed only when they were read. */
function deletedDictionary(dict: LiveDictionary): DictionaryChange {
  return { ...langs(dict), action: 'delete', method: 'DELETE', added: 0, changed: 0, removed: dict.entryCount, entriesBefore: dict.entryCount, entriesAfter: 0, entryChanges: [] };
}

/** The one dictionary of a v2 glossary (the loader guarantees exactly one). */
function v2Dictionary(d: DesiredGlossary): DesiredDictionary {
  const [dict, ...rest] = d.dictionaries;
  if (dict === undefined || rest.length > 0) {
    throw new TermsyncError('plan_v2_dictionaries', `internal error: v2 glossary "${d.name}" must declare exactly one dictionary, has ${d.dictionaries.length}`);
  }
  return dict;
}

/** Whether a live v2 glossary already is the declared one (name, pair and entries). */
export function v2Equals(d: DesiredGlossary, g: LiveGlossary, entriesOf: LiveEntriesOf): boolean {
  if (d.api !== 'v2' || g.api !== 'v2' || g.name !== d.name || d.dictionaries.length !== 1 || g.dictionaries.length !== 1) return false;
  const want = d.dictionaries[0];
  const have = g.dictionaries[0];
  if (want === undefined || have === undefined || pairKey(want) !== pairKey(have) || have.entryCount !== want.entries.size) return false;
  const read = entriesOf(g, have);
  if (read !== undefined && isCompared(read)) return (read.expected === want.entries ? read.diff : diffEntries(want.entries, entriesOfCompared(read))).entryChanges.length === 0;
  const entries = read ?? (have.entryCount === 0 ? EMPTY : undefined);
  return entries !== undefined && entriesEqual(want.entries, entries);
}

export function planGlossary(match: Match<DesiredGlossary, LiveGlossary>, entriesOf: LiveEntriesOf, refs: Refs): DraftChange[] {
  const { desired: d, current } = match;
  const address: ResourceAddress = { kind: 'glossary', name: d.name };
  let main: DraftChange | undefined;
  if (current === undefined) main = planCreate(d, address, refs);
  else if (d.api === 'v3' && current.api === 'v3') main = planInPlace(d, current, address, entriesOf, refs);
  else if (!v2Equals(d, current, entriesOf)) main = planReplace(d, current, address, entriesOf, refs);

  // A usable glossary of the name exists at every moment: leftovers go only after the new one exists.
  const createRef = main?.ops.find((op) => op.body.type === 'glossary.create' || op.body.type === 'glossary_v2.create')?.ref;
  const leftovers = match.leftovers.map((g): DraftChange => {
    const reason =
      g.api === d.api
        ? `duplicate ${g.api} glossary of this name (two runs created it, or a run was cut off; ${current === undefined ? 'keeps the new one' : keptReason(current, match.keptBecause, main?.change.action === 'replace')}) → delete`
        : `${g.api} glossary of this name left over from an api change (the repository declares ${d.api}) → delete`;
    return {
      change: { address, action: 'delete', api: g.api, reasons: [reason], liveId: g.id, dictionaries: sortedDictionaries(g.dictionaries).map(deletedDictionary), details: [] },
      ops: [refs.op({ type: 'glossary.delete', resource: address, glossaryId: g.id, api: g.api }, createRef === undefined ? [] : [createRef])],
    };
  });
  return main === undefined ? leftovers : [main, ...leftovers];
}

function createOperation(d: DesiredGlossary, address: ResourceAddress, refs: Refs, lists: Lists): DraftOperation {
  if (d.api === 'v2') return refs.op({ type: 'glossary_v2.create', resource: address, name: d.name, dictionary: payload(v2Dictionary(d), lists) });
  return refs.op({ type: 'glossary.create', resource: address, name: d.name, dictionaries: sortedDictionaries(d.dictionaries).map((dict) => payload(dict, lists)) });
}

function planCreate(d: DesiredGlossary, address: ResourceAddress, refs: Refs): DraftChange {
  const lists: Lists = new Map();
  const reasons = [`not on the service → create`];
  if (d.renamedFrom !== undefined) reasons.push(`renamed from "${d.renamedFrom}", but no live glossary has that name either`);
  return {
    change: { address, action: 'create', api: d.api, reasons, dictionaries: sortedDictionaries(d.dictionaries).map((dict) => createdDictionary(dict, 'POST', lists)), details: [] },
    ops: [createOperation(d, address, refs, lists)],
  };
}

function planInPlace(d: DesiredGlossary, g: LiveGlossary, address: ResourceAddress, entriesOf: LiveEntriesOf, refs: Refs): DraftChange | undefined {
  const livePairs = new Map(g.dictionaries.map((dict) => [pairKey(dict), dict]));
  const desiredPairs = new Map(d.dictionaries.map((dict) => [pairKey(dict), dict]));
  const pairs = [...new Set([...livePairs.keys(), ...desiredPairs.keys()])].sort(compareStrings);
  const dictionaries: DictionaryChange[] = [];
  const reasons: string[] = [];
  const ops: DraftOperation[] = [];
  // A dropped pair is deleted only after the new pairs are in, so the glossary never passes
  // through an empty state (which the service may refuse) and a failed PUT keeps the old pair.
  const newPairs: DraftOperation[] = [];
  const dropped: LiveDictionary[] = [];
  let rename: string | undefined = g.name === d.name ? undefined : d.name;
  if (rename !== undefined) reasons.push(`renamed from "${g.name}"`);
  const lists: Lists = new Map();

  for (const pair of pairs) {
    const want = desiredPairs.get(pair);
    const have = livePairs.get(pair);
    if (want !== undefined && have === undefined) {
      dictionaries.push(createdDictionary(want, 'PUT', lists));
      reasons.push(`${pair}: new language pair → PUT`);
      const put = refs.op({ type: 'glossary.put_dictionary', resource: address, glossaryId: g.id, dictionary: payload(want, lists) });
      newPairs.push(put);
      ops.push(put);
    } else if (want === undefined && have !== undefined) {
      dictionaries.push(deletedDictionary(have));
      reasons.push(`${pair}: language pair no longer declared → DELETE`);
      dropped.push(have);
    } else if (want !== undefined && have !== undefined) {
      const diff = diffOf(entriesOf, g, have, want.entries);
      if (diff.entryChanges.length === 0) continue;
      const counts = { added: diff.added, changed: diff.changed, removed: diff.removed, entriesBefore: have.entryCount, entriesAfter: want.entries.size };
      if (diff.removed > 0) {
        dictionaries.push({ ...langs(want), action: 'update', method: 'PUT', ...counts, entryChanges: diff.entryChanges });
        reasons.push(`${pair}: entries removed → PUT`);
        ops.push(refs.op({ type: 'glossary.put_dictionary', resource: address, glossaryId: g.id, dictionary: payload(want, lists) }));
      } else {
        dictionaries.push({ ...langs(want), action: 'update', method: 'PATCH', ...counts, entryChanges: diff.entryChanges });
        reasons.push(`${pair}: entries added or changed only → PATCH`);
        // A PATCH carries at most one dictionary, so a rename rides along with the first merge.
        const dictionary = { ...langs(want), entries: diff.upserts };
        ops.push(refs.op({ type: 'glossary.patch', resource: address, glossaryId: g.id, ...(rename === undefined ? {} : { name: rename }), dictionary }));
        rename = undefined;
      }
    }
  }
  const after = newPairs.map((op) => op.ref);
  for (const have of dropped) ops.push(refs.op({ type: 'glossary.delete_dictionary', resource: address, glossaryId: g.id, ...langs(have) }, after));
  if (rename !== undefined) ops.unshift(refs.op({ type: 'glossary.patch', resource: address, glossaryId: g.id, name: rename }));
  if (ops.length === 0) return undefined;
  return {
    change: { address, action: 'update', api: 'v3', reasons, liveId: g.id, ...(g.name === d.name ? {} : { renamedFrom: g.name }), dictionaries, details: [] },
    ops,
  };
}

function planReplace(d: DesiredGlossary, g: LiveGlossary, address: ResourceAddress, entriesOf: LiveEntriesOf, refs: Refs): DraftChange {
  const reasons: string[] = [];
  if (g.api !== d.api) reasons.push(`api changed from ${g.api} to ${d.api} → replace (create new, then delete old)`);
  else reasons.push('immutable v2 → replace (create new, then delete old)');
  if (g.name !== d.name) reasons.push(`renamed from "${g.name}"`);
  const livePairs = new Map(g.dictionaries.map((dict) => [pairKey(dict), dict]));
  const desiredPairs = new Set(d.dictionaries.map((dict) => pairKey(dict)));
  const dictionaries: DictionaryChange[] = [];
  const lists: Lists = new Map();
  for (const want of sortedDictionaries(d.dictionaries)) {
    const have = livePairs.get(pairKey(want));
    if (have === undefined) {
      dictionaries.push(createdDictionary(want, 'POST', lists));
      continue;
    }
    const diff = diffOf(entriesOf, g, have, want.entries);
    if (diff.entryChanges.length === 0) continue;
    dictionaries.push({
      ...langs(want),
      action: 'update',
      method: 'POST',
      added: diff.added,
      changed: diff.changed,
      removed: diff.removed,
      entriesBefore: have.entryCount,
      entriesAfter: want.entries.size,
      entryChanges: diff.entryChanges,
    });
  }
  for (const have of sortedDictionaries(g.dictionaries)) if (!desiredPairs.has(pairKey(have))) dictionaries.push(deletedDictionary(have));
  dictionaries.sort((a, b) => compareStrings(pairKey(a), pairKey(b)) || compareStrings(a.action, b.action));
  const create = createOperation(d, address, refs, lists);
  const remove = refs.op({ type: 'glossary.delete', resource: address, glossaryId: g.id, api: g.api }, [create.ref]);
  return {
    change: { address, action: 'replace', api: d.api, reasons, liveId: g.id, ...(g.name === d.name ? {} : { renamedFrom: g.name }), dictionaries, details: [] },
    ops: [create, remove],
  };
}
