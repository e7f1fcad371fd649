/**
 * The one canonical form of glossary phrases and language codes, used on both sides of every
 * comparison (repository and service): Unicode NFC, CRLF/CR → LF, surrounding whitespace trimmed
 * (Unicode whitespace too: NBSP, U+3000, ...), language codes lowercased.
 */

// JavaScript's \s covers Unicode White_Space (incl. U+00A0, U+3000, U+FEFF). A BOM is stripped too.
const SURROUNDING_SPACE = /^[\s\uFEFF]+|[\s\uFEFF]+$/gu;

export function canonicalPhrase(phrase: string): string {
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
