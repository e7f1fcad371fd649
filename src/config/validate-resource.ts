import { isMap, isNode, isScalar } from 'yaml';
import { appendDiagnostics, type Diagnostic } from '../lib/diagnostics.js';
import type { ConfiguredRules, DesiredInstruction, DesiredStyleRules, GlossaryApi, GlossaryTest, SourceRef } from '../model/desired.js';
import type { TermChoice } from '../model/entries.js';
import type { PackedEntries } from '../model/packed-entries.js';
import { EntryCollector, MAX_PHRASE_BYTES } from './collect-entries.js';
import { codePointName } from '../lib/canonical.js';
import { TARGET_VARIANTS } from '../lib/translation-targets.js';
import { looksLikeSecret } from './detect-secrets.js';
import { didYouMeanSuffix } from './did-you-mean.js';
import { error, show, warning } from './diagnostic.js';
import { checkLanguage, GLOSSARY_LANGUAGES, languageList } from './languages.js';
import { emptyDictionary } from './read-entries.js';
import { positionAt, positionOfNode, type YamlFile } from './parse-yaml.js';
import type { CsvDelimiter } from './parse-entries.js';
import type { TextEncodingName } from './read-files.js';
import { glossarySchema, MAX_INSTRUCTIONS, styleRulesSchema, type DelimiterSetting, type GlossaryInput } from './schemas.js';
import { describeType, schemaDiagnostics, type RuleForIssue } from './validate-schema.js';

export const RESOURCE_KINDS = ['glossary', 'style_rules'] as const;

/** How an entries file is read: a multilingual one (TBX, workbook, CSV/TSV with language columns), and a text file's dialect. */
export interface EntriesFileOptions {
  readonly terms: TermChoice;
  readonly sheet?: string | number;
  readonly headerRow?: number;
  /** CSV: what separates the fields (default: a comma; a glossary-level file's is found from its header row). */
  readonly delimiter?: CsvDelimiter;
  /** TSV, CSV: the text's encoding (default UTF-8). */
  readonly encoding?: TextEncodingName;
}

/** A dictionary as declared: inline entries are already canonical; a file is read later (I/O). */
export interface DictionaryDraft {
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly origin: SourceRef;
  /** As written in the resource file (relative to it). */
  readonly entriesFile?: string;
  readonly entriesFileAt?: SourceRef;
  readonly entries?: PackedEntries;
  /** For a .tbx or .xlsx `entries_file`. */
  readonly options?: EntriesFileOptions;
  /** Derived from the glossary's own `entries_file` (GlossaryDraft.source): its entries come from there. */
  readonly fromSource?: true;
}

/** A glossary-level `entries_file`: one multilingual file feeding every dictionary marked `fromSource`. */
export interface GlossarySource {
  readonly entriesFile: string;
  readonly at: SourceRef;
  /** The declared languages: a concept without a term in one of them is reported. */
  readonly languages: readonly string[];
  readonly options: EntriesFileOptions;
}

export interface GlossaryDraft {
  readonly kind: 'glossary';
  readonly name: string;
  readonly api: GlossaryApi;
  readonly preventDestroy: boolean;
  readonly renamedFrom?: string;
  readonly dictionaries: readonly DictionaryDraft[];
  readonly source?: GlossarySource;
  readonly tests?: readonly GlossaryTest[];
  readonly origin: SourceRef;
}

export type ResourceDraft = GlossaryDraft | DesiredStyleRules;

function ref(yaml: YamlFile, path: readonly PropertyKey[], which: 'value' | 'key' = 'value'): SourceRef {
  return { file: yaml.file, ...positionAt(yaml, path, which) };
}

/** Language code checks shared by glossaries and style rules; returns the code to use. */
function checkLang(raw: string, allowed: 'glossary' | 'style_rules', at: SourceRef, diagnostics: Diagnostic[]): string {
  let code = raw.trim().toLowerCase();
  for (const result of checkLanguage(raw, allowed)) {
    switch (result.kind) {
      case 'not-lowercase':
        diagnostics.push(warning('lang/not-lowercase', `language code ${show(raw)} is written as ${show(result.code)} in canonical form`, at.file, at.line, at.column));
        break;
      case 'thai':
        diagnostics.push(
          warning('lang/thai', 'the service lists `th` among glossary languages but also says glossaries cannot be created in Thai: the service may reject this dictionary (the emulator of `termsync emulator` does)', at.file, at.line, at.column),
        );
        break;
      case 'region-variant':
        code = result.base;
        diagnostics.push(
          error(
            'lang/region-variant',
            `${show(raw)} is a regional or script variant; ${allowed === 'glossary' ? 'glossaries use' : 'style rules use'} the base code ${show(result.base)}${allowed === 'glossary' ? ', which applies to every variant' : ''}`,
            at.file,
            at.line,
            at.column,
          ),
        );
        break;
      case 'unknown':
        diagnostics.push(
          error(
            allowed === 'glossary' ? 'lang/unknown' : 'style/language',
            `unknown ${allowed === 'glossary' ? 'glossary' : 'style rule'} language ${show(raw)}; expected one of: ${languageList(allowed)}`,
            at.file,
            at.line,
            at.column,
          ),
        );
        break;
      case 'ok':
        break;
    }
  }
  return code;
}

// A name or label is one line of plain text: no C0 control (tab and line breaks included), DEL,
// C1, line or paragraph separator, or unpaired surrogate. A prompt may span lines (tab, LF).
// eslint-disable-next-line no-control-regex
const NOT_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const NOT_IN_PROMPT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|\p{Cs}/u;

/**
 * What makes a name, label or prompt unusable: a raw NUL or another control character (it would
 * reach the service, and every plan, log line and comment, as it is). Undefined for a good value.
 * The one table of this rule: the loader reports it at the value, `pull` and `import` at the
 * resource on the service before they would write it.
 */
export function plainTextProblem(value: string, what: string, multiline = false): { readonly code: string; readonly message: string } | undefined {
  const found = (multiline ? NOT_IN_PROMPT : NOT_IN_NAME).exec(value);
  if (found === null) return undefined;
  const surrogate = /^U\+D[89A-F]/.test(codePointName(value, found.index)) ? ' (an unpaired surrogate)' : '';
  return {
    code: 'resource/control-character',
    message: `${what} contains the control character ${codePointName(value, found.index)}${surrogate} at character ${found.index + 1}; ${multiline ? 'a prompt is text (tabs and line breaks allowed)' : 'it must be one line of plain text'}`,
  };
}

function checkPlainText(yaml: YamlFile, value: string | undefined, path: readonly PropertyKey[], what: string, diagnostics: Diagnostic[], multiline = false): void {
  if (value === undefined) return;
  const problem = plainTextProblem(value, what, multiline);
  if (problem === undefined) return;
  const at = ref(yaml, path);
  diagnostics.push(error(problem.code, problem.message, yaml.file, at.line, at.column));
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** How a YAML value with a collection tag (parsed to a Set, Map or bytes) is named: never "a mapping". */
function describeTagged(value: unknown): string | undefined {
  if (value instanceof Set) return 'a YAML !!set (a set of keys without values)';
  if (value instanceof Map) return 'a YAML !!omap or !!pairs (write a plain mapping)';
  if (value instanceof Uint8Array) return 'YAML !!binary data';
  return undefined;
}

/**
 * `!!set`, `!!omap`/`!!pairs` and `!!binary` values are objects, which the schema messages would
 * call "a mapping" ("expected a mapping, got a mapping"). Needs `reportInput` on the parse.
 */
function withTaggedValues(rules: RuleForIssue): RuleForIssue {
  return (issue, path, missing) => {
    const custom = rules(issue, path, missing);
    if (custom !== undefined || issue.code !== 'invalid_type') return custom;
    const got = describeTagged(issue.input);
    if (got === undefined) return undefined;
    const expected = issue.expected === 'array' ? 'a list' : issue.expected === 'object' || issue.expected === 'record' ? 'a mapping' : `a ${issue.expected}`;
    return { code: 'schema/invalid-type', message: `\`${path}\`: expected ${expected}, got ${got}` };
  };
}

const glossaryRules: RuleForIssue = (issue, path) => {
  if (path === 'api') return { code: 'glossary/unknown-api', message: 'unknown glossary `api`: expected "v3" (multilingual, the default) or "v2" (legacy, one dictionary)' };
  if (/^dictionaries\.\d+\.entries\./.test(path) && issue.code === 'invalid_type') {
    return { code: 'entries/not-a-string', message: `inline entry \`${path.split('.').slice(3).join('.')}\` must map to a text (quote it)` };
  }
  return undefined;
};

const styleRules: RuleForIssue = (issue, path) => {
  if (path === 'name' && issue.code === 'too_big') return { code: 'style/name-too-long', message: 'style rule list `name` is longer than 1024 characters' };
  if (path === 'custom_instructions' && issue.code === 'too_big') return { code: 'style/too-many-instructions', message: 'more than 200 custom instructions: the service enables at most 200 per list' };
  if (/^custom_instructions\.\d+\.prompt$/.test(path) && issue.code === 'too_big') return { code: 'style/prompt-too-long', message: 'custom instruction `prompt` is longer than 300 characters' };
  if (path === 'configured_rules' || path.startsWith('configured_rules.')) {
    return { code: 'style/configured-rules-shape', message: '`configured_rules` must be a mapping of categories to mappings of rule → option (text), e.g. `punctuation: { apostrophe: use_curly_apostrophes }`' };
  }
  return undefined;
};

/** Reads inline entries from the YAML nodes (for positions), canonicalising like an entries file. */
function inlineEntries(yaml: YamlFile, index: number, diagnostics: Diagnostic[]): PackedEntries {
  const collector = new EntryCollector(yaml.file, diagnostics);
  const node = yaml.doc.getIn(['dictionaries', index, 'entries'], true);
  if (!isMap(node)) return collector.packed();
  for (const pair of node.items) {
    const { key, value } = pair;
    if (!isScalar(key)) {
      // `? [a, b] : c`: a list or mapping as a source phrase; never dropped silently.
      const at = isNode(key) ? positionOfNode(yaml, key) : positionAt(yaml, ['dictionaries', index, 'entries']);
      diagnostics.push(error('entries/not-a-string', 'an inline entry\'s source phrase must be a text, not a list or mapping', yaml.file, at.line, at.column));
      continue;
    }
    const source = typeof key.value === 'string' ? key.value : (key.source ?? String(key.value));
    const target = isScalar(value) && typeof value.value === 'string' ? value.value : '';
    const keyAt = positionOfNode(yaml, key);
    const valueAt = value === null ? keyAt : positionOfNode(yaml, value);
    collector.add(source, target, keyAt.line, keyAt.column, valueAt.line, valueAt.column);
  }
  collector.finish();
  return collector.packed();
}

type FileOptionsInput = {
  readonly terms?: TermChoice | undefined;
  readonly sheet?: string | number | undefined;
  readonly header_row?: number | undefined;
  readonly delimiter?: DelimiterSetting | undefined;
  readonly encoding?: TextEncodingName | undefined;
};

function fileOptions(input: FileOptionsInput): EntriesFileOptions {
  return {
    terms: input.terms ?? 'preferred',
    ...(input.sheet === undefined ? {} : { sheet: input.sheet }),
    ...(input.header_row === undefined ? {} : { headerRow: input.header_row }),
    ...(input.delimiter === undefined ? {} : { delimiter: input.delimiter === 'tab' ? '\t' : input.delimiter }),
    ...(input.encoding === undefined ? {} : { encoding: input.encoding }),
  };
}

/** The settings of a text file's dialect apply to those formats only (the extension tells): a warning elsewhere. */
function checkDialectOptions(yaml: YamlFile, path: readonly PropertyKey[], entriesFile: string, input: FileOptionsInput, diagnostics: Diagnostic[]): void {
  const extension = /\.[^./\\]*$/.exec(entriesFile)?.[0].toLowerCase() ?? '';
  const unused = (key: 'delimiter' | 'encoding', formats: string): void => {
    const at = ref(yaml, [...path, key], 'key');
    diagnostics.push(warning('glossary/unused-option', `\`${key}\` applies to ${formats} entries files; ${show(entriesFile)} is read without it`, yaml.file, at.line, at.column));
  };
  if (input.delimiter !== undefined && extension !== '.csv') unused('delimiter', '.csv');
  if (input.encoding !== undefined && extension !== '.csv' && extension !== '.tsv') unused('encoding', '.csv and .tsv (a TBX file declares its own; a workbook has none)');
}

/** `from en`, `all`, or a list of `en-de`: the pairs of a glossary-level `entries_file`. */
function readPairs(yaml: YamlFile, input: GlossaryInput, languages: readonly string[], diagnostics: Diagnostic[]): { sourceLang: string; targetLang: string; origin: SourceRef }[] {
  const pairs = input.pairs ?? `from ${languages[0] ?? ''}`;
  const at = input.pairs === undefined ? ref(yaml, ['languages']) : ref(yaml, ['pairs']);
  const fail = (message: string, where: SourceRef = at): [] => {
    diagnostics.push(error('glossary/pairs', message, yaml.file, where.line, where.column));
    return [];
  };
  if (typeof pairs === 'string') {
    const text = pairs.trim().toLowerCase();
    if (text === 'all') return languages.flatMap((s) => languages.filter((t) => t !== s).map((t) => ({ sourceLang: s, targetLang: t, origin: at })));
    const from = /^from\s+(\S+)$/.exec(text);
    if (from === null) return fail(`\`pairs\`: expected "from <language>" (e.g. "from en"), "all", or a list such as [en-de, en-fr]; got ${show(pairs)}`);
    const source = from[1] as string;
    if (!languages.includes(source)) return fail(`\`pairs\`: ${show(source)} is not one of the \`languages\` (${languages.join(', ')})`);
    return languages.filter((t) => t !== source).map((t) => ({ sourceLang: source, targetLang: t, origin: at }));
  }
  const result: { sourceLang: string; targetLang: string; origin: SourceRef }[] = [];
  pairs.forEach((item, i) => {
    const itemAt = ref(yaml, ['pairs', i]);
    // `\u2192` is the arrow U+2192, escaped: the bundle stays ASCII (see scripts/bundle.js).
    const match = /^\s*([A-Za-z]+)\s*(?:-|>|->|\u2192)\s*([A-Za-z]+)\s*$/.exec(item);
    if (match === null) {
      fail(`\`pairs\`: expected a pair such as "en-de" (source-target), got ${show(item)}`, itemAt);
      return;
    }
    const [sourceLang, targetLang] = [(match[1] as string).toLowerCase(), (match[2] as string).toLowerCase()];
    const missing = [sourceLang, targetLang].filter((lang) => !languages.includes(lang));
    if (missing.length > 0) {
      fail(`\`pairs\`: ${missing.map((lang) => show(lang)).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not among the \`languages\` (${languages.join(', ')})`, itemAt);
      return;
    }
    if (sourceLang === targetLang) {
      fail(`\`pairs\`: ${show(item)} has the same source and target language; the service rejects such a dictionary`, itemAt);
      return;
    }
    result.push({ sourceLang, targetLang, origin: itemAt });
  });
  return result;
}

/** The glossary-level `entries_file` with its `languages` and `pairs`, and the dictionaries it feeds. */
function glossarySource(yaml: YamlFile, input: GlossaryInput, diagnostics: Diagnostic[]): { source: GlossarySource; dictionaries: DictionaryDraft[]; pairsAt: SourceRef } | undefined {
  const fileAt = ref(yaml, ['entries_file']);
  if (input.dictionaries !== undefined) {
    const at = ref(yaml, ['dictionaries'], 'key');
    diagnostics.push(
      error('glossary/entries-source', 'give either a glossary-level `entries_file` (with `languages`) or `dictionaries`, not both', yaml.file, at.line, at.column),
    );
    return undefined;
  }
  if (input.languages === undefined) {
    diagnostics.push(
      error('glossary/missing-languages', 'a glossary-level `entries_file` needs `languages`, the languages the glossary holds, e.g. `languages: [en, de, fr]` (and optionally `pairs`, by default from the first one)', yaml.file, fileAt.line, fileAt.column),
    );
    return undefined;
  }
  const languages: string[] = [];
  input.languages.forEach((raw, i) => {
    const at = ref(yaml, ['languages', i]);
    const code = checkLang(raw, 'glossary', at, diagnostics);
    if (languages.includes(code)) diagnostics.push(error('glossary/duplicate-language', `language ${show(code)} is listed twice in \`languages\``, yaml.file, at.line, at.column));
    else languages.push(code);
  });
  const pairs = readPairs(yaml, input, languages, diagnostics);
  const dictionaries = pairs.map((p): DictionaryDraft => ({ ...p, fromSource: true }));
  const pairsAt = input.pairs === undefined ? ref(yaml, ['languages'], 'key') : ref(yaml, ['pairs'], 'key');
  checkDialectOptions(yaml, [], input.entries_file as string, input, diagnostics);
  return { source: { entriesFile: input.entries_file as string, at: fileAt, languages, options: fileOptions(input) }, dictionaries, pairsAt };
}

function validateGlossary(yaml: YamlFile): { resource?: GlossaryDraft; diagnostics: Diagnostic[] } {
  const parsed = glossarySchema.safeParse(yaml.value, { reportInput: true });
  if (!parsed.success) return { diagnostics: schemaDiagnostics(yaml, glossarySchema, parsed.error.issues, withTaggedValues(glossaryRules)) };
  const input = parsed.data;
  const diagnostics: Diagnostic[] = [];
  const nameAt = ref(yaml, ['name']);
  if (input.name.trim() === '') {
    diagnostics.push(error('glossary/blank-name', 'glossary `name` is only whitespace; the service requires a name', yaml.file, nameAt.line, nameAt.column));
  }
  checkPlainText(yaml, input.name, ['name'], 'glossary `name`', diagnostics);
  checkPlainText(yaml, input.renamed_from, ['renamed_from'], '`renamed_from`', diagnostics);
  if (byteLength(input.name) > MAX_PHRASE_BYTES) {
    diagnostics.push(error('glossary/name-too-long', `glossary name is ${byteLength(input.name)} UTF-8 bytes; the limit is ${MAX_PHRASE_BYTES}`, yaml.file, nameAt.line, nameAt.column));
  }
  if (input.entries_file === undefined) {
    for (const key of ['languages', 'pairs', 'terms', 'sheet', 'header_row', 'delimiter', 'encoding'] as const) {
      if (input[key] === undefined) continue;
      const at = ref(yaml, [key], 'key');
      diagnostics.push(error('glossary/missing-entries-file', `\`${key}\` belongs with a glossary-level \`entries_file\` (one multilingual file for every dictionary), which this glossary does not have`, yaml.file, at.line, at.column));
    }
  }
  const source = input.entries_file === undefined ? undefined : glossarySource(yaml, input, diagnostics);
  const declared = input.dictionaries ?? [];
  const derived = source?.dictionaries ?? [];
  const count = declared.length + derived.length;
  const dictionariesAt = source === undefined ? ref(yaml, ['dictionaries'], 'key') : source.pairsAt;
  if (input.api === 'v2' && count !== 1) {
    diagnostics.push(
      error('glossary/v2-dictionary-count', `a v2 glossary has exactly one dictionary (one language pair); this one has ${count} (use \`api: v3\` for several)`, yaml.file, dictionariesAt.line, dictionariesAt.column),
    );
  } else if (count === 0 && input.entries_file === undefined) {
    const message = input.dictionaries === undefined ? 'a glossary needs `dictionaries`, or an `entries_file` with its `languages`' : 'a glossary needs at least one dictionary';
    diagnostics.push(error('glossary/no-dictionaries', message, yaml.file, dictionariesAt.line, dictionariesAt.column));
  }
  const pairs = new Map<string, number>();
  const dictionaries = declared.map((d, i): DictionaryDraft => {
    const origin = ref(yaml, ['dictionaries', i]);
    const sourceLang = checkLang(d.source_lang, 'glossary', ref(yaml, ['dictionaries', i, 'source_lang']), diagnostics);
    const targetLang = checkLang(d.target_lang, 'glossary', ref(yaml, ['dictionaries', i, 'target_lang']), diagnostics);
    if (sourceLang === targetLang) {
      const at = ref(yaml, ['dictionaries', i, 'target_lang']);
      diagnostics.push(
        error('lang/same-pair', `source and target language are both ${show(sourceLang)} (after lowercasing and folding region variants); the service rejects such a dictionary`, yaml.file, at.line, at.column),
      );
    }
    const pair = `${sourceLang}-${targetLang}`;
    const first = pairs.get(pair);
    if (first !== undefined) {
      diagnostics.push(error('glossary/duplicate-pair', `two dictionaries for the pair ${pair} (the other on line ${first}); a glossary has one dictionary per pair`, yaml.file, origin.line, origin.column));
    } else pairs.set(pair, origin.line);
    if ((d.entries === undefined) === (d.entries_file === undefined)) {
      diagnostics.push(
        error('glossary/entries-source', d.entries === undefined ? 'the dictionary has neither `entries_file` nor `entries`' : 'give either `entries_file` or inline `entries`, not both', yaml.file, origin.line, origin.column),
      );
    }
    const base = { sourceLang, targetLang, origin };
    if (d.entries_file !== undefined) {
      checkDialectOptions(yaml, ['dictionaries', i], d.entries_file, d, diagnostics);
      return { ...base, entriesFile: d.entries_file, entriesFileAt: ref(yaml, ['dictionaries', i, 'entries_file']), options: fileOptions(d) };
    }
    for (const key of ['terms', 'sheet', 'header_row', 'delimiter', 'encoding'] as const) {
      if (d[key] === undefined) continue;
      const at = ref(yaml, ['dictionaries', i, key], 'key');
      diagnostics.push(warning('glossary/unused-option', `\`${key}\` applies to an \`entries_file\`; these inline entries ignore it`, yaml.file, at.line, at.column));
    }
    const inline: Diagnostic[] = [];
    const entries = inlineEntries(yaml, i, inline);
    appendDiagnostics(diagnostics, inline);
    const empty = d.entries === undefined ? undefined : emptyDictionary(entries, inline, ref(yaml, ['dictionaries', i, 'entries']));
    if (empty !== undefined) diagnostics.push(empty);
    return { ...base, entries };
  });
  for (const d of derived) {
    const pair = `${d.sourceLang}-${d.targetLang}`;
    const first = pairs.get(pair);
    if (first !== undefined) {
      diagnostics.push(error('glossary/duplicate-pair', `two dictionaries for the pair ${pair} (the other on line ${first}); a glossary has one dictionary per pair`, yaml.file, d.origin.line, d.origin.column));
    } else pairs.set(pair, d.origin.line);
  }
  const tests = validateTests(yaml, input.tests, [...dictionaries, ...derived], diagnostics);
  const resource: GlossaryDraft = {
    kind: 'glossary',
    name: input.name,
    api: input.api,
    preventDestroy: input.prevent_destroy,
    ...(input.renamed_from === undefined ? {} : { renamedFrom: input.renamed_from }),
    dictionaries: [...dictionaries, ...derived],
    ...(source === undefined ? {} : { source: source.source }),
    ...(tests.length === 0 ? {} : { tests }),
    origin: ref(yaml, ['name'], 'key'),
  };
  return { resource, diagnostics };
}

function testTarget(raw: string, at: SourceRef, diagnostics: Diagnostic[]): string {
  const code = raw.trim().toLowerCase();
  if (Object.hasOwn(TARGET_VARIANTS, code)) return code;
  const base = code.split(/[-_]/)[0] ?? '';
  if (base !== code && GLOSSARY_LANGUAGES.includes(base as (typeof GLOSSARY_LANGUAGES)[number])) {
    diagnostics.push(
      error(
        'test/target-variant',
        `no glossary dictionary applies to ${show(raw)} in translations; use the base code ${show(base)} or one of the variants ${Object.keys(TARGET_VARIANTS).join(', ')}`,
        at.file,
        at.line,
        at.column,
      ),
    );
    return base;
  }
  return checkLang(raw, 'glossary', at, diagnostics);
}

/** The `tests:` of a glossary: languages, a dictionary of the glossary for each, something to check. */
function validateTests(yaml: YamlFile, input: GlossaryInput['tests'], dictionaries: readonly DictionaryDraft[], diagnostics: Diagnostic[]): GlossaryTest[] {
  const pairs = new Set(dictionaries.map((d) => `${d.sourceLang}-${d.targetLang}`));
  const pairList = dictionaries.map((d) => `${d.sourceLang} → ${d.targetLang}`).join(', ');
  return input.map((test, i): GlossaryTest => {
    const at = (field?: string): SourceRef => ref(yaml, field === undefined ? ['tests', i] : ['tests', i, field]);
    const sourceLang = checkLang(test.source_lang, 'glossary', at('source_lang'), diagnostics);
    const targetLang = testTarget(test.target_lang, at('target_lang'), diagnostics);
    const base = TARGET_VARIANTS[targetLang] ?? targetLang;
    if (!pairs.has(`${sourceLang}-${base}`) && dictionaries.length > 0) {
      const where = at('target_lang');
      diagnostics.push(
        error('test/no-dictionary', `the glossary has no dictionary ${sourceLang} → ${base}, so this test cannot use it (its dictionaries: ${pairList})`, where.file, where.line, where.column),
      );
    }
    if (test.text.trim() === '') {
      const where = at('text');
      diagnostics.push(error('test/blank-text', 'the test `text` is only whitespace: there is nothing to translate', where.file, where.line, where.column));
    }
    const terms = (field: 'expect' | 'forbid'): void =>
      test[field].forEach((term, k) => {
        if (term.trim() !== '') return;
        const where = ref(yaml, ['tests', i, field, k]);
        diagnostics.push(error('test/blank-term', `\`${field}\` term ${k + 1} is only whitespace: it would be found in any translation`, where.file, where.line, where.column));
      });
    terms('expect');
    terms('forbid');
    if (test.expect.length === 0 && test.forbid.length === 0) {
      const where = at();
      diagnostics.push(error('test/nothing-to-check', 'the test has neither `expect` nor `forbid` terms: it cannot fail', where.file, where.line, where.column));
    }
    const expected = new Set(test.expect.map((t) => t.trim().toLowerCase()));
    test.forbid.forEach((term, k) => {
      if (!expected.has(term.trim().toLowerCase())) return;
      const where = ref(yaml, ['tests', i, 'forbid', k]);
      diagnostics.push(error('test/expect-and-forbid', `${show(term)} is both expected and forbidden: the test can never pass`, where.file, where.line, where.column));
    });
    return { sourceLang, targetLang, text: test.text, expect: test.expect, forbid: test.forbid, origin: at() };
  });
}

/** The schema reports a list too long at the list; the user needs the first item over the limit. */
function atFirstInstructionOver(yaml: YamlFile, d: Diagnostic): Diagnostic {
  if (d.code !== 'style/too-many-instructions') return d;
  const list = yaml.value['custom_instructions'];
  const count = Array.isArray(list) ? list.length : MAX_INSTRUCTIONS + 1;
  const at = ref(yaml, ['custom_instructions', MAX_INSTRUCTIONS]);
  return { ...d, line: at.line, column: at.column, message: `custom instruction ${MAX_INSTRUCTIONS + 1} of ${count} is over the limit: the service enables at most ${MAX_INSTRUCTIONS} per list` };
}

function validateStyleRules(yaml: YamlFile): { resource?: DesiredStyleRules; diagnostics: Diagnostic[] } {
  const parsed = styleRulesSchema.safeParse(yaml.value, { reportInput: true });
  if (!parsed.success) return { diagnostics: schemaDiagnostics(yaml, styleRulesSchema, parsed.error.issues, withTaggedValues(styleRules)).map((d) => atFirstInstructionOver(yaml, d)) };
  const input = parsed.data;
  const diagnostics: Diagnostic[] = [];
  const language = checkLang(input.language, 'style_rules', ref(yaml, ['language']), diagnostics);
  const labels = new Map<string, number>();
  const customInstructions = input.custom_instructions.map((instruction, i): DesiredInstruction => {
    const at = ref(yaml, ['custom_instructions', i, 'label']);
    const first = labels.get(instruction.label);
    if (first !== undefined) {
      diagnostics.push(error('style/duplicate-label', `custom instruction label ${show(instruction.label)} is used twice (first on line ${first}); the label identifies an instruction`, yaml.file, at.line, at.column));
    } else labels.set(instruction.label, at.line);
    return {
      label: instruction.label,
      prompt: instruction.prompt,
      ...(instruction.source_language === undefined ? {} : { sourceLanguage: instruction.source_language.trim().toLowerCase() }),
    };
  });
  const blank = (value: string, path: readonly PropertyKey[], what: string): void => {
    if (value.trim() !== '') return;
    const at = ref(yaml, path);
    diagnostics.push(error('style/blank-text', `${what} is empty or only whitespace; the service requires a text`, yaml.file, at.line, at.column));
  };
  blank(input.name, ['name'], 'style rule list `name`');
  checkPlainText(yaml, input.name, ['name'], 'style rule list `name`', diagnostics);
  checkPlainText(yaml, input.renamed_from, ['renamed_from'], '`renamed_from`', diagnostics);
  input.custom_instructions.forEach((instruction, i) => {
    checkPlainText(yaml, instruction.label, ['custom_instructions', i, 'label'], 'custom instruction `label`', diagnostics);
    checkPlainText(yaml, instruction.prompt, ['custom_instructions', i, 'prompt'], 'custom instruction `prompt`', diagnostics, true);
    blank(instruction.label, ['custom_instructions', i, 'label'], 'custom instruction `label`');
    blank(instruction.prompt, ['custom_instructions', i, 'prompt'], 'custom instruction `prompt`');
    if (instruction.source_language !== undefined) checkInstructionLanguage(yaml, instruction.source_language, ['custom_instructions', i, 'source_language'], diagnostics);
  });
  const configuredRules = readConfiguredRules(yaml, diagnostics);
  const resource: DesiredStyleRules = {
    kind: 'style_rules',
    name: input.name,
    language,
    preventDestroy: input.prevent_destroy,
    ...(input.renamed_from === undefined ? {} : { renamedFrom: input.renamed_from }),
    configuredRules,
    customInstructions,
    origin: ref(yaml, ['name'], 'key'),
  };
  return { resource, diagnostics };
}

/** Variants the service lists among its target languages (spec, "Languages"), lowercased. */
const LISTED_VARIANTS = ['en-gb', 'en-us', 'es-419', 'pt-br', 'pt-pt', 'zh-hans', 'zh-hant'] as const;
const INSTRUCTION_LANGUAGES: ReadonlySet<string> = new Set([...GLOSSARY_LANGUAGES, ...LISTED_VARIANTS]);

function checkInstructionLanguage(yaml: YamlFile, raw: string, path: readonly PropertyKey[], diagnostics: Diagnostic[]): void {
  if (INSTRUCTION_LANGUAGES.has(raw.trim().toLowerCase())) return;
  const at = ref(yaml, path);
  diagnostics.push(
    error(
      'style/instruction-language',
      `unknown custom instruction \`source_language\` ${show(raw)}: expected a code of the glossary language list (${languageList('glossary')}) or a variant from the service's target language list (${LISTED_VARIANTS.join(' ')})`,
      yaml.file,
      at.line,
      at.column,
    ),
  );
}

/**
 * `configured_rules` rebuilt from the parsed YAML into prototype-less objects: a category or rule
 * named `__proto__` or `constructor` is kept as an own key (a plain object would swallow
 * `__proto__` as its prototype). The shape was checked by the schema; the service also refuses an
 * empty category, a blank rule name and a blank option.
 */
function readConfiguredRules(yaml: YamlFile, diagnostics: Diagnostic[]): ConfiguredRules {
  const rules = Object.create(null) as Record<string, Record<string, string>>;
  const raw = yaml.value['configured_rules'];
  if (raw === null || typeof raw !== 'object') return rules;
  for (const [category, value] of Object.entries(raw as Record<string, unknown>)) {
    const at = ref(yaml, ['configured_rules', category], 'key');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      diagnostics.push(error('style/configured-rules-shape', `configured rules category ${show(category)} must be a mapping of rule → option (text)`, yaml.file, at.line, at.column));
      continue;
    }
    const options = Object.create(null) as Record<string, string>;
    const entries = Object.entries(value as Record<string, unknown>);
    if (category.trim() === '' || entries.length === 0) {
      const why = category.trim() === '' ? 'has an empty name' : 'has no rules';
      diagnostics.push(error('style/empty-category', `configured rules category ${show(category)} ${why}; the service refuses it`, yaml.file, at.line, at.column));
    }
    for (const [rule, option] of entries) {
      if (rule.trim() === '') {
        const ruleAt = ref(yaml, ['configured_rules', category, rule], 'key');
        diagnostics.push(error('style/blank-text', `configured rule name ${show(rule)} in category ${show(category)} is empty or only whitespace; the service refuses it`, yaml.file, ruleAt.line, ruleAt.column));
      }
      const optionAt = ref(yaml, ['configured_rules', category, rule]);
      if (typeof option !== 'string') {
        diagnostics.push(error('style/configured-rules-shape', `configured rule ${show(rule)} must map to an option (text)`, yaml.file, optionAt.line, optionAt.column));
        continue;
      }
      if (option.trim() === '') {
        diagnostics.push(error('style/blank-option', `configured rule ${show(rule)} has an empty option; the service requires one (e.g. \`use_curly_apostrophes\`)`, yaml.file, optionAt.line, optionAt.column));
      }
      options[rule] = option;
    }
    rules[category] = options;
  }
  return rules;
}

/** Validates one resource file (pure): dispatches on `kind`, checks the schema and the per-resource rules. */
export function validateResource(yaml: YamlFile): { resource?: ResourceDraft; diagnostics: Diagnostic[] } {
  const kind = yaml.value['kind'];
  if (kind === undefined) {
    const { line, column } = positionAt(yaml, []);
    return { diagnostics: [error('resource/missing-kind', 'missing `kind`: expected `kind: glossary` or `kind: style_rules`', yaml.file, line, column)] };
  }
  if (kind === 'glossary') return validateGlossary(yaml);
  if (kind === 'style_rules') return validateStyleRules(yaml);
  const { line, column } = positionAt(yaml, ['kind']);
  const suggestion = typeof kind === 'string' ? didYouMeanSuffix(kind, RESOURCE_KINDS) : '';
  // A key pasted into the wrong field must not be echoed (judged as if the field were named `key`).
  const shown = typeof kind !== 'string' ? describeType(kind) : looksLikeSecret(kind, 'key') ? '(a value that looks like a key, not shown)' : show(kind);
  return {
    diagnostics: [error('resource/unknown-kind', `unknown \`kind\` ${shown}: expected "glossary" or "style_rules"${suggestion}`, yaml.file, line, column)],
  };
}
