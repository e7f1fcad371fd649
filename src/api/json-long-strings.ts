import { randomBytes } from 'node:crypto';

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
 * JSON.parse of an answer whose long strings (a dictionary's entries, megabytes of TSV) are not
 * decoded into a second copy: each is cut out of the text, the rest is parsed by JSON.parse, and
 * the long string's place holds a placeholder that `long` maps to its escaped content in the text.
 * Undefined when the text is not one the cut can be made in safely (JSON.parse must then judge it).
 */
export function parseJsonWithLongStrings(text: string): JsonWithLongStrings | undefined {
  const long = new Map<string, LongString>();
  const parts: string[] = [];
  // A nonce no answer can guess: a short value of the answer never passes for a placeholder.
  const tag = `\u0000termsync-${randomBytes(6).toString('hex')}-`;
  let last = 0;
  let slash = text.indexOf('\\');
  for (let at = text.indexOf('"'); at !== -1; ) {
    // Outside strings (valid JSON), the next quote opens a string; find the quote that closes it.
    let quote = text.indexOf('"', at + 1);
    if (slash !== -1 && slash < at) slash = text.indexOf('\\', at + 1);
    let tsvOnly = true;
    while (quote !== -1 && slash !== -1 && slash < quote) {
      const escaped = text.charCodeAt(slash + 1);
      if (escaped !== 0x74 && escaped !== 0x6e) tsvOnly = false;
      if (slash + 1 === quote) quote = text.indexOf('"', quote + 1);
      slash = text.indexOf('\\', slash + 2);
    }
    if (quote === -1) return undefined;
    if (quote - at - 1 >= LONG) {
      const placeholder = `${tag}${long.size}`;
      // eslint-disable-next-line no-control-regex
      if (tsvOnly && /[\u0000-\u001f]/.test(text.slice(at + 1, quote))) tsvOnly = false;
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

/** The decoded value of a long string (JSON.parse of its literal alone): throws SyntaxError when it is not valid JSON. */
export function decodeLongString(s: LongString): string {
  return JSON.parse(s.text.slice(s.start - 1, s.end + 1)) as string;
}
