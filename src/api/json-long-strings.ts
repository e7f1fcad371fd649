import { randomBytes } from 'node:crypto';

/** A nonce no answer can guess (made once per process): a short value of an answer never passes for a placeholder. */
const TAG = `\u0000termsync-${randomBytes(9).toString('hex')}-`;

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
