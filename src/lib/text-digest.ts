import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

/** node:crypto, loaded on the first digest: `validate` (which makes none) never loads it. */
let crypto: typeof Crypto | undefined;

function sha256(): Crypto.Hash {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto.createHash('sha256');
}

/**
 * The literal digest of a text: sha256 (hex) of the UTF-8 bytes of `JSON.stringify(text)`, its
 * quotes included: the text as a JSON string in an answer of the service, byte for byte (`\t`,
 * `\n`, `\"`, `\\`, `\b`, `\f`, `\r`, `\u00XX` for the other controls, every other character as
 * is). An answer's string whose bytes hash to a text's literal digest is that text (JSON decoding
 * is a function), without being decoded (see rawDigest).
 */
export interface LiteralDigest {
  readonly digest: string;
  /** Bytes of the literal, quotes included. */
  readonly bytes: number;
}

/** The escaped literal is hashed a piece of this many bytes at a time (a buffer kept for the next digest). */
const PIECE = 64 * 1024;
let piece: Buffer | undefined;
let pieceView: DataView | undefined;
const HEX = '0123456789abcdef';

/** Writes byte `c` of UTF-8 text at `p` as JSON.stringify writes its character (escaped or as is); returns the position after it. */
function put(out: Buffer, p: number, c: number): number {
  if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
    out[p] = c;
    return p + 1;
  }
  out[p] = 0x5c;
  if (c === 0x09) out[p + 1] = 0x74;
  else if (c === 0x0a) out[p + 1] = 0x6e;
  else if (c === 0x22 || c === 0x5c) out[p + 1] = c;
  else if (c === 0x0d) out[p + 1] = 0x72;
  else if (c === 0x08) out[p + 1] = 0x62;
  else if (c === 0x0c) out[p + 1] = 0x66;
  else {
    // `\u00XX`, lowercase hex as JSON.stringify writes it.
    out[p + 1] = 0x75;
    out[p + 2] = 0x30;
    out[p + 3] = 0x30;
    out[p + 4] = HEX.charCodeAt(c >> 4);
    out[p + 5] = HEX.charCodeAt(c & 15);
    return p + 6;
  }
  return p + 2;
}

/**
 * The literal digest of the text whose UTF-8 bytes are `bytes[start, end)` (valid UTF-8: the caller
 * checked), from the bytes: copied, or escaped as JSON.stringify escapes their characters, into a
 * buffer hashed as it fills. A byte of a multi-byte character is never below 0x80, so only ASCII
 * characters are escaped, as JSON.stringify does (it escapes nothing beyond U+001F but `"` and
 * `\`, and lone surrogates, which valid UTF-8 never holds). Four bytes at a time: a word without a
 * byte below 0x20, `"` or `\` (the usual one) is copied whole; only a word with one is written byte
 * by byte.
 */
export function literalDigestOfBytes(bytes: Uint8Array, start = 0, end = bytes.length): LiteralDigest {
  const hash = sha256();
  const out = (piece ??= Buffer.allocUnsafeSlow(PIECE + 32));
  const view = (pieceView ??= new DataView(out.buffer, out.byteOffset, out.length));
  const input = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let p = 0;
  out[p++] = 0x22;
  let i = start;
  // Words start before this (a whole word before `end`).
  const words = end - 3;
  while (i < end) {
    if (i < words) {
      const x = input.getUint32(i, true);
      const quote = x ^ 0x22222222;
      const backslash = x ^ 0x5c5c5c5c;
      // Whether a byte is below 0x20, or is 0x22 or 0x5c (is zero xor'ed with it): exact for the
      // word as a whole (which byte, the bytes below tell).
      if (((((x - 0x20202020) & ~x) | ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080) === 0) {
        view.setUint32(p, x, true);
        p += 4;
        i += 4;
      } else {
        for (const stop = i + 4; i < stop; i++) p = put(out, p, bytes[i] as number);
      }
    } else p = put(out, p, bytes[i++] as number);
    if (p >= PIECE) {
      hash.update(out.subarray(0, p));
      total += p;
      p = 0;
    }
  }
  out[p++] = 0x22;
  hash.update(out.subarray(0, p));
  return { digest: hash.digest('hex'), bytes: total + p };
}

/** Where a well-formed text is encoded for literalDigestOfBytes (kept for the next one, up to this size). */
const ENCODE_KEPT = 4 * 1024 * 1024;
let encoded: Buffer | undefined;

/** String.prototype.isWellFormed (ES2024, in every Node this runs on; not in this build's type library). */
type WellFormed = string & { isWellFormed(): boolean };

/** The literal digest of a text (see LiteralDigest). */
export function literalDigestOfText(text: string): LiteralDigest {
  if (!(text as WellFormed).isWellFormed()) {
    // A lone surrogate: JSON.stringify writes it as `\udXXX` (UTF-8 would hold U+FFFD in its place).
    const literal = JSON.stringify(text);
    return { digest: sha256().update(literal, 'utf8').digest('hex'), bytes: Buffer.byteLength(literal, 'utf8') };
  }
  const room = 3 * text.length;
  if (room > ENCODE_KEPT) {
    const bytes = Buffer.from(text, 'utf8');
    return literalDigestOfBytes(bytes);
  }
  if (encoded === undefined || encoded.length < room) encoded = Buffer.allocUnsafeSlow(Math.max(room, 64 * 1024));
  const n = encoded.write(text, 0, 'utf8');
  return literalDigestOfBytes(encoded, 0, n);
}

/**
 * The literal digest of a text given as the content of its JSON string as an answer held it,
 * `escaped` (quotes not included), when that content is what JSON.stringify writes: its only
 * escapes `\t` and `\n` and no raw control character (see parseJsonWithLongStrings' `tsvOnly`).
 * Such content is JSON.stringify's of the text it stands for only when that text holds no `"` or
 * `\` (they would be escaped): any other content simply gives another digest.
 */
export function literalDigestOfEscaped(escaped: string): string {
  return sha256().update('"').update(escaped, 'utf8').update('"').digest('hex');
}

/** sha256 (hex) of `bytes[start, end)` as they are: of a JSON string literal in an answer, quotes included, its literal digest. */
export function rawDigest(bytes: Uint8Array, start: number, end: number): string {
  return sha256().update(bytes.subarray(start, end)).digest('hex');
}

/** Where a Latin-1 string's bytes are written for literalDigestOfLatin1 (kept for the next one, up to ENCODE_KEPT). */
let latin1Bytes: Buffer | undefined;

/**
 * The literal digest of the text whose UTF-8 bytes are the characters of `latin1` (one byte per
 * character, each below 0x100: see Buffer's 'latin1'), valid UTF-8 (the caller's to ensure).
 */
export function literalDigestOfLatin1(latin1: string): LiteralDigest {
  if (latin1.length > ENCODE_KEPT) return literalDigestOfBytes(Buffer.from(latin1, 'latin1'));
  if (latin1Bytes === undefined || latin1Bytes.length < latin1.length) latin1Bytes = Buffer.allocUnsafeSlow(Math.max(latin1.length, 64 * 1024));
  const n = latin1Bytes.write(latin1, 0, 'latin1');
  return literalDigestOfBytes(latin1Bytes, 0, n);
}
