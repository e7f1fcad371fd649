/**
 * The one canonical form of glossary phrases and language codes, used on both sides of every
 * comparison (repository and service): Unicode NFC, CRLF/CR → LF, surrounding whitespace trimmed
 * (Unicode whitespace too: NBSP, U+3000, ...), language codes lowercased.
 */

// JavaScript's \s covers Unicode White_Space (incl. U+00A0, U+3000, U+FEFF). A BOM is stripped too.
const SURROUNDING_SPACE = /^[\s\uFEFF]+|[\s\uFEFF]+$/gu;

/** Code units of `\s` plus U+FEFF (all of them are in the BMP). */
function isSpace(c: number): boolean {
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

// CR, or any code unit from U+0300 up (a range of code units, not a combined character).
// eslint-disable-next-line no-misleading-character-class
const NOT_SIMPLE = /[\r\u0300-\uffff]/;

/**
 * True when `canonicalPhrase` would return the phrase unchanged by a cheap test: no CR, no
 * surrounding space, and only code units below U+0300, which are all NFC-stable starters that
 * nothing before them composes with. Most terminology passes this test, so the costly
 * normalisation runs only for the rest.
 */
function isSimpleCanonical(phrase: string): boolean {
  const n = phrase.length;
  return n > 0 && !isSpace(phrase.charCodeAt(0)) && !isSpace(phrase.charCodeAt(n - 1)) && !NOT_SIMPLE.test(phrase);
}

export function canonicalPhrase(phrase: string): string {
  if (isSimpleCanonical(phrase)) return phrase;
  let s = phrase;
  if (s.includes('\r')) s = s.replace(/\r\n?/g, '\n');
  s = s.normalize('NFC');
  return s.replace(SURROUNDING_SPACE, '');
}

export function canonicalLang(code: string): string {
  return code.trim().toLowerCase();
}

/** `en-de`: the key of a language pair in maps and reports. */
export function pairKey(pair: { readonly sourceLang: string; readonly targetLang: string }): string {
  return `${canonicalLang(pair.sourceLang)}-${canonicalLang(pair.targetLang)}`;
}

/** What `canonicalPhrase` changed in a phrase, for messages that tell users why a value differs. */
export type CanonicalChange = 'line-endings' | 'nfc' | 'whitespace';

export function canonicalChanges(phrase: string): CanonicalChange[] {
  const changes: CanonicalChange[] = [];
  let s = phrase;
  if (s.includes('\r')) {
    changes.push('line-endings');
    s = s.replace(/\r\n?/g, '\n');
  }
  const nfc = s.normalize('NFC');
  if (nfc !== s) changes.push('nfc');
  if (nfc.replace(SURROUNDING_SPACE, '') !== nfc) changes.push('whitespace');
  return changes;
}
