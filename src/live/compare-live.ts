import { canonicalPhrase, canonicalUsualPhrase, isUsualText } from '../lib/canonical.js';
import { visitTsvEntries } from '../lib/entries-tsv.js';
import type { Entries, EntryList } from '../model/entries.js';
import { canonicalEntries } from './canonical-entries.js';

/** A live dictionary's entries as the service sent them: its TSV text (lines checked), or pairs. */
export type RawEntries = { readonly tsv: string } | { readonly list: EntryList };

/**
 * The canonical entries of a live dictionary, compared with `expected` (the repository's) as they
 * are read: when they are equal, `expected` itself is returned and nothing of the answer is kept
 * (the planner then sees no change at the cost of an identity test). Otherwise the live entries are
 * built as a map, as canonicalEntries does (a later duplicate source wins).
 */
export function readLiveEntries(raw: RawEntries, expected?: Entries): Entries {
  if (expected !== undefined && equalsExpected(raw, expected)) return expected;
  if ('list' in raw) return canonicalEntries(raw.list);
  const entries = new Map<string, string>();
  const canonical = isUsualText(raw.tsv) ? canonicalUsualPhrase : canonicalPhrase;
  visitTsvEntries(raw.tsv, (source, target) => {
    entries.set(canonical(source), canonical(target));
    return true;
  });
  return entries;
}

/**
 * Whether the raw entries, canonicalised, are exactly `expected`: each entry is one of `expected`
 * and there are as many as it holds. Sources must also come in strictly ascending order (the order
 * in which termsync uploads, so the service's usual answer), which proves them distinct without a
 * set; entries in any other order are left to the map (exact, just slower).
 */
function equalsExpected(raw: RawEntries, expected: Entries): boolean {
  let count = 0;
  let previous: string | undefined;
  const visit = (rawSource: string, rawTarget: string, canonical: (phrase: string) => string): boolean => {
    const source = canonical(rawSource);
    if (expected.get(source) !== canonical(rawTarget) || (previous !== undefined && !(previous < source))) return false;
    previous = source;
    count++;
    return true;
  };
  if ('list' in raw) {
    for (const [source, target] of raw.list) if (!visit(source, target, canonicalPhrase)) return false;
    return count === expected.size;
  }
  const canonical = isUsualText(raw.tsv) ? canonicalUsualPhrase : canonicalPhrase;
  let complete = true;
  visitTsvEntries(raw.tsv, (source, target) => (complete = visit(source, target, canonical)));
  return complete && count === expected.size;
}
