import { pairKey } from '../lib/canonical.js';
import type { DesiredState, Fingerprints, GlossaryApi, LiveGlossary } from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import { matchGlossaries } from './match-live.js';

export interface DictionaryToRead {
  readonly glossaryId: string;
  readonly api: GlossaryApi;
  readonly sourceLang: string;
  readonly targetLang: string;
}

/** The key of a live dictionary's entries in `LiveState.entries`. */
export function dictionaryKey(glossaryId: string, pair: { readonly sourceLang: string; readonly targetLang: string }): string {
  return `${glossaryId}/${pairKey(pair)}`;
}

/**
 * The live dictionaries whose entries the plan compares: for each declared glossary, the pairs its
 * live counterpart shares with it; for v2, every live duplicate of the declared name with that pair
 * (so the plan can keep the one that already matches). Nothing else is read. Shared pairs are read
 * even when the listing's entry count matches: equal counts cannot prove equal entries (a changed
 * translation keeps the count), and a missed change would leave the service different from the repo.
 */
export function dictionariesToRead(desired: DesiredState, glossaries: readonly LiveGlossary[]): DictionaryToRead[] {
  const out = new Map<string, DictionaryToRead>();
  const add = (g: LiveGlossary, wanted: ReadonlySet<string>): void => {
    for (const dict of g.dictionaries) {
      if (!wanted.has(pairKey(dict))) continue;
      out.set(dictionaryKey(g.id, dict), { glossaryId: g.id, api: g.api, sourceLang: dict.sourceLang, targetLang: dict.targetLang });
    }
  };
  for (const match of matchGlossaries(desired.glossaries, glossaries).matches) {
    const wanted = new Set(match.desired.dictionaries.map((dict) => pairKey(dict)));
    if (match.current !== undefined) add(match.current, wanted);
    if (match.desired.api === 'v2') for (const g of match.leftovers) if (g.api === 'v2') add(g, wanted);
  }
  return sortToRead([...out.values()]);
}

/** What `apply plan.json` re-reads to compare with a saved plan: the dictionaries whose hashes it holds. */
export function dictionariesToReadForFingerprints(saved: Fingerprints): DictionaryToRead[] {
  const out: DictionaryToRead[] = [];
  for (const g of saved.glossaries) {
    for (const key of Object.keys(g.entryHashes)) {
      const dash = key.indexOf('-');
      out.push({ glossaryId: g.id, api: g.api, sourceLang: key.slice(0, dash), targetLang: key.slice(dash + 1) });
    }
  }
  return sortToRead(out);
}

function sortToRead(list: DictionaryToRead[]): DictionaryToRead[] {
  return list.sort(
    (a, b) =>
      compareStrings(a.glossaryId, b.glossaryId) || compareStrings(a.sourceLang, b.sourceLang) || compareStrings(a.targetLang, b.targetLang),
  );
}
