import { randomBytes } from 'node:crypto';
import { UploadBody } from '../lib/entries-tsv.js';

/** Strings at least this long (a dictionary's entries, megabytes of TSV) are written into the body where they are. */
const LONG = 64 * 1024;

/** What JSON.stringify would escape in a string other than TAB and LF (a lone surrogate; a pair is tested too, and copied the usual way). */
// eslint-disable-next-line no-control-regex
const OTHER_ESCAPES = /["\\\u0000-\u0008\u000b-\u001f\ud800-\udfff]/;

/** A nonce no value can hold (made once per process): a placeholder never passes for a real value. */
const TAG = `\u0000termsync-body-${randomBytes(9).toString('hex')}-`;

/** Lines of an UploadBody joined into one string at a time to be written: a block of some 10 KiB of text, young garbage (a block over 128 KiB would go to the large-object space, kept until a full collection). */
const BLOCK_LINES = 256;

/**
 * `value` with each UploadBody in it (the entries of a large dictionary, see lib/entries-tsv.ts) that
 * needs no escape but TAB and LF taken into `long` and replaced by its placeholder; plain objects
 * and arrays are copied where one is replaced, anything else is left to JSON.stringify. An
 * UploadBody with other characters to escape is its text (toJSON), for JSON.stringify to escape.
 */
function withPlaceholders(value: unknown, long: (string | UploadBody)[]): unknown {
  if (value instanceof UploadBody) return OTHER_ESCAPES.test(value.text) ? value.toJSON() : `${TAG}${long.push(value) - 1}`;
  if (Array.isArray(value)) return value.map((v) => withPlaceholders(v, long));
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withPlaceholders(v, long)]));
}

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, built without a JSON text of its long strings: each
 * string of at least 64 KiB whose only characters to escape are TAB and LF is written into the
 * one buffer piece by piece, escapes and all, instead of into a second string (the escaped copy)
 * that undici would then copy a third time into bytes; an UploadBody (a large dictionary's sorted
 * lines) is written a block of lines at a time, never joined whole. A 10 MiB dictionary's upload so
 * costs one 10 MiB buffer. Byte for byte what `Buffer.from(JSON.stringify(value))` gives; a value
 * without such strings is its JSON text, as before.
 */
export function jsonBody(value: unknown): string | Buffer {
  const long: (string | UploadBody)[] = [];
  const replaced = withPlaceholders(value, long);
  const text = JSON.stringify(replaced, (_key, v: unknown) => (typeof v === 'string' && v.length >= LONG && !OTHER_ESCAPES.test(v) ? `${TAG}${long.push(v) - 1}` : v));
  if (long.length === 0) return text;
  // The text around the placeholders (each quoted as JSON.stringify quoted it), and the long strings' sizes escaped.
  const parts: string[] = [];
  const escapes: number[] = [];
  let last = 0;
  let size = 0;
  // Placeholders in the order they stand in the text (those of UploadBody values come first in `long`).
  const order = long.map((_, i) => i).sort((a, b) => text.indexOf(JSON.stringify(`${TAG}${a}`)) - text.indexOf(JSON.stringify(`${TAG}${b}`)));
  for (const i of order) {
    const s = long[i] as string | UploadBody;
    const placeholder = JSON.stringify(`${TAG}${i}`);
    const at = text.indexOf(placeholder, last);
    parts.push(text.slice(last, at));
    last = at + placeholder.length;
    // Each TAB and LF takes two bytes (`\t`, `\n`), the quotes two more. An UploadBody's lines hold
    // one TAB each, and an LF stands between two of them.
    if (typeof s === 'string') {
      const n = count(s, '\t') + count(s, '\n');
      escapes.push(n);
      size += Buffer.byteLength(s, 'utf8') + n + 2;
    } else {
      const n = 2 * s.lines.length - 1;
      escapes.push(n);
      size += s.bytes + n + 2;
    }
  }
  parts.push(text.slice(last));
  for (const part of parts) size += Buffer.byteLength(part, 'utf8');
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const [k, part] of parts.entries()) {
    pos += out.write(part, pos, 'utf8');
    const i = order[k];
    if (i === undefined) continue;
    const s = long[i] as string | UploadBody;
    if (typeof s === 'string') {
      out[pos++] = 0x22;
      pos = writeEscaped(out, pos, s, escapes[k] as number);
      out[pos++] = 0x22;
    } else {
      out[pos++] = 0x22;
      const { lines } = s;
      for (let from = 0; from < lines.length; from += BLOCK_LINES) {
        const to = Math.min(from + BLOCK_LINES, lines.length);
        const block = to === lines.length ? lines.slice(from, to).join('\n') : `${lines.slice(from, to).join('\n')}\n`;
        pos = writeEscaped(out, pos, block, 2 * (to - from) - (to === lines.length ? 1 : 0));
      }
      out[pos++] = 0x22;
    }
  }
  // The size is exact; anything else would be a bug here, never a body to send.
  if (pos !== size) throw new Error(`internal error: JSON body of ${pos} bytes, ${size} expected`);
  return out;
}

function count(s: string, char: string): number {
  let n = 0;
  for (let at = s.indexOf(char); at !== -1; at = s.indexOf(char, at + 1)) n++;
  return n;
}

/**
 * Writes `s`, its TABs and LFs escaped (its only characters to escape, `escapes` of them), at
 * `pos`; returns the position after it. `s` is encoded once, into the end of its room (`escapes` bytes further on), and
 * then moved forward run by run, each TAB or LF becoming two bytes: a write never passes the bytes
 * still to be read, since each escape brings the two positions one byte closer.
 */
function writeEscaped(out: Buffer, pos: number, s: string, escapes: number): number {
  const end = pos + escapes + out.write(s, pos + escapes, 'utf8');
  // Searches end with `s`: the buffer past it is not written yet (any bytes, up to the body's end).
  const written = out.subarray(0, end);
  let from = pos + escapes;
  let tab = written.indexOf(0x09, from);
  let lf = written.indexOf(0x0a, from);
  while (tab !== -1 || lf !== -1) {
    const isTab = lf === -1 || (tab !== -1 && tab < lf);
    const next = isTab ? tab : lf;
    out.copyWithin(pos, from, next);
    pos += next - from;
    out[pos++] = 0x5c;
    out[pos++] = isTab ? 0x74 : 0x6e;
    from = next + 1;
    if (isTab) tab = written.indexOf(0x09, from);
    else lf = written.indexOf(0x0a, from);
  }
  out.copyWithin(pos, from, end);
  pos += end - from;
  return pos;
}
