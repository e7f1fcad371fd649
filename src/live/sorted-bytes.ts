import { literalDigestOfLatin1 } from '../lib/text-digest.js';

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
  if (latin1.length === 0) return null;
  if (NOT_BYTE_ORDERED.test(latin1)) return undefined;
  const lines = latin1.slice(0, -1).split('\n');
  let sorted = true;
  for (let i = 1; i < lines.length && sorted; i++) if ((lines[i - 1] as string) > (lines[i] as string)) sorted = false;
  if (sorted) return null;
  lines.sort();
  return literalDigestOfLatin1(lines.join('\n')).digest;
}
