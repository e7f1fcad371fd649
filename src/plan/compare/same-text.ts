import { literalDigestOfEscaped, literalDigestOfText } from '../../lib/text-digest.js';
import type { Entries } from '../../model/entries.js';
import type { ComparedEntries, RawEntries } from '../../model/live.js';
import { PackedEntries, type DeferredText } from '../../model/packed-entries.js';
import { NO_CHANGES } from '../diff-entries.js';
import { EntriesHasher, hashEntries } from '../fingerprint-live.js';

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
export function answerDigest(raw: RawEntries, deferred: DeferredText, size: number): { digest: string; live: () => string } | undefined {
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
export function sameAsUploadText(
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
