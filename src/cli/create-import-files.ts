import { stringify } from 'yaml';
import type { DesiredState } from '../model/desired.js';
import type { DictionaryKey, DictionaryToRead, LiveGlossary, LiveState, LiveStyleRules } from '../model/live.js';
import type { Entries, LanguagePair } from '../model/entries.js';
import { pairSlug, slugify } from '../lib/file-name.js';
import { dictionaryKey } from '../lib/canonical.js';
import { toEntryList } from '../lib/entries-tsv.js';
import { unwritableEntries, unwritableInstruction, unwritableName } from '../pull/index.js';
import { toConceptTable, type ConceptTable } from '../formats/common/concept-table.js';
import type { EntriesFormat, FileContent, ImportWriter } from '../formats/entries-format.js';
import { IMPORT_FORMATS } from '../formats/registry.js';

/** How the entries of an imported glossary are written: the name of a format import writes (IMPORT_FORMATS; the first is the default). */
export type ImportFormat = string;


export interface ImportFile {
  /** Relative to the output folder. */
  readonly name: string;
  /** Text, or what makes the file's bytes when it is written (a workbook). */
  readonly content: FileContent;
  /** A per-dictionary entries file: its dictionary's pair. */
  readonly pair?: LanguagePair;
}

export interface ImportSelection {
  readonly glossaries: readonly LiveGlossary[];
  readonly styleRules: readonly LiveStyleRules[];
  /** Live names seen more than once: only the oldest of each is imported. */
  readonly duplicates: readonly string[];
}

function oldestFirst<T extends { readonly creationTime: string; readonly id: string }>(a: T, b: T): number {
  return a.creationTime < b.creationTime ? -1 : a.creationTime > b.creationTime ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The live resources the repository does not declare (by name or `renamed_from`), one per name. */
export function selectUndeclared(desired: DesiredState, live: Pick<LiveState, 'glossaries' | 'styleRules'>): ImportSelection {
  const declared = (resources: readonly { readonly name: string; readonly renamedFrom?: string }[]): Set<string> =>
    new Set(resources.flatMap((r) => (r.renamedFrom === undefined ? [r.name] : [r.name, r.renamedFrom])));
  const duplicates: string[] = [];
  const pick = <T extends { readonly name: string; readonly creationTime: string; readonly id: string }>(items: readonly T[], names: Set<string>): T[] => {
    const seen = new Set<string>();
    const chosen: T[] = [];
    for (const item of [...items].sort(oldestFirst)) {
      if (names.has(item.name)) continue;
      if (seen.has(item.name)) {
        duplicates.push(item.name);
        continue;
      }
      seen.add(item.name);
      chosen.push(item);
    }
    return chosen;
  };
  return {
    glossaries: pick(live.glossaries, declared(desired.glossaries)),
    styleRules: pick(live.styleRules, declared(desired.styleRules)),
    duplicates: [...new Set(duplicates)].sort(),
  };
}

/**
 * What the selected live resources hold that the repository's files cannot (see
 * pull/find-unwritable.ts): names, entries, instructions, each named on the service. Import writes
 * nothing when there is any.
 */
export function unwritableSelection(selection: ImportSelection, entries: ReadonlyMap<DictionaryKey, Entries>): string[] {
  const problems: string[] = [];
  for (const g of selection.glossaries) {
    const resource = { kind: 'glossary' as const, name: g.name, id: g.id };
    problems.push(...unwritableName(resource));
    for (const d of g.dictionaries) problems.push(...unwritableEntries(resource, d, entries.get(dictionaryKey(g.id, d.sourceLang, d.targetLang)) ?? new Map<string, string>()));
  }
  for (const s of selection.styleRules) {
    const resource = { kind: 'style_rules' as const, name: s.name, id: s.id };
    problems.push(...unwritableName(resource));
    for (const i of s.customInstructions) problems.push(...unwritableInstruction(resource, i));
  }
  return problems;
}

export function dictionariesOfSelection(selection: ImportSelection): DictionaryToRead[] {
  return selection.glossaries.flatMap((g) =>
    g.dictionaries.map((d) => ({ glossaryId: g.id, api: g.api, sourceLang: d.sourceLang, targetLang: d.targetLang })),
  );
}

type Writing<K extends ImportWriter['kind']> = { readonly format: EntriesFormat; readonly writer: Extract<ImportWriter, { kind: K }> };

/** The import format of this name and how it writes (the first that writes a file per dictionary, when the name is none). */
function importFormat<K extends ImportWriter['kind']>(name: string | undefined, kind: K): Writing<K> | undefined {
  const format = IMPORT_FORMATS.find((f) => (name === undefined ? f.import?.kind === kind : f.name === name));
  const writer = format?.import;
  return format !== undefined && writer?.kind === kind ? { format, writer: writer as Extract<ImportWriter, { kind: K }> } : undefined;
}

/** Claims a file stem: `base`, else `base-2`, `base-3` …, whose files (`names(stem)`) are all free; they are taken from then on. */
type Claim = (base: string, names: (stem: string) => string[]) => string;

/** A glossary as one file of a multilingual format (`table`: its dictionaries as concepts), and its resource file. */
function glossaryFiles(g: LiveGlossary, table: ConceptTable, { format, writer }: Writing<'glossary'>, claim: Claim): ImportFile[] {
  const extension = format.extensions[0] as string;
  const stem = claim(slugify(g.name), (s) => [`${s}.yaml`, `${s}${extension}`]);
  const resource = { kind: 'glossary', name: g.name, api: g.api, entries_file: `${stem}${extension}`, languages: [table.source, ...table.targets] };
  return [
    { name: `${stem}.yaml`, content: stringify(resource, { flow: false }) },
    { name: `${stem}${extension}`, content: writer.create(g.name, table) },
  ];
}

/** A glossary as a file per dictionary, and its resource file. */
function dictionaryFiles(g: LiveGlossary, entries: ReadonlyMap<DictionaryKey, Entries>, { format, writer }: Writing<'dictionary'>, claim: Claim): ImportFile[] {
  const extension = format.extensions[0] as string;
  const pairs = g.dictionaries.map(pairSlug);
  const stem = claim(slugify(g.name), (s) => [`${s}.yaml`, ...pairs.map((p) => `${s}.${p}${extension}`)]);
  const resource = {
    kind: 'glossary',
    name: g.name,
    api: g.api,
    dictionaries: g.dictionaries.map((d) => ({
      source_lang: d.sourceLang,
      target_lang: d.targetLang,
      entries_file: `${stem}.${pairSlug(d)}${extension}`,
    })),
  };
  const files: ImportFile[] = [{ name: `${stem}.yaml`, content: stringify(resource) }];
  for (const d of g.dictionaries) {
    const dictionary = entries.get(dictionaryKey(g.id, d.sourceLang, d.targetLang)) ?? new Map<string, string>();
    files.push({ name: `${stem}.${pairSlug(d)}${extension}`, content: writer.create(new Map(toEntryList(dictionary)), d), pair: d });
  }
  return files;
}

/**
 * The resource and entry files for the selected live resources. `taken` holds the file names that
 * already exist in the output folder: nothing is overwritten, a clash gets a `-2`, `-3` suffix.
 */
export function createImportFiles(
  selection: ImportSelection,
  entries: ReadonlyMap<DictionaryKey, Entries>,
  taken: ReadonlySet<string>,
  format: ImportFormat = IMPORT_FORMATS[0]?.name ?? 'tsv',
  /** Told of each glossary written a file per dictionary although a multilingual format was asked: its dictionaries have several source languages. */
  onTsvInstead: (name: string) => void = () => undefined,
): ImportFile[] {
  const used = new Set([...taken].map((n) => n.toLowerCase()));
  const files: ImportFile[] = [];
  const claim: Claim = (base, names) => {
    for (let i = 1; ; i += 1) {
      const stem = i === 1 ? base : `${base}-${i}`;
      if (names(stem).every((n) => !used.has(n.toLowerCase()))) {
        for (const n of names(stem)) used.add(n.toLowerCase());
        return stem;
      }
    }
  };
  const multilingual = importFormat(format, 'glossary');
  const perDictionary = importFormat(multilingual === undefined ? format : undefined, 'dictionary');
  if (perDictionary === undefined) throw new Error(`import does not write ${format} files`);
  for (const g of selection.glossaries) {
    const dictionaries = g.dictionaries.map((d) => ({ ...d, entries: entries.get(dictionaryKey(g.id, d.sourceLang, d.targetLang)) ?? new Map<string, string>() }));
    const table = multilingual === undefined ? undefined : toConceptTable(dictionaries);
    if (multilingual !== undefined && table !== undefined) files.push(...glossaryFiles(g, table, multilingual, claim));
    else {
      if (multilingual !== undefined) onTsvInstead(g.name);
      files.push(...dictionaryFiles(g, entries, perDictionary, claim));
    }
  }
  for (const s of selection.styleRules) {
    const stem = claim(slugify(s.name), (x) => [`${x}.yaml`]);
    const resource: Record<string, unknown> = { kind: 'style_rules', name: s.name, language: s.language };
    if (Object.keys(s.configuredRules).length > 0) resource['configured_rules'] = s.configuredRules;
    if (s.customInstructions.length > 0) {
      resource['custom_instructions'] = s.customInstructions.map((i) =>
        i.sourceLanguage === undefined ? { label: i.label, prompt: i.prompt } : { label: i.label, prompt: i.prompt, source_language: i.sourceLanguage },
      );
    }
    files.push({ name: `${stem}.yaml`, content: stringify(resource) });
  }
  return files;
}
