import { canonicalPhrase, canonicalUsualPhrase, isUsualText } from '../lib/canonical.js';
import { literalDigestOfEscaped, literalDigestOfText } from '../lib/text-digest.js';
import { visitTsvEntries } from '../lib/entries-tsv.js';
import type { Entries, EntryList } from '../model/entries.js';
import { PackedEntries, type DeferredText } from '../model/packed-entries.js';
import type { ComparedEntries, ExpectedLiteral, SameLiteral } from '../model/live.js';
import type { EntryChange } from '../model/plan.js';
import { compareStrings } from '../plan/compare-strings.js';
import { diffEntries, NO_CHANGES } from '../plan/diff-entries.js';
import { EntriesHasher, hashEntries } from '../plan/fingerprint-live.js';
import { canonicalEntries } from './canonical-entries.js';
import { hashOfLatin1Lines, literalDigestOfSortedLines, sortedLinesOfLatin1 } from './sorted-bytes.js';

/** Visits entries as sent, in order; `visit` returns false to stop. */
export type EntriesVisitor = (visit: (source: string, target: string) => boolean) => void;

/**
 * A live dictionary's entries as the service sent them: its TSV text (lines already checked), pairs,
 * or a reader that visits them in order and checks each line as it goes (the client's answer, see
 * EntriesText), with `usual` telling whether its phrases may take canonicalUsualPhrase. Or, for
 * deferred entries, the client's word that the answer's entries string is byte for byte one of their
 * literals (`sameLiteral`: the literal digest it matched, see SameLiteral): not decoded at all.
 */
export type { ExpectedLiteral, SameLiteral };

export type RawEntries =
  | { readonly tsv: string }
  | { readonly list: EntryList }
  | { readonly usual: boolean; readonly visit: EntriesVisitor; readonly text?: string; readonly escaped?: boolean }
  | SameLiteral;

/**
 * Deferred entries (see PackedEntries.deferred) read again for one comparison, at most once: the
 * entries sorted by source (as termsync uploads them, as the service answers after termsync's own
 * apply) are made from this read, only for an answer that is not their text as read; the text read
 * then serves the rest of the comparison. A read that failed (the file changed: exit 3) fails again
 * with the same error, without another read.
 */
export class ReadOnce {
  private again: PackedEntries | undefined;
  private failure: Error | undefined;
  /** Literal digest of the entries sorted by source: null when that is the order read; undefined until made. */
  private sorted: string | null | undefined;

  constructor(private readonly expected: PackedEntries) {}

  /**
   * The file's bytes read again as a Latin-1 string (see DeferredText.readLatin1), when the sorted
   * digest was made from them: the entries' text is decoded from them if needed (no other read).
   */
  private latin1: string | undefined;

  /** The entries, read again (see PackedEntries.readAgain). */
  entries(): PackedEntries {
    if (this.again !== undefined) return this.again;
    if (this.failure !== undefined) throw this.failure;
    if (this.latin1 !== undefined) {
      this.again = this.expected.againOf(Buffer.from(this.latin1, 'latin1').toString('utf8'));
      this.latin1 = undefined;
      return this.again;
    }
    const again = this.attempt(() => this.expected.readAgain());
    if (again === undefined) throw new Error('internal error: entries read again that are not deferred');
    this.again = again;
    return again;
  }

  /** `read`, its failure kept (and thrown again by every later use). */
  private attempt<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      throw this.failure;
    }
  }

  /**
   * The literal digest of the entries sorted by source, made from the file read again (and sorted
   * there, once for the comparison); undefined when that is the order read (the digest as read is
   * theirs). Made from the file's bytes, not decoded, when their order is their sources' (see
   * sortedLiteralDigestOfLatin1); else from the entries decoded and sorted.
   */
  sortedDigest(): string | undefined {
    if (this.sorted === undefined) {
      const lines = this.bytesSorted();
      if (lines !== undefined) this.sorted = literalDigestOfSortedLines(lines);
      else {
        const again = this.entries();
        const body = again.sortedBody();
        this.sorted = body.length === again.text.length - 1 && body === again.text.slice(0, -1) ? null : literalDigestOfText(body).digest;
      }
    }
    return this.sorted ?? undefined;
  }

  /** hashEntries of the entries read again: from their bytes sorted when they can be (see bytesSorted). */
  hash(): string {
    const lines = this.bytesSorted();
    return lines === undefined ? hashEntries(this.entries()) : hashOfLatin1Lines(lines.lines);
  }

  /** The file's lines (as Latin-1) sorted by source, made once from one read; undefined when the bytes cannot tell the order (see sortedLinesOfLatin1). */
  private byteLines: { readonly lines: readonly string[]; readonly inOrder: boolean } | null | undefined;

  private bytesSorted(): { readonly lines: readonly string[]; readonly inOrder: boolean } | undefined {
    if (this.byteLines !== undefined) return this.byteLines ?? undefined;
    const readLatin1 = this.expected.deferredText?.readLatin1;
    if (this.again !== undefined || readLatin1 === undefined) {
      this.byteLines = null;
      return undefined;
    }
    if (this.failure !== undefined) throw this.failure;
    const latin1 = this.attempt(readLatin1);
    const lines = sortedLinesOfLatin1(latin1);
    if (lines === undefined) {
      // A character above U+FFFF: decoded from this read and sorted as UTF-16 (no other read).
      this.again = this.expected.againOf(Buffer.from(latin1, 'latin1').toString('utf8'));
      this.byteLines = null;
      return undefined;
    }
    this.latin1 = latin1;
    this.byteLines = lines;
    return lines;
  }

  /** The sorted literal digest when it was made already (nothing is read). */
  get knownSortedDigest(): string | undefined {
    return this.sorted ?? undefined;
  }
}

/**
 * What an answer's entries string is compared with before it is decoded, for deferred entries
 * (undefined for others): their literal digest as read and, made only when a string of the same
 * length is not that one (`later`: the file read again through `reading`), as sorted by source. A
 * read that fails gives no digest: the answer is then decoded, and the comparison meets the failure.
 */
export function expectedLiteral(expected: Entries, reading?: ReadOnce, hashed = false): ExpectedLiteral | undefined {
  const deferred = expected instanceof PackedEntries ? expected.deferredText : undefined;
  if (deferred === undefined || reading === undefined) return deferred === undefined ? undefined : { bytes: deferred.literalBytes, digests: [deferred.digest] };
  const later = (): string | undefined => {
    try {
      return reading.sortedDigest();
    } catch {
      return undefined;
    }
  };
  // Hashed, the text as read is told from the answer (decoded, hashed as it is read): told by its
  // digest, the hash would need the file read again. Only the sorted one is told by its digest (the
  // file is read again for it anyway, and its hash made from that read); the one as read is not
  // asked `later` for (the file is not read again for it).
  return hashed ? { bytes: deferred.literalBytes, digests: [], later, decoded: [deferred.digest] } : { bytes: deferred.literalBytes, digests: [deferred.digest], later };
}

interface Reader {
  readonly canonical: (phrase: string) => string;
  readonly visit: EntriesVisitor;
}

function readerOf(raw: RawEntries): Reader {
  if ('sameLiteral' in raw) throw new Error('internal error: entries told by their literal digest have no text to read');
  if ('list' in raw) {
    return {
      canonical: canonicalPhrase,
      visit: (visit) => {
        for (const [source, target] of raw.list) if (!visit(source, target)) return;
      },
    };
  }
  if ('tsv' in raw) {
    const text = raw.tsv;
    return { canonical: isUsualText(text) ? canonicalUsualPhrase : canonicalPhrase, visit: (visit) => void visitTsvEntries(text, visit) };
  }
  return { canonical: raw.usual ? canonicalUsualPhrase : canonicalPhrase, visit: raw.visit };
}

/** The canonical live entries as a map, as canonicalEntries builds them (a later duplicate source wins). */
function entriesOf(reader: Reader): Map<string, string> {
  const entries = new Map<string, string>();
  const { canonical } = reader;
  reader.visit((source, target) => {
    entries.set(canonical(source), canonical(target));
    return true;
  });
  return entries;
}

/** The canonical entries of a live dictionary, read whole (`pull`, `import`, a saved plan's check). */
export function readLiveEntries(raw: RawEntries): Entries {
  if ('list' in raw) return canonicalEntries(raw.list);
  return entriesOf(readerOf(raw));
}

/**
 * A phrase to keep beyond the read: a copy, not a slice of the answer's text (a slice would keep the
 * whole answer, megabytes for one changed term, alive as long as the plan).
 */
function detach(phrase: string): string {
  return phrase.length < 16 ? phrase : (JSON.parse(JSON.stringify(phrase)) as string);
}

/**
 * Whether `text` is `lines` (`source TAB target`, each with exactly one tab) joined by LF, or that
 * text escaped as in a JSON string whose only escapes are `\t` and `\n` (`escaped`; the lines then
 * hold no backslash). Line by line, each phrase compared with its place in the text: no joined or
 * escaped copy of megabytes is built.
 */
function sameLines(text: string, lines: readonly string[] | string, escaped: boolean): boolean {
  const [tabMark, lfMark] = escaped ? ['\\t', '\\n'] : ['\t', '\n'];
  const step = tabMark.length;
  // `lines` as a string: LF-terminated lines, read where they are.
  const packed = typeof lines === 'string' ? lines : undefined;
  const count = packed === undefined ? lines.length : Infinity;
  let at = 0;
  let from = 0;
  for (let i = 0; i < count; i++) {
    let line: string;
    if (packed === undefined) line = lines[i] as string;
    else {
      if (from >= packed.length) break;
      const lf = packed.indexOf('\n', from);
      line = packed.slice(from, lf);
      from = lf + 1;
    }
    let end = text.indexOf(lfMark, at);
    if (end === -1) end = text.length;
    const tab = text.indexOf(tabMark, at);
    const lineTab = line.indexOf('\t');
    if (tab === -1 || tab - at !== lineTab || end - at - step + 1 !== line.length) return false;
    if (text.slice(at, tab) !== line.slice(0, lineTab) || text.slice(tab + step, end) !== line.slice(lineTab + 1)) return false;
    at = end + step;
  }
  // Past the last line's end (the text's end), and not before: nothing follows the last line.
  return at === text.length + step;
}

/**
 * Text escaped as in a JSON string whose only escapes are `\t` and `\n`, unescaped. Any other
 * backslash stays, and the text then equals no repository text compared with it (those hold no
 * backslash, see sameAsUploadText): a JSON string with other escapes is never taken for one.
 */
function unescapeTsv(text: string): string {
  return text.includes('\\') ? text.replaceAll('\\n', '\n').replaceAll('\\t', '\t') : text;
}

/** String.prototype.isWellFormed (ES2024, in every Node this runs on; not in this build's type library). */
type WellFormed = string & { isWellFormed(): boolean };

/**
 * The literal digest (lib/text-digest.ts) of the answer's text, when it is as long as the text of
 * deferred entries (of `size` lines) as uploaded (their text without its last LF), with a reader
 * of its text, unescaped. An escaped answer (only `\t` and `\n` escapes, JSON.stringify's own) is
 * hashed as it is: it is the literal's content when it is the text.
 */
function answerDigest(raw: RawEntries, deferred: DeferredText, size: number): { digest: string; live: () => string } | undefined {
  if ('tsv' in raw) {
    const text = raw.tsv;
    if (text.length !== deferred.length - 1) return undefined;
    return { digest: literalDigestOfText(text).digest, live: () => text };
  }
  if (!('text' in raw) || typeof raw.text !== 'string') return undefined;
  const text = raw.text;
  if (raw.escaped === true) {
    // Escaped, each line's tab and each LF between lines take two characters.
    if (text.length !== deferred.length + 2 * size - 2 || !(text as WellFormed).isWellFormed()) return undefined;
    let live: string | undefined;
    return { digest: literalDigestOfEscaped(text), live: () => (live ??= unescapeTsv(text)) };
  }
  if (text.length !== deferred.length - 1) return undefined;
  return { digest: literalDigestOfText(text).digest, live: () => text };
}

/** Answers of up to this many characters are compared with the repository's text whole (see sameAsUploadText); longer ones line by line, in place. */
export const WHOLE_TEXT_CHARS = 1 << 20;

/**
 * The usual answer of a dictionary nobody changed is, character for character, the text termsync
 * uploaded: the repository's entries sorted by source, `source TAB target` lines joined by LF (or
 * that text escaped as in the answer's JSON string). Sorting the repository's lines once (the
 * default string sort) and comparing them with the text costs far less than a look-up per entry:
 * an answer of up to WHOLE_TEXT_CHARS as one string comparison (an unescaped copy of the answer and
 * the joined lines), a longer one in place, line by line (sameLines: no joined or escaped copy).
 * Undefined when the texts differ in any way (then the entries are compared one by one) or cannot
 * be compared so.
 */
function sameAsUploadText(
  raw: RawEntries,
  expected: Entries,
  hashed: boolean,
  sortedLines: () => readonly string[],
  wholeTextChars: number,
  /** The answer's text unescaped (answerText), when it is known not to be `expected`'s text as read. */
  notAsRead?: string,
): ComparedEntries | undefined {
  if (!(expected instanceof PackedEntries) || expected.size === 0) return undefined;
  let text: string;
  let escaped = false;
  if ('tsv' in raw) text = raw.tsv;
  else if ('text' in raw && typeof raw.text === 'string') {
    text = raw.text;
    escaped = raw.escaped === true;
  } else return undefined;
  // Cheap tests first: a different length cannot be the same text.
  const packed = expected.text;
  // The upload text drops the last LF; escaped, each of its tabs and LFs takes two characters.
  const length = escaped ? packed.length + 2 * expected.size - 2 : packed.length - 1;
  if (text.length !== length || packed.charCodeAt(packed.length - 1) !== 10) return undefined;
  // Escaped, a repository phrase holding a backslash would show as `\\` (and the answer holds no such escape).
  if (escaped && packed.includes('\\')) return undefined;
  // The repository's own order first (what another tool uploading the file as it is leaves), then
  // termsync's. The sorted lines are this comparison's own (see compareLiveEntries).
  // A text of up to `wholeTextChars` is compared whole: unescaped and joined copies of it cost
  // less than a comparison line by line (native copies, one comparison of two flat strings).
  const whole = text.length <= wholeTextChars;
  const live = whole ? (notAsRead ?? (escaped ? unescapeTsv(text) : text)) : undefined;
  const asRead = notAsRead === undefined && (live === undefined ? sameLines(text, packed, escaped) : live === packed.slice(0, -1));
  if (asRead) return hashed ? { expected, diff: NO_CHANGES, hash: hashEntries(expected) } : { expected, diff: NO_CHANGES };
  const lines = sortedLines();
  if (!(live === undefined ? sameLines(text, lines, escaped) : live === lines.join('\n'))) return undefined;
  if (!hashed) return { expected, diff: NO_CHANGES };
  // The hash takes the entries in source order, which the lines' order is unless a phrase holds a
  // code unit below TAB (then the sorted pairs are hashed, as hashEntries does).
  const hasher = new EntriesHasher();
  let previous = '';
  for (const [i, line] of lines.entries()) {
    const tab = line.indexOf('\t');
    const source = line.slice(0, tab);
    if (i > 0 && !(previous < source)) return { expected, diff: NO_CHANGES, hash: hashEntries(expected) };
    previous = source;
    hasher.add(source, line.slice(tab + 1));
  }
  return { expected, diff: NO_CHANGES, hash: hasher.digest() };
}

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

/** Two lists sorted by source (no source in both), merged into one. */
function merge<T>(a: readonly T[], b: readonly T[], sourceOf: (item: T) => string): T[] {
  if (b.length === 0) return a as T[];
  if (a.length === 0) return b as T[];
  const out: T[] = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = sourceOf(a[i] as T) < sourceOf(b[j] as T) ? (a[i++] as T) : (b[j++] as T);
  while (i < a.length) out[k++] = a[i++] as T;
  while (j < b.length) out[k++] = b[j++] as T;
  return out;
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
): ComparedEntries {
  // Deferred entries (the plan's, see PackedEntries.deferred): an answer that is their text as
  // uploaded in the order read is told by its digest, without reading the file again. Any other
  // (the entries sorted, as termsync uploads them, or a change) is compared with the file read
  // again through `reading` (its bytes, which must be the ones checked: see DeferredText.read), and
  // sorted then; the sort is made only for such an answer, never for one told by its digest. An
  // answer the client told by its literal (SameLiteral) was that text as read or sorted.
  const deferred = expected instanceof PackedEntries ? expected.deferredText : undefined;
  if ('sameLiteral' in raw) {
    if (!(expected instanceof PackedEntries) || deferred === undefined || (raw.sameLiteral !== deferred.digest && raw.sameLiteral !== reading?.knownSortedDigest)) {
      throw new Error('internal error: an answer was told equal to a literal digest its entries do not have');
    }
    // The answer is their text (in the order read or sorted): the hash (order aside) is made from the file's.
    return hashed ? { expected, diff: NO_CHANGES, hash: (reading ?? new ReadOnce(expected)).hash() } : { expected, diff: NO_CHANGES };
  }
  if (expected instanceof PackedEntries && deferred !== undefined) {
    const once = reading ?? new ReadOnce(expected);
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
  return compareEntries(raw, expected, hashed, wholeTextChars);
}

/** compareLiveEntries of entries at hand; `notAsRead` as sameAsUploadText's. */
function compareEntries(raw: RawEntries, expected: Entries, hashed: boolean, wholeTextChars: number, notAsRead?: string): ComparedEntries {
  // The packed entries' lines in source order, sorted at most once for this comparison and garbage
  // right after it: the packed entries' cached ones (sortedLines) would stay alive with the plan,
  // 2,000 dictionaries of them.
  let lines: readonly string[] | undefined;
  const sortedLines = (): readonly string[] => (lines ??= (expected as PackedEntries).linesBySource());
  const same = sameAsUploadText(raw, expected, hashed, sortedLines, wholeTextChars, notAsRead);
  if (same !== undefined) return same;
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
