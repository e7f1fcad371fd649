import { show } from '../../lib/diagnostics.js';
import type { Diagnostic } from '../../lib/diagnostics.js';
import type { SourceRef } from '../../model/desired.js';
import { MAX_PHRASE_BYTES } from '../../formats/common/collect-entries.js';
import { dialectFormats, formatOfFile } from '../../formats/registry.js';
import type { YamlFile } from '../parse-yaml.js';
import type { GlossaryInput } from '../schemas.js';
import { ref, type Problem, type Rule } from './rule.js';

/** A glossary as its schema parsed it. */
export interface GlossarySubject {
  readonly yaml: YamlFile;
  readonly input: GlossaryInput;
}

/** Settings that belong with a glossary-level `entries_file`. */
const SOURCE_SETTINGS = ['languages', 'pairs', 'terms', 'sheet', 'header_row', 'delimiter', 'encoding'] as const;

export const GLOSSARY_RULES: readonly Rule<GlossarySubject>[] = [
  {
    id: 'glossary/blank-name',
    severity: 'error',
    summary: 'a glossary `name` that is only whitespace',
    *check({ yaml, input }) {
      if (input.name.trim() === '') yield { at: ref(yaml, ['name']), message: 'glossary `name` is only whitespace; the service requires a name' };
    },
  },
  {
    id: 'glossary/name-too-long',
    severity: 'error',
    summary: `a glossary name over the service's ${MAX_PHRASE_BYTES} UTF-8 bytes`,
    *check({ yaml, input }) {
      const bytes = Buffer.byteLength(input.name, 'utf8');
      if (bytes > MAX_PHRASE_BYTES) yield { at: ref(yaml, ['name']), message: `glossary name is ${bytes} UTF-8 bytes; the limit is ${MAX_PHRASE_BYTES}` };
    },
  },
  {
    id: 'glossary/missing-entries-file',
    severity: 'error',
    summary: 'a setting of a glossary-level `entries_file` (`languages`, `pairs`, `sheet`…) on a glossary without one',
    *check({ yaml, input }) {
      if (input.entries_file !== undefined) return;
      for (const key of SOURCE_SETTINGS) {
        if (input[key] === undefined) continue;
        yield { at: ref(yaml, [key], 'key'), message: `\`${key}\` belongs with a glossary-level \`entries_file\` (one multilingual file for every dictionary), which this glossary does not have` };
      }
    },
  },
];

/** The one rule of where a glossary's entries come from, checked on the glossary (its `entries_file`) and on each dictionary. */
export const ENTRIES_SOURCE = {
  id: 'glossary/entries-source',
  severity: 'error',
  summary: 'entries given twice (a glossary-level `entries_file` and `dictionaries`, or `entries_file` and inline `entries`) or not at all',
} as const;

/** A glossary-level `entries_file`: what must come with it. Problems here leave the file unread. */
export const SOURCE_RULES: readonly Rule<GlossarySubject>[] = [
  {
    ...ENTRIES_SOURCE,
    *check({ yaml, input }) {
      if (input.entries_file !== undefined && input.dictionaries !== undefined) {
        yield { at: ref(yaml, ['dictionaries'], 'key'), message: 'give either a glossary-level `entries_file` (with `languages`) or `dictionaries`, not both' };
      }
    },
  },
  {
    id: 'glossary/missing-languages',
    severity: 'error',
    summary: 'a glossary-level `entries_file` without `languages`',
    *check({ yaml, input }) {
      if (input.entries_file === undefined || input.dictionaries !== undefined || input.languages !== undefined) return;
      yield {
        at: ref(yaml, ['entries_file']),
        message: 'a glossary-level `entries_file` needs `languages`, the languages the glossary holds, e.g. `languages: [en, de, fr]` (and optionally `pairs`, by default from the first one)',
      };
    },
  },
];

/** The declared `languages` of a glossary-level file, each as the code to use and where it is. */
export interface LanguagesSubject {
  readonly languages: readonly { readonly code: string; readonly at: SourceRef }[];
}

export const DUPLICATE_LANGUAGE: Rule<LanguagesSubject> = {
  id: 'glossary/duplicate-language',
  severity: 'error',
  summary: 'a language listed twice in `languages`',
  *check({ languages }) {
    const seen = new Set<string>();
    for (const { code, at } of languages) {
      if (seen.has(code)) yield { at, message: `language ${show(code)} is listed twice in \`languages\`` };
      seen.add(code);
    }
  },
};

/** A pair a glossary-level file feeds. */
export interface PairOf {
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly origin: SourceRef;
}

/** `from en`, `all`, or a list of `en-de`: the pairs of a glossary-level `entries_file`, and the problems of its `pairs`. */
export function parsePairs(yaml: YamlFile, input: GlossaryInput, languages: readonly string[]): { pairs: PairOf[]; problems: Problem[] } {
  const pairs = input.pairs ?? `from ${languages[0] ?? ''}`;
  const at = input.pairs === undefined ? ref(yaml, ['languages']) : ref(yaml, ['pairs']);
  const problems: Problem[] = [];
  const fail = (message: string, where: SourceRef = at): { pairs: PairOf[]; problems: Problem[] } => {
    problems.push({ at: where, message });
    return { pairs: [], problems };
  };
  if (typeof pairs === 'string') {
    const text = pairs.trim().toLowerCase();
    if (text === 'all') return { pairs: languages.flatMap((s) => languages.filter((t) => t !== s).map((t) => ({ sourceLang: s, targetLang: t, origin: at }))), problems };
    const from = /^from\s+(\S+)$/.exec(text);
    if (from === null) return fail(`\`pairs\`: expected "from <language>" (e.g. "from en"), "all", or a list such as [en-de, en-fr]; got ${show(pairs)}`);
    const source = from[1] as string;
    if (!languages.includes(source)) return fail(`\`pairs\`: ${show(source)} is not one of the \`languages\` (${languages.join(', ')})`);
    return { pairs: languages.filter((t) => t !== source).map((t) => ({ sourceLang: source, targetLang: t, origin: at })), problems };
  }
  const result: PairOf[] = [];
  pairs.forEach((item, i) => {
    const itemAt = ref(yaml, ['pairs', i]);
    // `\u2192` is the arrow U+2192, escaped: the bundle stays ASCII (see scripts/bundle.js).
    const match = /^\s*([A-Za-z]+)\s*(?:-|>|->|\u2192)\s*([A-Za-z]+)\s*$/.exec(item);
    if (match === null) {
      problems.push({ at: itemAt, message: `\`pairs\`: expected a pair such as "en-de" (source-target), got ${show(item)}` });
      return;
    }
    const [sourceLang, targetLang] = [(match[1] as string).toLowerCase(), (match[2] as string).toLowerCase()];
    const missing = [sourceLang, targetLang].filter((lang) => !languages.includes(lang));
    if (missing.length > 0) {
      problems.push({ at: itemAt, message: `\`pairs\`: ${missing.map((lang) => show(lang)).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not among the \`languages\` (${languages.join(', ')})` });
      return;
    }
    if (sourceLang === targetLang) {
      problems.push({ at: itemAt, message: `\`pairs\`: ${show(item)} has the same source and target language; the service rejects such a dictionary` });
      return;
    }
    result.push({ sourceLang, targetLang, origin: itemAt });
  });
  return { pairs: result, problems };
}

/** A glossary-level file's `pairs`, read against its (checked) languages. */
export interface PairsSubject extends GlossarySubject {
  readonly languages: readonly string[];
}

export const PAIRS: Rule<PairsSubject> = {
  id: 'glossary/pairs',
  severity: 'error',
  summary: '`pairs` that are not "from <language>", "all" or a list of pairs of the declared `languages`',
  check: ({ yaml, input, languages }) => parsePairs(yaml, input, languages).problems,
};

/** A resource's settings next to an `entries_file` (the glossary's, or a dictionary's). */
export interface FileSettingsSubject {
  readonly yaml: YamlFile;
  /** Where the settings are (`[]` for the glossary's, `['dictionaries', i]` for a dictionary's). */
  readonly path: readonly PropertyKey[];
  readonly entriesFile: string | undefined;
  readonly settings: { readonly delimiter?: unknown; readonly encoding?: unknown; readonly terms?: unknown; readonly sheet?: unknown; readonly header_row?: unknown };
}

export const UNUSED_OPTION: Rule<FileSettingsSubject> = {
  id: 'glossary/unused-option',
  severity: 'warning',
  summary: "a setting the entries file's format does not take (`delimiter` of a .tsv file), or one of an `entries_file` next to inline entries",
  *check({ yaml, path, entriesFile, settings }) {
    if (entriesFile === undefined) {
      for (const key of ['terms', 'sheet', 'header_row', 'delimiter', 'encoding'] as const) {
        if (settings[key] !== undefined) yield { at: ref(yaml, [...path, key], 'key'), message: `\`${key}\` applies to an \`entries_file\`; these inline entries ignore it` };
      }
      return;
    }
    // The settings of a text file's dialect apply to the formats that take them (the extension tells).
    const takes = formatOfFile(entriesFile)?.dialect ?? [];
    for (const key of ['delimiter', 'encoding'] as const) {
      if (settings[key] === undefined || takes.includes(key)) continue;
      yield { at: ref(yaml, [...path, key], 'key'), message: `\`${key}\` applies to ${dialectFormats(key)} entries files; ${show(entriesFile)} is read without it` };
    }
  },
};

/** How many dictionaries a glossary has (declared and derived from its `entries_file`), and where they are. */
export interface CountSubject extends GlossarySubject {
  readonly count: number;
  readonly at: SourceRef;
}

export const COUNT_RULES: readonly Rule<CountSubject>[] = [
  {
    id: 'glossary/v2-dictionary-count',
    severity: 'error',
    summary: 'a v2 glossary with other than exactly one dictionary',
    *check({ input, count, at }) {
      if (input.api === 'v2' && count !== 1) yield { at, message: `a v2 glossary has exactly one dictionary (one language pair); this one has ${count} (use \`api: v3\` for several)` };
    },
  },
  {
    id: 'glossary/no-dictionaries',
    severity: 'error',
    summary: 'a glossary without a dictionary',
    *check({ input, count, at }) {
      if (input.api === 'v2' || count !== 0 || input.entries_file !== undefined) return;
      yield { at, message: input.dictionaries === undefined ? 'a glossary needs `dictionaries`, or an `entries_file` with its `languages`' : 'a glossary needs at least one dictionary' };
    },
  },
];

/** One declared dictionary, its languages checked. */
export interface DictionarySubject {
  readonly yaml: YamlFile;
  readonly index: number;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly hasEntries: boolean;
  readonly hasFile: boolean;
}

export const DICTIONARY_RULES: readonly Rule<DictionarySubject>[] = [
  {
    id: 'lang/same-pair',
    severity: 'error',
    summary: 'a dictionary whose source and target language are the same',
    *check({ yaml, index, sourceLang, targetLang }) {
      if (sourceLang !== targetLang) return;
      yield { at: ref(yaml, ['dictionaries', index, 'target_lang']), message: `source and target language are both ${show(sourceLang)} (after lowercasing and folding region variants); the service rejects such a dictionary` };
    },
  },
  {
    ...ENTRIES_SOURCE,
    *check({ yaml, index, hasEntries, hasFile }) {
      if (hasEntries !== hasFile) return;
      yield { at: ref(yaml, ['dictionaries', index]), message: hasFile ? 'give either `entries_file` or inline `entries`, not both' : 'the dictionary has neither `entries_file` nor `entries`' };
    },
  },
];

/** Every dictionary of a glossary, declared and derived, in order. */
export interface PairsOfGlossary {
  readonly dictionaries: readonly PairOf[];
}

export const DUPLICATE_PAIR: Rule<PairsOfGlossary> = {
  id: 'glossary/duplicate-pair',
  severity: 'error',
  summary: 'two dictionaries of one glossary for the same language pair',
  *check({ dictionaries }) {
    const first = new Map<string, number>();
    for (const d of dictionaries) {
      const pair = `${d.sourceLang}-${d.targetLang}`;
      const line = first.get(pair);
      if (line !== undefined) yield { at: d.origin, message: `two dictionaries for the pair ${pair} (the other on line ${line}); a glossary has one dictionary per pair` };
      else first.set(pair, d.origin.line);
    }
  },
};

/** A dictionary's entries (inline, or read from its file) with the diagnostics they came with, and where they are declared. */
export interface EntriesSubject {
  readonly entries: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
  readonly at: SourceRef;
}

/**
 * The service rejects a dictionary without entries. Reported at the declaration (the `entries_file`
 * or `entries` line) when nothing else in the dictionary is an error already (an error there names
 * the real cause, and the dictionary is wrong anyway).
 */
export const EMPTY_DICTIONARY: Rule<EntriesSubject> = {
  id: 'entries/empty-dictionary',
  severity: 'error',
  summary: 'a dictionary without entries (the service rejects it)',
  *check({ entries, diagnostics, at }) {
    if (entries.size > 0 || diagnostics.some((d) => d.severity === 'error')) return;
    const ignored = diagnostics.some((d) => d.code === 'entries/language-columns-mismatch');
    const why = ignored ? ': every row was ignored because of its language columns' : ' (blank lines and ignored rows do not count)';
    yield { at, message: `the dictionary holds no entries${why}; the service rejects a dictionary without entries` };
  },
};
