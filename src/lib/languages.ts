/** Language codes of the service (see the spec: "Language codes used by glossaries", "Style rule list"). */

export const GLOSSARY_LANGUAGES = [
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'es', 'et', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko',
  'lt', 'lv', 'nb', 'nl', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
] as const;

export const STYLE_RULE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'] as const;

const GLOSSARY_SET: ReadonlySet<string> = new Set(GLOSSARY_LANGUAGES);
const STYLE_SET: ReadonlySet<string> = new Set(STYLE_RULE_LANGUAGES);

export type LanguageCheck =
  | { readonly kind: 'ok'; readonly code: string }
  | { readonly kind: 'not-lowercase'; readonly code: string }
  | { readonly kind: 'thai'; readonly code: string }
  | { readonly kind: 'region-variant'; readonly code: string; readonly base: string }
  | { readonly kind: 'unknown'; readonly code: string };

/**
 * Classifies a declared language code against an enumeration. `code` is the canonical (lowercase)
 * form; a region or script variant whose base is in the enumeration names the base to use instead.
 */
export function checkLanguage(raw: string, allowed: 'glossary' | 'style_rules'): LanguageCheck[] {
  const set = allowed === 'glossary' ? GLOSSARY_SET : STYLE_SET;
  const code = raw.trim().toLowerCase();
  if (set.has(code)) {
    const results: LanguageCheck[] = code === raw ? [] : [{ kind: 'not-lowercase', code }];
    // The spec lists `th` in the enumeration but also says glossaries cannot be made in Thai.
    results.push(allowed === 'glossary' && code === 'th' ? { kind: 'thai', code } : { kind: 'ok', code });
    return results;
  }
  // An unusable code is one error; its casing is not worth a second message.
  const base = code.split(/[-_]/)[0] ?? '';
  return [base !== code && set.has(base) ? { kind: 'region-variant', code, base } : { kind: 'unknown', code }];
}

export function languageList(allowed: 'glossary' | 'style_rules'): string {
  return (allowed === 'glossary' ? GLOSSARY_LANGUAGES : STYLE_RULE_LANGUAGES).join(' ');
}
