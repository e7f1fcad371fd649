import type { ComparedEntries, EntriesDiff, EntryChange, EntryList, Entries } from '../model/index.js';
import { compareStrings } from './compare-strings.js';

export type { EntriesDiff } from '../model/index.js';

/** The diff of equal dictionaries (one shared value). */
export const NO_CHANGES: EntriesDiff = { added: 0, changed: 0, removed: 0, entryChanges: [], upserts: [] };

/**
 * Term-level diff of two canonical dictionaries: what must happen to `live` to make it `desired`.
 * `desired` is only iterated, never asked for a source (the loader's packed entries would build
 * and keep an index for that); a set of its sources is made only when `live` holds entries it
 * does not. `keepLive` copies a phrase taken from `live` that the diff keeps (a caller whose
 * `live` phrases are slices of a large answer passes one, so the answer can be let go).
 */
export function diffEntries(desired: Entries, live: ReadonlyMap<string, string>, keepLive: (phrase: string) => string = (phrase) => phrase): EntriesDiff {
  // A plan of changed files only takes unread dictionaries as the repository's own entries.
  if (desired === live) return NO_CHANGES;
  const entryChanges: EntryChange[] = [];
  const upserts: [string, string][] = [];
  let added = 0;
  let changed = 0;
  let found = 0;
  for (const [source, target] of desired) {
    const before = live.get(source);
    if (before === undefined) {
      added++;
      entryChanges.push({ source, after: target });
      upserts.push([source, target]);
      continue;
    }
    found++;
    if (before !== target) {
      changed++;
      entryChanges.push({ source, before: keepLive(before), after: target });
      upserts.push([source, target]);
    }
  }
  let removed = 0;
  if (found < live.size) {
    const declared = new Set(desired.keys());
    for (const [source, before] of live) {
      if (declared.has(source)) continue;
      removed++;
      entryChanges.push({ source: keepLive(source), before: keepLive(before) });
    }
  }
  if (entryChanges.length === 0) return NO_CHANGES;
  entryChanges.sort((a, b) => compareStrings(a.source, b.source));
  upserts.sort((a, b) => compareStrings(a[0], b[0]));
  return { added, changed, removed, entryChanges, upserts };
}

/**
 * The added changes of each entry list, as long as the list lives: targets that create the same
 * dictionary from the same (shared, see PackedEntries.sortedList) list share its changes too.
 */
const addedChanges = new WeakMap<EntryList, readonly EntryChange[]>();

/** All entries of a new dictionary as added changes. */
export function allAdded(list: EntryList): readonly EntryChange[] {
  let changes = addedChanges.get(list);
  if (changes === undefined) {
    changes = list.map(([source, after]) => ({ source, after }));
    addedChanges.set(list, changes);
  }
  return changes;
}

/** The live entries a comparison stands for, rebuilt from `expected` and the diff (for the rare reader that needs them whole). */
export function entriesOfCompared(compared: ComparedEntries): Entries {
  const { expected, diff } = compared;
  if (diff.entryChanges.length === 0) return expected;
  const live = new Map(expected);
  for (const change of diff.entryChanges) {
    if (change.before === undefined) live.delete(change.source);
    else live.set(change.source, change.before);
  }
  return live;
}
