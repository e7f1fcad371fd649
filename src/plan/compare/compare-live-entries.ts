import { entriesOf, readerOf } from '../../lib/live-entries.js';
import type { Entries } from '../../model/entries.js';
import type { ComparedEntries, ExpectedLiteral, RawEntries } from '../../model/live.js';
import { PackedEntries } from '../../model/packed-entries.js';
import type { EntryChange } from '../../model/plan.js';
import { compareStrings } from '../compare-strings.js';
import { diffEntries, NO_CHANGES } from '../diff-entries.js';
import { EntriesHasher, hashEntries } from '../fingerprint-live.js';
import { expectedLiteral, KeptSorted, NO_REREAD, ReadOnce, type Reread } from './read-once.js';
import { answerDigest, sameAsUploadText, WHOLE_TEXT_CHARS } from './same-text.js';
import { detach, merge } from './changes.js';
import { compareIndexed } from './indexed-compare.js';

/**
 * `get` of entries whose lines (`source TAB target`) are `lines`, sorted by source, for lookups in
 * strictly ascending source order (PackedEntries' walk, over a comparison's own sorted lines): the
 * cursor moves past the entries the lookups pass by, which are never asked for again.
 */
function ascendingLookup(lines: readonly string[]): (source: string) => string | undefined {
  let cursor = 0;
  return (source) => {
    while (cursor < lines.length) {
      const line = lines[cursor] as string;
      if (line.charCodeAt(source.length) === 9 && line.startsWith(source)) {
        cursor++;
        return line.slice(source.length + 1);
      }
      if (line.slice(0, line.indexOf('\t')) < source) cursor++;
      else break;
    }
    return undefined;
  };
}

/**
 * Compares a live dictionary with `expected` (the repository's canonical entries) in one pass over
 * the answer, as it is read: what the plan needs (the term-level diff) and, with `hashed`, the
 * fingerprint's hash, without building the live entries. The service answers in the order termsync
 * uploads (ascending sources), which also proves the sources distinct; an answer in any other
 * order is read into a map first (exact, just slower). Nothing of the answer is kept but the
 * phrases of the changes, copied. `wholeTextChars`: see WHOLE_TEXT_CHARS (tests give 0 to take the
 * line-by-line comparison of long answers with short ones).
 */
export function compareLiveEntries(
  raw: RawEntries,
  expected: Entries,
  hashed = false,
  wholeTextChars = WHOLE_TEXT_CHARS,
  /** Deferred entries read again for this comparison (the one given to expectedLiteral), if any. */
  reading?: ReadOnce,
  /** Large kept entries sorted for this comparison (the one given to expectedLiteral), if any. */
  kept?: KeptSorted,
): ComparedEntries {
  // Deferred entries (the plan's, see PackedEntries.deferred): an answer that is their text as
  // uploaded in the order read is told by its digest, without reading the file again. Any other
  // (the entries sorted, as termsync uploads them, or a change) is compared with the file read
  // again through `reading` (its bytes, which must be the ones checked: see DeferredText.read), and
  // sorted then; the sort is made only for such an answer, never for one told by its digest. An
  // answer the client told by its literal (SameLiteral) was that text as read or sorted.
  const deferred = expected instanceof PackedEntries ? expected.deferredText : undefined;
  if ('sameLiteral' in raw && kept !== undefined) {
    if (raw.sameLiteral !== kept.knownDigest) throw new Error('internal error: an answer was told equal to a literal digest its entries do not have');
    // The answer is their text sorted by source, as termsync uploads it.
    return hashed ? { expected, diff: NO_CHANGES, hash: hashEntries(expected) } : { expected, diff: NO_CHANGES };
  }
  if ('sameLiteral' in raw) {
    if (!(expected instanceof PackedEntries) || deferred === undefined || (raw.sameLiteral !== deferred.digest && raw.sameLiteral !== reading?.knownSortedDigest)) {
      throw new Error('internal error: an answer was told equal to a literal digest its entries do not have');
    }
    // The answer is their text (in the order read or sorted): the hash (order aside) is made from the file's.
    return hashed ? { expected, diff: NO_CHANGES, hash: (reading ?? new ReadOnce(expected, NO_REREAD)).hash() } : { expected, diff: NO_CHANGES };
  }
  if (expected instanceof PackedEntries && deferred !== undefined) {
    const once = reading ?? new ReadOnce(expected, NO_REREAD);
    const answer = answerDigest(raw, deferred, expected.size);
    if (answer !== undefined && (answer.digest === deferred.digest || answer.digest === once.knownSortedDigest)) {
      // The answer is their text: the hash (of the entries sorted) is made from it, not kept.
      return hashed ? { expected, diff: NO_CHANGES, hash: hashEntries(PackedEntries.fromText(`${answer.live()}\n`, expected.size, true)) } : { expected, diff: NO_CHANGES };
    }
    const again = once.entries();
    const compared = compareEntries(raw, again, hashed, wholeTextChars, answer?.live());
    // A changed dictionary's entries are needed again (the plan's writes and its display): the text
    // read (and checked) here is kept rather than read once more.
    if (compared.diff.added + compared.diff.changed + compared.diff.removed > 0) expected.keepText(again);
    return { ...compared, expected };
  }
  return compareEntries(raw, expected, hashed, wholeTextChars, undefined, kept === undefined ? undefined : () => kept.sortedLines());
}

/** compareLiveEntries of entries at hand; `notAsRead` as sameAsUploadText's; `sorted`: their lines sorted already for this comparison, when they are. */
function compareEntries(raw: RawEntries, expected: Entries, hashed: boolean, wholeTextChars: number, notAsRead?: string, sorted?: () => readonly string[]): ComparedEntries {
  // The packed entries' lines in source order, sorted at most once for this comparison and garbage
  // right after it: the packed entries' cached ones (sortedLines) would stay alive with the plan,
  // 2,000 dictionaries of them.
  let lines: readonly string[] | undefined;
  const sortedLines = (): readonly string[] => (lines ??= sorted === undefined ? (expected as PackedEntries).linesBySource() : sorted());
  const same = sameAsUploadText(raw, expected, hashed, sortedLines, wholeTextChars, notAsRead);
  if (same !== undefined) return same;
  // The client's text of a v3 answer, for a plan that does not hash it: looked up in a hash table
  // of the repository's sources (compareIndexed), without sorting them or cutting the answer into
  // strings; an answer it does not take is read below.
  if (!hashed && expected instanceof PackedEntries && 'text' in raw && raw.escaped === true && typeof raw.text === 'string') {
    const diff = compareIndexed(raw.text, expected);
    if (diff !== undefined) return { expected, diff };
  }
  // The answer's sources are looked up in ascending order (a source out of order ends this pass).
  const get = expected instanceof PackedEntries ? ascendingLookup(sortedLines()) : (source: string) => expected.get(source);
  const reader = readerOf(raw);
  const { canonical } = reader;
  // Removed and changed entries in the answer's (ascending) order.
  const changes: EntryChange[] = [];
  const upserts: [string, string][] = [];
  let matched = 0;
  let changed = 0;
  let removed = 0;
  let previous = '';
  let first = true;
  let ordered = true;
  const hasher = hashed ? new EntriesHasher() : undefined;
  reader.visit((rawSource, rawTarget) => {
    const source = canonical(rawSource);
    if (!first && !(previous < source)) return (ordered = false);
    first = false;
    previous = source;
    const target = canonical(rawTarget);
    const want = get(source);
    if (want === target) matched++;
    else if (want === undefined) {
      removed++;
      changes.push({ source: detach(source), before: detach(target) });
    } else {
      changed++;
      const kept = detach(source);
      changes.push({ source: kept, before: detach(target), after: want });
      upserts.push([kept, want]);
    }
    hasher?.add(source, target);
    return true;
  });
  if (!ordered) {
    const live = entriesOf(reader);
    return { expected, diff: diffEntries(expected, live, detach), ...(hashed ? { hash: hashEntries(live) } : {}) };
  }
  const hash = hasher === undefined ? {} : { hash: hasher.digest() };
  // The answer's sources are distinct, so the entries of `expected` it did not hold are the rest.
  const added = expected.size - matched - changed;
  if (added === 0 && changes.length === 0) return { expected, diff: NO_CHANGES, ...hash };
  let entryChanges: EntryChange[] = changes;
  let allUpserts: (readonly [string, string])[] = upserts;
  if (added > 0) {
    // Rare (terms added to the repository): a second pass collects the sources the answer holds.
    const seen = new Set<string>();
    reader.visit((source) => {
      seen.add(canonical(source));
      return true;
    });
    const addedPairs: [string, string][] = [];
    for (const [source, target] of expected) if (!seen.has(source)) addedPairs.push([source, target]);
    addedPairs.sort((a, b) => compareStrings(a[0], b[0]));
    entryChanges = merge<EntryChange>(changes, addedPairs.map(([source, after]) => ({ source, after })), (c) => c.source);
    allUpserts = merge<readonly [string, string]>(upserts, addedPairs, (p) => p[0]);
  }
  return { expected, diff: { added, changed, removed, entryChanges, upserts: allUpserts }, ...hash };
}

/**
 * One live dictionary compared with `expected` (the repository's entries) as it is read: `read`
 * fetches the answer (the live fetch's callback), told what it may recognise from the answer's
 * bytes without decoding it (deferred entries: see ExpectedLiteral). Deferred entries that must be
 * read again for the comparison are read through `reread`, the loader's read of their file.
 */
export async function compareDictionary(
  expected: Entries,
  read: (literal?: ExpectedLiteral) => Promise<RawEntries>,
  options: { readonly hashed: boolean; readonly reread?: Reread; readonly wholeTextChars?: number },
): Promise<ComparedEntries> {
  // Deferred entries are read again at most once for their comparison, and only when needed.
  const reading = expected instanceof PackedEntries && expected.deferredText !== undefined ? new ReadOnce(expected, options.reread ?? NO_REREAD) : undefined;
  const kept = KeptSorted.of(expected, options.hashed);
  const raw = await read(expectedLiteral(expected, reading, options.hashed, kept));
  return compareLiveEntries(raw, expected, options.hashed, options.wholeTextChars ?? WHOLE_TEXT_CHARS, reading, kept);
}
