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

/** The longest source phrase applied, in words: a glossary holds terms, not sentences. */
const MAX_SPAN_WORDS = 8;

/**
 * Words (letters, marks and digits), runs of whitespace, and every other character on its own: a
 * source phrase matches whole words only ("cart" in "cart." and "(cart)", never in "carts").
 */
const TOKEN = /[\p{L}\p{M}\p{N}]+|\s+|[^\p{L}\p{M}\p{N}\s]/gu;
const SPACE = /^\s+$/u;
const WORD = /^[\p{L}\p{M}\p{N}]/u;

/** A phrase as the matcher compares it: its tokens, whitespace runs as one space. */
function phraseKey(tokens: readonly string[]): string {
  return tokens.map((t) => (SPACE.test(t) ? ' ' : t)).join('');
}

/**
 * Applies a dictionary: at each word or sign, the longest run of tokens (up to MAX_SPAN_WORDS words)
 * that is a source phrase is replaced by its target. Case is compared exactly: the spec says
 * nothing about the case of source phrases (only language codes are case-insensitive), so an entry
 * `Shopping Cart` does not match "shopping cart", as a terminologist's tests should find out.
 */
export function applyGlossary(text: string, entries: ReadonlyMap<string, string> | undefined): string {
  if (entries === undefined || entries.size === 0) return text;
  const sources = new Map<string, string>();
  let longest = 0;
  for (const [source, target] of entries) {
    const tokens = source.match(TOKEN) ?? [];
    const key = phraseKey(tokens);
    if (key.trim() === '' || sources.has(key)) continue;
    sources.set(key, target);
    longest = Math.max(longest, tokens.length);
  }
  const tokens = text.match(TOKEN) ?? [];
  const out: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const first = tokens[i] ?? '';
    let matched = 0;
    let target: string | undefined;
    if (!SPACE.test(first)) {
      let words = 0;
      for (let end = i + 1; end <= Math.min(tokens.length, i + longest); end++) {
        const last = tokens[end - 1] ?? '';
        if (WORD.test(last)) words++;
        if (words > MAX_SPAN_WORDS) break;
        if (SPACE.test(last)) continue;
        const found = sources.get(phraseKey(tokens.slice(i, end)));
        if (found !== undefined) {
          matched = end - i;
          target = found;
        }
      }
    }
    if (target === undefined) {
      out.push(first);
      i += 1;
    } else {
      out.push(target);
      i += matched;
    }
  }
  return out.join('');
}
