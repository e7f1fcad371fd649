import { createHash } from 'node:crypto';
import { literalDigestOfLatin1 } from '../../lib/text-digest.js';
import { sortByCodeUnits } from '../../model/sort-strings.js';

/**
 * A byte (as a Latin-1 character) where the byte order of lines is not the order of their sources
 * as JavaScript compares strings (UTF-16 code units): a lead byte of a character above U+FFFF
 * (0xF0–0xF4; UTF-8 orders it after U+E000–U+FFFF, UTF-16 before, as surrogates), or a byte below
 * TAB (a line would not sort as its source does).
 */
// eslint-disable-next-line no-control-regex
const NOT_BYTE_ORDERED = /[\u0000-\u0008\u00f0-\u00f4]/;

/**
 * The literal digest of packed entries (`source TAB target LF` lines, valid UTF-8) sorted by source
 * as PackedEntries.sortedBody sorts them, made from their bytes given as a Latin-1 string (one
 * character per byte, see DeferredText.readLatin1) without decoding them: null when the lines are in
 * that order already, undefined when the bytes cannot tell the order (see NOT_BYTE_ORDERED: the
 * caller decodes and sorts the text). Below U+10000, UTF-8 byte order is code point order, which is
 * UTF-16 code unit order; a line holds no byte below TAB, so it sorts as its source does.
 */
export function sortedLiteralDigestOfLatin1(latin1: string): string | null | undefined {
  const sorted = sortedLinesOfLatin1(latin1);
  return sorted === undefined ? undefined : literalDigestOfSortedLines(sorted);
}

/** The literal digest of lines sorted by sortedLinesOfLatin1: null when they were in that order already. */
export function literalDigestOfSortedLines(sorted: { readonly lines: readonly string[]; readonly inOrder: boolean }): string | null {
  return sorted.inOrder ? null : literalDigestOfLatin1(sorted.lines.join('\n')).digest;
}

/** The lines of sortedLiteralDigestOfLatin1, sorted (Latin-1 strings), and whether they were in that order already. */
export function sortedLinesOfLatin1(latin1: string): { readonly lines: readonly string[]; readonly inOrder: boolean } | undefined {
  if (latin1.length === 0) return { lines: [], inOrder: true };
  if (NOT_BYTE_ORDERED.test(latin1)) return undefined;
  const lines = latin1.slice(0, -1).split('\n');
  return { lines, inOrder: sortByCodeUnits(lines) };
}

// A byte JSON.stringify escapes (below 0x20, `"`, `\\`): such a line is decoded and escaped by it.
// eslint-disable-next-line no-control-regex
const ESCAPED = /["\\\u0000-\u001f]/;

/**
 * hashEntries (plan/fingerprint-live.ts) of entries given as sortedLinesOfLatin1's lines (`source
 * TAB target`, UTF-8 bytes as Latin-1, sorted by source): the same bytes hashed, `["source","target"]`
 * LF per entry, without decoding the lines that JSON.stringify writes as they are.
 */
export function hashOfLatin1Lines(lines: readonly string[]): string {
  const hash = createHash('sha256');
  let chunk = '';
  for (const line of lines) {
    const tab = line.indexOf('\t');
    const source = line.slice(0, tab);
    const target = line.slice(tab + 1);
    if (!ESCAPED.test(source) && !ESCAPED.test(target)) chunk += `["${source}","${target}"]\n`;
    else {
      const utf8 = (s: string): string => Buffer.from(JSON.stringify(Buffer.from(s, 'latin1').toString('utf8')), 'utf8').toString('latin1');
      chunk += `[${utf8(source)},${utf8(target)}]\n`;
    }
    if (chunk.length > 65_536) {
      hash.update(chunk, 'latin1');
      chunk = '';
    }
  }
  hash.update(chunk, 'latin1');
  return hash.digest('hex');
}
