import { isMap, isNode, isScalar } from 'yaml';
import { appendDiagnostics, type Diagnostic } from '../lib/diagnostics.js';
import type { DesiredInstruction, DesiredStyleRules, GlossaryApi, GlossaryTest, SourceRef } from '../model/desired.js';
import type { TermChoice } from '../model/entries.js';
import type { PackedEntries } from '../model/packed-entries.js';
import { EntryCollector } from '../formats/common/collect-entries.js';
import type { TextEncodingName } from '../formats/common/text-encoding.js';
import type { EntriesFileOptions } from '../formats/entries-format.js';
import { positionAt, positionOfNode, type YamlFile } from './parse-yaml.js';
import { glossarySchema, MAX_INSTRUCTIONS, styleRulesSchema, type DelimiterSetting, type GlossaryInput } from './schemas.js';
import { schemaDiagnostics, type RuleForIssue } from './validate-schema.js';
import {
  COUNT_RULES,
  DICTIONARY_RULES,
  DUPLICATE_LANGUAGE,
  DUPLICATE_PAIR,
  EMPTY_DICTIONARY,
  GLOSSARY_RULES,
  PAIRS,
  parsePairs,
  SOURCE_RULES,
  UNUSED_OPTION,
} from './rules/glossary-rules.js';
import { checkLang } from './rules/language-rules.js';
import { CONTROL_CHARACTER, KIND_RULES } from './rules/resource-rules.js';
import { applyRules, diagnosticOf, ref } from './rules/rule.js';
import { NOT_A_STRING } from './rules/rule-table.js';
import { readConfiguredRules, STYLE_RULES } from './rules/style-rules.js';
import { validateTests } from './rules/test-rules.js';

/*
 * A resource file's checks, pure: the schema (schemas.ts, its issues mapped to rule ids below),
 * then the named rules of rules/ on each part of the resource (the glossary, its entries source,
 * each dictionary, each test; a style rule list), while the draft is built from the checked values.
 */

export { RESOURCE_KINDS } from './rules/resource-rules.js';

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
      diagnostics.push(diagnosticOf(NOT_A_STRING, { at: { file: yaml.file, ...at }, message: 'an inline entry\'s source phrase must be a text, not a list or mapping' }));
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

/** The glossary-level `entries_file` with its `languages` and `pairs`, and the dictionaries it feeds. */
function glossarySource(yaml: YamlFile, input: GlossaryInput, diagnostics: Diagnostic[]): { source: GlossarySource; dictionaries: DictionaryDraft[]; pairsAt: SourceRef } | undefined {
  if (applyRules(SOURCE_RULES, { yaml, input }, diagnostics) > 0) return undefined;
  const declared = (input.languages ?? []).map((raw, i) => {
    const at = ref(yaml, ['languages', i]);
    return { code: checkLang(raw, 'glossary', at, diagnostics), at };
  });
  applyRules([DUPLICATE_LANGUAGE], { languages: declared }, diagnostics);
  const languages = [...new Set(declared.map((l) => l.code))];
  applyRules([PAIRS], { yaml, input, languages }, diagnostics);
  const dictionaries = parsePairs(yaml, input, languages).pairs.map((p): DictionaryDraft => ({ ...p, fromSource: true }));
  const pairsAt = input.pairs === undefined ? ref(yaml, ['languages'], 'key') : ref(yaml, ['pairs'], 'key');
  applyRules([UNUSED_OPTION], { yaml, path: [], entriesFile: input.entries_file, settings: input }, diagnostics);
  return { source: { entriesFile: input.entries_file as string, at: ref(yaml, ['entries_file']), languages, options: fileOptions(input) }, dictionaries, pairsAt };
}

/** A declared dictionary: its languages, its entries (inline, or a file read later) and the rules of each. */
function declaredDictionary(yaml: YamlFile, d: NonNullable<GlossaryInput['dictionaries']>[number], i: number, diagnostics: Diagnostic[]): DictionaryDraft {
  const origin = ref(yaml, ['dictionaries', i]);
  const sourceLang = checkLang(d.source_lang, 'glossary', ref(yaml, ['dictionaries', i, 'source_lang']), diagnostics);
  const targetLang = checkLang(d.target_lang, 'glossary', ref(yaml, ['dictionaries', i, 'target_lang']), diagnostics);
  applyRules(DICTIONARY_RULES, { yaml, index: i, sourceLang, targetLang, hasEntries: d.entries !== undefined, hasFile: d.entries_file !== undefined }, diagnostics);
  applyRules([UNUSED_OPTION], { yaml, path: ['dictionaries', i], entriesFile: d.entries_file, settings: d }, diagnostics);
  const base = { sourceLang, targetLang, origin };
  if (d.entries_file !== undefined) return { ...base, entriesFile: d.entries_file, entriesFileAt: ref(yaml, ['dictionaries', i, 'entries_file']), options: fileOptions(d) };
  const inline: Diagnostic[] = [];
  const entries = inlineEntries(yaml, i, inline);
  appendDiagnostics(diagnostics, inline);
  if (d.entries !== undefined) applyRules([EMPTY_DICTIONARY], { entries, diagnostics: inline, at: ref(yaml, ['dictionaries', i, 'entries']) }, diagnostics);
  return { ...base, entries };
}

function validateGlossary(yaml: YamlFile): { resource?: GlossaryDraft; diagnostics: Diagnostic[] } {
  const parsed = glossarySchema.safeParse(yaml.value, { reportInput: true });
  if (!parsed.success) return { diagnostics: schemaDiagnostics(yaml, glossarySchema, parsed.error.issues, withTaggedValues(glossaryRules)) };
  const input = parsed.data;
  const diagnostics: Diagnostic[] = [];
  applyRules(GLOSSARY_RULES, { yaml, input }, diagnostics);
  for (const [value, path, what] of [[input.name, ['name'], 'glossary `name`'], [input.renamed_from, ['renamed_from'], '`renamed_from`']] as const) {
    applyRules([CONTROL_CHARACTER], { yaml, value, path, what }, diagnostics);
  }
  const source = input.entries_file === undefined ? undefined : glossarySource(yaml, input, diagnostics);
  const declared = input.dictionaries ?? [];
  const derived = source?.dictionaries ?? [];
  const at = source === undefined ? ref(yaml, ['dictionaries'], 'key') : source.pairsAt;
  applyRules(COUNT_RULES, { yaml, input, count: declared.length + derived.length, at }, diagnostics);
  const dictionaries = [...declared.map((d, i) => declaredDictionary(yaml, d, i, diagnostics)), ...derived];
  applyRules([DUPLICATE_PAIR], { dictionaries: dictionaries }, diagnostics);
  const tests = validateTests(yaml, input.tests, dictionaries, diagnostics);
  const resource: GlossaryDraft = {
    kind: 'glossary',
    name: input.name,
    api: input.api,
    preventDestroy: input.prevent_destroy,
    ...(input.renamed_from === undefined ? {} : { renamedFrom: input.renamed_from }),
    dictionaries,
    ...(source === undefined ? {} : { source: source.source }),
    ...(tests.length === 0 ? {} : { tests }),
    origin: ref(yaml, ['name'], 'key'),
  };
  return { resource, diagnostics };
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
  applyRules(STYLE_RULES, { yaml, input }, diagnostics);
  const customInstructions = input.custom_instructions.map(
    (instruction): DesiredInstruction => ({
      label: instruction.label,
      prompt: instruction.prompt,
      ...(instruction.source_language === undefined ? {} : { sourceLanguage: instruction.source_language.trim().toLowerCase() }),
    }),
  );
  const resource: DesiredStyleRules = {
    kind: 'style_rules',
    name: input.name,
    language,
    preventDestroy: input.prevent_destroy,
    ...(input.renamed_from === undefined ? {} : { renamedFrom: input.renamed_from }),
    configuredRules: readConfiguredRules(yaml),
    customInstructions,
    origin: ref(yaml, ['name'], 'key'),
  };
  return { resource, diagnostics };
}

/** Validates one resource file (pure): dispatches on `kind`, checks the schema and the per-resource rules. */
export function validateResource(yaml: YamlFile): { resource?: ResourceDraft; diagnostics: Diagnostic[] } {
  const kind = yaml.value['kind'];
  if (kind === 'glossary') return validateGlossary(yaml);
  if (kind === 'style_rules') return validateStyleRules(yaml);
  const diagnostics: Diagnostic[] = [];
  applyRules(KIND_RULES, yaml, diagnostics);
  return { diagnostics };
}
