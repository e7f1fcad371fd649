/**
 * A small deterministic stand-in for the service's language features: language detection by
 * script and common words, a text "improvement" (spacing, capitals, a few spelling variants) and
 * a translation that only applies glossary entries. Enough for tests and demos to see that the
 * right parameters and dictionaries were used.
 */

/**
 * Words that mark a language and are not also common English words (`die`, `as`, `per`, `con`, `la`,
 * `des`, `o`, `e` are left out: "The die is cast", "as soon as possible"), and characters English
 * text rarely has. Loan-word accents (café, à la carte) are not among them.
 */
const HINTS: ReadonlyArray<{ readonly lang: string; readonly words: ReadonlySet<string>; readonly letters: RegExp }> = [
  { lang: 'de', words: new Set(['der', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'mit', 'für', 'ich', 'wir', 'sie', 'auf', 'dem', 'den', 'sind']), letters: /[äöüß]/i },
  { lang: 'fr', words: new Set(['le', 'les', 'est', 'et', 'une', 'pour', 'avec', 'je', 'vous', 'nous', 'dans', 'pas', 'sont']), letters: /[çœêè]/i },
  { lang: 'es', words: new Set(['el', 'los', 'las', 'es', 'y', 'una', 'para', 'que', 'por', 'muy', 'está', 'son']), letters: /[ñ¿¡]/i },
  { lang: 'it', words: new Set(['il', 'gli', 'è', 'una', 'che', 'sono', 'della', 'non', 'questo', 'molto']), letters: /[ìò]/i },
  { lang: 'pt', words: new Set(['os', 'é', 'uma', 'para', 'com', 'não', 'você', 'muito', 'são']), letters: /[ãõ]|ção\b/i },
];

/** Evidence a language needs before it wins over the default `en`: two distinct marks. */
const MIN_EVIDENCE = 2;

/**
 * Language of a text: by script for Japanese, Korean and Chinese; otherwise a Latin-script language
 * only with enough evidence (two distinct hint words, or one and a characteristic letter), and a
 * clear lead over the others. Short or undecided text counts as English, the default, so a single
 * foreign-looking word ("Pay per month") never decides rule-7 outcomes.
 */
export function detectLanguage(text: string): string {
  if (/[\u3040-\u30ff]/.test(text)) return 'ja';
  if (/[\uac00-\ud7af]/.test(text)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(text)) return 'zh';
  const words = new Set(text.toLowerCase().match(/\p{L}+/gu) ?? []);
  let best = 'en';
  let bestScore = 0;
  let tie = false;
  for (const hint of HINTS) {
    let score = hint.letters.test(text) ? 1 : 0;
    for (const word of words) if (hint.words.has(word)) score += 1;
    if (score > bestScore) {
      best = hint.lang;
      bestScore = score;
      tie = false;
    } else if (score === bestScore) {
      tie = true;
    }
  }
  return bestScore >= MIN_EVIDENCE && !tie ? best : 'en';
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
