/** Language enumerations of the spec, and the emulator's language listings built from them. */

/** Glossary source and target enumeration (spec, "Language codes used by glossaries"). */
export const GLOSSARY_LANGUAGES: readonly string[] = [
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'es', 'et', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko',
  'lt', 'lv', 'nb', 'nl', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
];

/** The enumeration lists `th`, but the service's description excludes Thai glossaries: the stricter reading wins. */
export const GLOSSARY_EXCLUDED = new Set(['th']);

export const STYLE_RULE_LANGUAGES: readonly string[] = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'];

/** v2 target list of the spec, with `supports_formality`. */
export const V2_TARGETS: readonly string[] = [
  'AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN-GB', 'EN-US', 'ES', 'ES-419', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT',
  'JA', 'KO', 'LT', 'LV', 'NB', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK',
  'ZH', 'ZH-HANS', 'ZH-HANT',
];
export const FORMALITY_TARGETS = new Set(['DE', 'ES', 'ES-419', 'FR', 'IT', 'JA', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RU']);

/** Text improvement target_lang values (rephrase rule 2). */
export const WRITE_TARGETS: readonly string[] = ['zh', 'zh-Hans', 'en', 'en-GB', 'en-US', 'fr', 'de', 'it', 'ja', 'ko', 'pt', 'pt-BR', 'pt-PT', 'es'];
/** Where writing styles and tones work (rephrase rule 6). */
export const STYLE_TONE_TARGETS = new Set(['en-GB', 'en-US', 'fr', 'de', 'it', 'pt', 'pt-BR', 'pt-PT', 'es']);

export const VOICE_LANGUAGES: readonly string[] = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'nl', 'pl', 'pt', 'ru', 'zh'];

const NAMES: Record<string, string> = {
  ar: 'Arabic', bg: 'Bulgarian', cs: 'Czech', da: 'Danish', de: 'German', el: 'Greek', en: 'English',
  'en-GB': 'English (British)', 'en-US': 'English (American)', es: 'Spanish', 'es-419': 'Spanish (Latin American)',
  et: 'Estonian', fi: 'Finnish', fr: 'French', he: 'Hebrew', hu: 'Hungarian', id: 'Indonesian', it: 'Italian',
  ja: 'Japanese', ko: 'Korean', lt: 'Lithuanian', lv: 'Latvian', nb: 'Norwegian Bokmål', nl: 'Dutch', pl: 'Polish',
  pt: 'Portuguese', 'pt-BR': 'Portuguese (Brazilian)', 'pt-PT': 'Portuguese (European)', ro: 'Romanian',
  ru: 'Russian', sk: 'Slovak', sl: 'Slovenian', sv: 'Swedish', th: 'Thai', tr: 'Turkish', uk: 'Ukrainian',
  vi: 'Vietnamese', zh: 'Chinese', 'zh-Hans': 'Chinese (simplified)', 'zh-Hant': 'Chinese (traditional)',
};

export function languageName(code: string): string {
  return NAMES[code] ?? code;
}

/** `EN-US`, `zh-hans` → `en-US`, `zh-Hans` (BCP 47 casing). */
export function bcp47(code: string): string {
  const [base = '', ...rest] = code.split('-');
  return [
    base.toLowerCase(),
    ...rest.map((part) => (part.length === 4 ? part.charAt(0).toUpperCase() + part.slice(1).toLowerCase() : part.toUpperCase())),
  ].join('-');
}

export interface LanguageEntryV3 {
  lang: string;
  name: string;
  usable_as_source: boolean;
  usable_as_target: boolean;
  status: 'stable';
  features: Record<string, { status: 'stable' }>;
}

function entry(lang: string, source: boolean, target: boolean, featureKeys: readonly string[]): LanguageEntryV3 {
  return {
    lang,
    name: languageName(lang),
    usable_as_source: source,
    usable_as_target: target,
    status: 'stable',
    features: Object.fromEntries(featureKeys.map((k) => [k, { status: 'stable' as const }])),
  };
}

const SOURCE_ONLY_BASES = new Set(['en', 'pt']);

function translateLanguages(): LanguageEntryV3[] {
  const targets = V2_TARGETS.map(bcp47);
  const all = [...new Set([...GLOSSARY_LANGUAGES, ...targets])].sort();
  return all.map((lang) => {
    const base = lang.split('-')[0] ?? lang;
    const source = GLOSSARY_LANGUAGES.includes(lang);
    // `en` and `pt` are sources; as targets a variant is named (the spec's v2 target list).
    const target = targets.includes(lang) && !SOURCE_ONLY_BASES.has(lang);
    const features = ['tag_handling'];
    if (GLOSSARY_LANGUAGES.includes(base) && !GLOSSARY_EXCLUDED.has(base)) features.push('glossary');
    if (FORMALITY_TARGETS.has(lang.toUpperCase())) features.push('formality');
    return entry(lang, source, target, features.sort());
  });
}

export function languagesV3(resource: string): LanguageEntryV3[] | undefined {
  switch (resource) {
    case 'translate_text':
    case 'translate_document':
      return translateLanguages();
    case 'glossary':
      return GLOSSARY_LANGUAGES.filter((l) => !GLOSSARY_EXCLUDED.has(l)).map((l) => entry(l, true, true, []));
    case 'write':
      return WRITE_TARGETS.map((l) => entry(l, !l.includes('-'), true, STYLE_TONE_TARGETS.has(l) ? ['tone', 'writing_style'] : []));
    case 'voice':
      return VOICE_LANGUAGES.map((l) => entry(l, true, true, []));
    default:
      return undefined;
  }
}

export const V3_LANGUAGE_RESOURCES: readonly string[] = ['translate_text', 'translate_document', 'glossary', 'voice', 'write'];

export function languagesV2(type: 'source' | 'target'): Array<{ language: string; name: string; supports_formality?: boolean }> {
  if (type === 'source') return GLOSSARY_LANGUAGES.map((l) => ({ language: l.toUpperCase(), name: languageName(l) }));
  return V2_TARGETS.map((code) => ({ language: code, name: languageName(bcp47(code)), supports_formality: FORMALITY_TARGETS.has(code) }));
}
