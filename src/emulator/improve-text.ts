/**
 * A small deterministic stand-in for the service's language features: language detection by
 * script and common words, a text "improvement" (spacing, capitals, a few spelling variants) and
 * a translation that only applies glossary entries. Enough for tests and demos to see that the
 * right parameters and dictionaries were used.
 */

const WORD_HINTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['de', /\b(der|die|das|und|ist|nicht|ein|eine|mit|für)\b|[äöüß]/i],
  ['fr', /\b(le|la|les|est|et|une|des|pour|avec|je)\b|[çœ]|[éèêà]/i],
  ['es', /\b(el|los|las|es|y|una|para|con|que)\b|[ñ¿¡]/i],
  ['it', /\b(il|gli|è|e|una|per|con|che|sono)\b/i],
  ['pt', /\b(o|os|as|é|e|uma|para|com|não)\b|[ãõ]|ção\b/i],
];

export function detectLanguage(text: string): string {
  if (/[\u3040-\u30ff]/.test(text)) return 'ja';
  if (/[\uac00-\ud7af]/.test(text)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(text)) return 'zh';
  for (const [lang, hint] of WORD_HINTS) if (hint.test(text)) return lang;
  return 'en';
}

const BRITISH: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcolor/g, 'colour'],
  [/\bfavorite/g, 'favourite'],
  [/\bcenter\b/g, 'centre'],
  [/\borganiz/g, 'organis'],
  [/\banalyz/g, 'analys'],
];
const AMERICAN: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bcolour/g, 'color'],
  [/\bfavourite/g, 'favorite'],
  [/\bcentre\b/g, 'center'],
  [/\borganis/g, 'organiz'],
  [/\banalys/g, 'analyz'],
];

export function improveText(text: string, targetLanguage: string): string {
  let out = text.replace(/[ \t]+/g, ' ').replace(/ +([,.;:!?])/g, '$1').trim();
  // Capital letter at the start of each sentence.
  out = out.replace(/(^|[.!?]\s+)(\p{Ll})/gu, (_m, lead: string, letter: string) => lead + letter.toUpperCase());
  if (targetLanguage.startsWith('en')) out = out.replace(/\bi\b/g, 'I');
  const variants = targetLanguage === 'en-GB' ? BRITISH : targetLanguage === 'en-US' ? AMERICAN : [];
  for (const [pattern, replacement] of variants) out = out.replace(pattern, replacement);
  return out;
}

const MAX_SPAN_TOKENS = 8;

/** Applies a dictionary: longest run of words that is a source phrase is replaced by its target. */
export function applyGlossary(text: string, entries: ReadonlyMap<string, string> | undefined): string {
  if (entries === undefined || entries.size === 0) return text;
  const tokens = text.split(/(\s+)/);
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    let replaced = false;
    // Words sit at even indexes, whitespace at odd ones.
    if (i % 2 === 0) {
      for (let span = Math.min(MAX_SPAN_TOKENS * 2 - 1, tokens.length - i); span >= 1; span -= 2) {
        const phrase = tokens.slice(i, i + span).join('');
        const target = entries.get(phrase);
        if (target !== undefined && phrase !== '') {
          out.push(target);
          i += span;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) {
      out.push(tokens[i] ?? '');
      i += 1;
    }
  }
  return out.join('');
}
