/**
 * Target variants a glossary dictionary applies to in translations (spec: "A dictionary with target
 * `en`, `pt` or `zh` needs no variant. It is applied automatically in translations to any variant"):
 * variant (lowercase) → the dictionary's target language.
 */
export const TARGET_VARIANTS: Readonly<Record<string, string>> = { 'en-gb': 'en', 'en-us': 'en', 'pt-br': 'pt', 'pt-pt': 'pt', 'zh-hans': 'zh' };

/**
 * The variant a translation into a dictionary's target uses when none is named: the service's
 * translation targets list `en` and `pt` only with a variant (`en-US`, `pt-BR`, ...).
 */
const DEFAULT_VARIANTS: Readonly<Record<string, string>> = { en: 'en-us', pt: 'pt-br' };

/** `en-gb` → `en-GB`, `zh-hans` → `zh-Hans`: the service's casing of a variant. */
function variantCode(code: string): string {
  const [base = '', sub] = code.split('-');
  if (sub === undefined) return base;
  return `${base}-${sub.length === 2 ? sub.toUpperCase() : `${sub.charAt(0).toUpperCase()}${sub.slice(1)}`}`;
}

/** The translation target to send for a declared target (a glossary code or a variant), and the dictionary it uses. */
export function translationTarget(code: string): { readonly targetLang: string; readonly dictionaryTarget: string } {
  const lower = code.trim().toLowerCase();
  const base = TARGET_VARIANTS[lower];
  if (base !== undefined) return { targetLang: variantCode(lower), dictionaryTarget: base };
  const variant = DEFAULT_VARIANTS[lower];
  return { targetLang: variant === undefined ? lower : variantCode(variant), dictionaryTarget: lower };
}
