import { dictionaryKey, pairKey } from '../lib/canonical.js';
import type { DesiredGlossary, DesiredState, DictionaryToRead, Entries, LiveGlossary } from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import { matchGlossaries, type KeepIds } from './match-live.js';

/**
 * The live dictionaries whose entries the plan compares: for each declared glossary, the pairs its
 * live counterpart shares with it; for v2, every live duplicate of the declared name with that pair
 * (so the plan can keep the one that already matches). Nothing else is read. Shared pairs are read
 * even when the listing's entry count matches: equal counts cannot prove equal entries (a changed
 * translation keeps the count), and a missed change would leave the service different from the repo.
 */
export function dictionariesToRead(desired: DesiredState, glossaries: readonly LiveGlossary[]): DictionaryToRead[] {
  return selectRefresh(desired, glossaries).toRead;
}

/**
 * What a plan re-reads when only some files changed: declared glossary name → `'all'` (its resource
 * file changed) or the language pairs (`en-de`) whose entries files changed.
 */
export type RefreshSelection = ReadonlyMap<string, 'all' | ReadonlySet<string>>;

/** What a plan re-reads when only some resources changed, and what it assumes of the rest. */
export interface RefreshScope {
  /** The live dictionaries whose entries are read. */
  readonly toRead: DictionaryToRead[];
  /**
   * Entries of live dictionaries that are not read, taken to equal the repository's: their
   * files did not change and their listed entry count matches (`PlanInput.refresh`).
   */
  readonly assumed: Map<string, Entries>;
  /** Declared glossaries with a live counterpart none of whose dictionaries was re-read. */
  readonly notRefreshed: number;
}

/**
 * `refreshed`: what changed (undefined: everything). A dictionary outside it is still planned from
 * the listing (renames, new and dropped pairs, prune), but its entries are read only when the listed
 * entry count differs from the repository's, a change that costs no request to notice. Drift that
 * keeps the count is left to a full refresh.
 */
export function selectRefresh(desired: DesiredState, glossaries: readonly LiveGlossary[], refreshed?: RefreshSelection, keepIds?: KeepIds): RefreshScope {
  const out = new Map<string, DictionaryToRead>();
  const assumed = new Map<string, Entries>();
  let notRefreshed = 0;
  /** Adds the shared pairs of `g`; true when some were read. */
  const add = (d: DesiredGlossary, g: LiveGlossary): { read: number; skipped: number } => {
    const wanted = new Map(d.dictionaries.map((dict) => [pairKey(dict), dict]));
    const scope = refreshed === undefined ? 'all' : refreshed.get(d.name);
    let read = 0;
    let skipped = 0;
    for (const dict of g.dictionaries) {
      const pair = pairKey(dict);
      const want = wanted.get(pair);
      if (want === undefined) continue;
      const key = dictionaryKey(g.id, dict.sourceLang, dict.targetLang);
      if (scope === 'all' || scope?.has(pair) === true || dict.entryCount !== want.entries.size) {
        out.set(key, { glossaryId: g.id, api: g.api, sourceLang: dict.sourceLang, targetLang: dict.targetLang, expected: want.entries });
        read++;
      } else {
        assumed.set(key, want.entries);
        skipped++;
      }
    }
    return { read, skipped };
  };
  // The same choice among duplicates as the plan's (`keepIds`), so that the one kept is the one read.
  for (const match of matchGlossaries(desired.glossaries, glossaries, undefined, keepIds?.glossaries).matches) {
    const live = [...(match.current === undefined ? [] : [match.current]), ...(match.desired.api === 'v2' ? match.leftovers.filter((g) => g.api === 'v2') : [])];
    let read = 0;
    let skipped = 0;
    for (const g of live) {
      const counts = add(match.desired, g);
      read += counts.read;
      skipped += counts.skipped;
    }
    if (skipped > 0 && read === 0) notRefreshed++;
  }
  return { toRead: sortToRead([...out.values()]), assumed, notRefreshed };
}
function sortToRead(list: DictionaryToRead[]): DictionaryToRead[] {
  return list.sort(
    (a, b) =>
      compareStrings(a.glossaryId, b.glossaryId) || compareStrings(a.sourceLang, b.sourceLang) || compareStrings(a.targetLang, b.targetLang),
  );
}
