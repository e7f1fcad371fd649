import { randomBytes } from 'node:crypto';
import { rawDigest } from '../lib/text-digest.js';
import type { ExpectedLiteral } from '../model/live.js';

/** A nonce no answer can guess (made once per process): a short value of an answer never passes for a placeholder. */
const TAG = `\u0000termsync-${randomBytes(9).toString('hex')}-`;

/** Whether a string of a parsed answer is the placeholder of a long string (see parseJsonWithLongStrings). */
export function isLongPlaceholder(value: string): boolean {
  return value.startsWith(TAG);
}

/** String values of at least this many characters are kept in place instead of decoded. */
const LONG = 4096;

/** A long string value of a JSON text: its escaped content, `text.slice(start, end)`. */
export interface LongString {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Its only escapes are `\t` and `\n` and it holds no raw control character: visitEscapedTsvEntries reads it in place. */
  readonly tsvOnly: boolean;
}

export interface JsonWithLongStrings {
  /** The parsed value, each long string replaced by a placeholder (see `long`). */
  readonly value: unknown;
  /** Placeholder → the long string it stands for. */
  readonly long: ReadonlyMap<string, LongString>;
}

/**
 * In a JSON string's content: a raw control character, or a backslash followed by anything but
 * `t` or `n`. Without one, every backslash starts a `\t` or `\n` escape (no backslash can be the
 * escaped one: it would be followed by another), so the content is `tsvOnly`.
 */
// eslint-disable-next-line no-control-regex
const NOT_TSV_ONLY = /[\u0000-\u001f]|\\[^tn]/;

/** Whether the quote at `at` is escaped: an odd run of backslashes before it. */
function escapedQuote(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && text.charCodeAt(i) === 0x5c) i--;
  return (at - 1 - i) % 2 === 1;
}

/**
 * JSON.parse of an answer whose long strings (a dictionary's entries, megabytes of TSV) are not
 * decoded into a second copy: each is cut out of the text, the rest is parsed by JSON.parse, and
 * the long string's place holds a placeholder that `long` maps to its escaped content in the text.
 * Undefined when the text is not one the cut can be made in safely (JSON.parse must then judge it).
 */
export function parseJsonWithLongStrings(text: string): JsonWithLongStrings | undefined {
  const long = new Map<string, LongString>();
  const parts: string[] = [];
  const tag = TAG;
  let last = 0;
  for (let at = text.indexOf('"'); at !== -1; ) {
    // Outside strings (valid JSON), the next quote opens a string; the quote that closes it is the
    // next one not escaped, i.e. after an even run of backslashes (each backslash is counted for
    // at most the one quote it precedes: linear). The escapes between are not visited one by one.
    let quote = text.indexOf('"', at + 1);
    while (quote !== -1 && escapedQuote(text, quote)) quote = text.indexOf('"', quote + 1);
    if (quote === -1) return undefined;
    if (quote - at - 1 >= LONG) {
      const placeholder = `${tag}${long.size}`;
      const tsvOnly = !NOT_TSV_ONLY.test(text.slice(at + 1, quote));
      // Any other escape or a raw control character: JSON.parse judges this string (a rare answer),
      // so that what it would refuse (`\x`, a raw TAB, a bad `\u`) is refused here too, in any field.
      if (!tsvOnly && !isJsonString(text.slice(at, quote + 1))) return undefined;
      long.set(placeholder, { text, start: at + 1, end: quote, tsvOnly });
      parts.push(text.slice(last, at), JSON.stringify(placeholder));
      last = quote + 1;
    }
    at = text.indexOf('"', quote + 1);
  }
  if (long.size === 0) return undefined;
  parts.push(text.slice(last));
  try {
    return { value: JSON.parse(parts.join('')) as unknown, long };
  } catch {
    return undefined;
  }
}

function isJsonString(literal: string): boolean {
  try {
    JSON.parse(literal);
    return true;
  } catch {
    return false;
  }
}

/** The decoded value of a long string (JSON.parse of its literal alone): throws SyntaxError when it is not valid JSON. */
export function decodeLongString(s: LongString): string {
  return JSON.parse(s.text.slice(s.start - 1, s.end + 1)) as string;
}

/** Whether the quote at `at` of a JSON text's bytes is escaped: an odd run of backslashes before it. */
function escapedQuoteByte(bytes: Buffer, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && bytes[i] === 0x5c) i--;
  return (at - 1 - i) % 2 === 1;
}

/** A JSON text's bytes with one string literal cut out (see cutLiteral). */
export interface CutLiteral {
  /** The literal digest it matched (one of the expected ones). */
  readonly digest: string;
  /** The string value that stands in its place in `rest`. */
  readonly placeholder: string;
  /** The text of the answer, the literal replaced by the placeholder's (decoded: a few hundred bytes). */
  readonly rest: string;
}

const ENTRIES_KEY = Buffer.from('"entries"');

/** Whether the string opening at `at` is the value of an `"entries"` key (written plainly; JSON whitespace allowed around the colon). */
function isEntriesValue(bytes: Buffer, at: number): boolean {
  const space = (b: number | undefined): boolean => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
  let i = at - 1;
  while (space(bytes[i])) i--;
  if (bytes[i] !== 0x3a) return false;
  i--;
  while (space(bytes[i])) i--;
  const start = i + 1 - ENTRIES_KEY.length;
  return start >= 0 && bytes.compare(ENTRIES_KEY, 0, ENTRIES_KEY.length, start, i + 1) === 0;
}

/**
 * The first string literal of a JSON text's bytes that is, byte for byte (quotes included), one of
 * the `expected` literals: told by its length and its bytes' digest (rawDigest, in place: no copy,
 * no string), never decoded. The rest of the text is decoded with a placeholder in its place, for
 * JSON.parse to judge as it judges any answer. Strings are found as parseJsonWithLongStrings finds
 * them, on bytes: a quote or a backslash byte is always that ASCII character in UTF-8 (never part
 * of another character, valid or not), so the strings are the decoded text's. Should the text not
 * be JSON, the pairing of quotes may be wrong, but then the rest is not JSON either (the cut string
 * is a valid JSON string, standing where a string token stood) and JSON.parse refuses it.
 * Undefined when no string is one of them.
 */
export function cutLiteral(bytes: Buffer, expected: ExpectedLiteral): CutLiteral | undefined {
  for (let at = bytes.indexOf(0x22); at !== -1; ) {
    let quote = bytes.indexOf(0x22, at + 1);
    while (quote !== -1 && escapedQuoteByte(bytes, quote)) quote = bytes.indexOf(0x22, quote + 1);
    if (quote === -1) return undefined;
    if (quote + 1 - at === expected.bytes) {
      const digest = rawDigest(bytes, at, quote + 1);
      // The sorted digest reads the file again: asked for only by the value of `entries` (a key or
      // another value of the same length, `"entries"` itself for a 9-byte file, never asks).
      if (expected.digests.includes(digest) || (expected.later !== undefined && isEntriesValue(bytes, at) && expected.decoded?.includes(digest) !== true && expected.later() === digest)) {
        const placeholder = `${TAG}literal`;
        // Cut where a quote is: no character of the decoded text spans the cut.
        return { digest, placeholder, rest: `${bytes.toString('utf8', 0, at)}${JSON.stringify(placeholder)}${bytes.toString('utf8', quote + 1)}` };
      }
    }
    at = bytes.indexOf(0x22, quote + 1);
  }
  return undefined;
}
