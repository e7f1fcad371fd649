import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

// A code unit beyond Latin-1: a string without one is stored one byte per character, and is
// hashed from those bytes (a copy), not encoded to UTF-8 first (measured: half the time).
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** node:crypto, loaded on the first digest: `validate` (which makes none) never loads it. */
let crypto: typeof Crypto | undefined;

/**
 * sha256 (hex) of a string, fast for the usual text: the Latin-1 bytes of a string whose every
 * code unit is below U+0100, the UTF-8 bytes of any other, each after its own marker so that no
 * string of one kind hashes like one of the other. Equal strings give equal digests; two strings
 * with different digests differ. A string with an unpaired surrogate is the caller's to refuse
 * (its UTF-8 bytes hold U+FFFD in its place).
 */
export function textDigest(text: string): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  const hash = crypto.createHash('sha256');
  if (!BEYOND_LATIN1.test(text)) return hash.update('L').update(text, 'latin1').digest('hex');
  return hash.update('U').update(text, 'utf8').digest('hex');
}
