import { randomBytes } from 'node:crypto';

/** Strings at least this long (a dictionary's entries, megabytes of TSV) are written into the body where they are. */
const LONG = 64 * 1024;

/** What JSON.stringify would escape in a string other than TAB and LF (a lone surrogate; a pair is tested too, and copied the usual way). */
// eslint-disable-next-line no-control-regex
const OTHER_ESCAPES = /["\\\u0000-\u0008\u000b-\u001f\ud800-\udfff]/;

/** A nonce no value can hold (made once per process): a placeholder never passes for a real value. */
const TAG = `\u0000termsync-body-${randomBytes(9).toString('hex')}-`;

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, built without a JSON text of its long strings: each
 * string of at least 64 KiB whose only characters to escape are TAB and LF is written into the
 * one buffer piece by piece, escapes and all, instead of into a second string (the escaped copy)
 * that undici would then copy a third time into bytes. A 10 MiB dictionary's upload so costs one
 * 10 MiB buffer. Byte for byte what `Buffer.from(JSON.stringify(value))` gives; a value without such
 * strings is its JSON text, as before.
 */
export function jsonBody(value: unknown): string | Buffer {
  const long: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length >= LONG && !OTHER_ESCAPES.test(v) ? `${TAG}${long.push(v) - 1}` : v));
  if (long.length === 0) return text;
  // The text around the placeholders (each quoted as JSON.stringify quoted it), and the long strings' sizes escaped.
  const parts: string[] = [];
  const escapes: number[] = [];
  let last = 0;
  let size = 0;
  for (const [i, s] of long.entries()) {
    const placeholder = JSON.stringify(`${TAG}${i}`);
    const at = text.indexOf(placeholder, last);
    parts.push(text.slice(last, at));
    last = at + placeholder.length;
    // Each TAB and LF takes two bytes (`\t`, `\n`), the quotes two more.
    const n = count(s, '\t') + count(s, '\n');
    escapes.push(n);
    size += Buffer.byteLength(s, 'utf8') + n + 2;
  }
  parts.push(text.slice(last));
  for (const part of parts) size += Buffer.byteLength(part, 'utf8');
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const [i, part] of parts.entries()) {
    pos += out.write(part, pos, 'utf8');
    const s = long[i];
    if (s !== undefined) pos = writeEscaped(out, pos, s, escapes[i] as number);
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
 * Writes `s` quoted, its TABs and LFs escaped (its only characters to escape), at `pos`; returns the
 * position after it. `s` is encoded once, into the end of its room (`escapes` bytes further on), and
 * then moved forward run by run, each TAB or LF becoming two bytes: a write never passes the bytes
 * still to be read, since each escape brings the two positions one byte closer.
 */
function writeEscaped(out: Buffer, pos: number, s: string, escapes: number): number {
  out[pos++] = 0x22;
  const end = pos + escapes + out.write(s, pos + escapes, 'utf8');
  let from = pos + escapes;
  let tab = out.indexOf(0x09, from);
  let lf = out.indexOf(0x0a, from);
  if (tab >= end) tab = -1;
  if (lf >= end) lf = -1;
  while (tab !== -1 || lf !== -1) {
    const isTab = lf === -1 || (tab !== -1 && tab < lf);
    const next = isTab ? tab : lf;
    out.copyWithin(pos, from, next);
    pos += next - from;
    out[pos++] = 0x5c;
    out[pos++] = isTab ? 0x74 : 0x6e;
    from = next + 1;
    if (isTab) {
      tab = out.indexOf(0x09, from);
      if (tab >= end) tab = -1;
    } else {
      lf = out.indexOf(0x0a, from);
      if (lf >= end) lf = -1;
    }
  }
  out.copyWithin(pos, from, end);
  pos += end - from;
  out[pos++] = 0x22;
  return pos;
}
