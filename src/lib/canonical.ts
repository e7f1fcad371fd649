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

/**
 * `canonicalPhrase` for a phrase of a text already known to hold no CR and no code unit from
 * U+0300 up, or to have its every phrase in NFC without CR (isUsualText, isNfcText: one test of the
 * whole text instead of one per phrase): only the ends are looked at.
 */
export function canonicalUsualPhrase(phrase: string): string {
  const n = phrase.length;
  return n > 0 && !isSpace(phrase.charCodeAt(0)) && !isSpace(phrase.charCodeAt(n - 1)) ? phrase : canonicalPhrase(phrase);
}

/** Whether every phrase of `text` may go through canonicalUsualPhrase (see also isNfcText). */
export function isUsualText(text: string): boolean {
  return !NOT_SIMPLE.test(text);
}

/**
 * Code units of a text that isNfcText normalises at once. ICU copies what it normalises into memory
 * of its own, allocated with malloc: the copy of a whole 10 MiB dictionary's text (about 18 MB) was
 * served by mmap and, once freed, raised glibc's threshold for serving allocations by mmap to its
 * size (and the threshold for giving the top of a heap back to twice that), so that the process
 * kept some 35 MB that other threads (the garbage collector's) had freed (a 10 MiB dictionary's
 * first apply: peak RSS 195 or 230 MB by chance). A piece's copy (32 KiB) comes from the heap and
 * goes back to it.
 */
const NFC_PIECE = 16 * 1024;

/**
 * Whether every phrase of `text` (a field between its tabs and line breaks, or between the `\t`
 * and `\n` escapes of a JSON string's content) is in NFC and holds no CR, by one test of the whole
 * text instead of one normalisation per phrase: then such a phrase is canonical unless it begins
 * or ends with a space, and canonicalUsualPhrase may take it.
 * Why a whole text in NFC has its phrases in NFC: the characters that separate them (tab, LF, or
 * the `t`, `n` and `\` of an escape) are starters that no canonical reordering moves a mark past,
 * and none of them is the second character of a composition. What a phrase alone could compose
 * differently is only its leading marks with the character before it: composed there, the text is
 * not in NFC (so the test fails, and every phrase is normalised alone); not composed there, they
 * have nothing to compose with alone either.
 */
export function isNfcText(text: string, pieceLength: number = NFC_PIECE): boolean {
  if (text.includes('\r')) return false;
  // Piece by piece, each cut before a code unit below U+0300: normalisation never reaches across
  // one (see isSimpleCanonical), so the text is in NFC exactly when each piece is. Where no such
  // code unit follows (a long run of CJK without a line break), the rest is one piece.
  for (let start = 0; start < text.length; ) {
    let end = start + pieceLength;
    while (end < text.length && text.charCodeAt(end) >= 0x300) end++;
    const piece = end >= text.length && start === 0 ? text : text.slice(start, end);
    if (piece.normalize('NFC') !== piece) return false;
    start = end;
  }
  return true;
}

/** Whether text.slice(start, end), a phrase of a text for which isNfcText holds, is canonical: not empty, no surrounding space. */
export function isCanonicalInNfcText(text: string, start: number, end: number): boolean {
  return end > start && !isSpace(text.charCodeAt(start)) && !isSpace(text.charCodeAt(end - 1));
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

/** `id/en-de`: the key of a live dictionary's entries (`LiveState.entries`, `LiveState.compared`). */
export function dictionaryKey(glossaryId: string, sourceLang: string, targetLang: string): string {
  return `${glossaryId}/${canonicalLang(sourceLang)}-${canonicalLang(targetLang)}`;
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

// Characters the service refuses inside a phrase (C0 except tab and LF, which have their own rule,
// DEL, C1 incl. NEL, the Unicode line and paragraph separators, and unpaired surrogates).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/u;

/** Index of the first character the service refuses in a phrase (see above), or -1. */
export function findControlCharacter(phrase: string): number {
  const match = CONTROL_CHARACTER.exec(phrase);
  return match === null ? -1 : match.index;
}

/** `U+0007`: how a code point (or a lone surrogate code unit) is named in messages. */
export function codePointName(phrase: string, index: number): string {
  const cp = phrase.codePointAt(index) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
