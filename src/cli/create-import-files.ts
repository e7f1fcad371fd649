import { stringify } from 'yaml';
import { formatTbx, toConceptTable, toEntryList, toSheetRows } from '../config/index.js';
import type { DesiredState } from '../model/desired.js';
import type { DictionaryKey, DictionaryToRead, LiveGlossary, LiveState, LiveStyleRules } from '../model/live.js';
import type { Entries, LanguagePair } from '../model/entries.js';
import { pairSlug, slugify } from '../lib/file-name.js';
import { dictionaryKey } from '../lib/canonical.js';
import { createTsv, unwritableEntries, unwritableInstruction, unwritableName } from '../pull/index.js';

/** How the entries of an imported glossary are written: TSV per dictionary, or one TBX file or workbook. */
export type ImportFormat = 'tsv' | 'tbx' | 'xlsx';

/** A workbook to write: one sheet of rows (a null cell stays empty). */
export interface SheetContent {
  readonly sheet: string;
  readonly rows: readonly (readonly (string | null)[])[];
}

export interface ImportFile {
  /** Relative to the output folder. */
  readonly name: string;
  /** Text, or a workbook the caller renders (see create-workbook.ts). */
  readonly content: string | SheetContent;
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

/**
 * The resource and entry files for the selected live resources. `taken` holds the file names that
 * already exist in the output folder: nothing is overwritten, a clash gets a `-2`, `-3` suffix.
 */
export function createImportFiles(
  selection: ImportSelection,
  entries: ReadonlyMap<DictionaryKey, Entries>,
  taken: ReadonlySet<string>,
  format: ImportFormat = 'tsv',
  /** Told of each glossary written as TSV although another format was asked: its dictionaries have several source languages. */
  onTsvInstead: (name: string) => void = () => undefined,
): ImportFile[] {
  const used = new Set([...taken].map((n) => n.toLowerCase()));
  const files: ImportFile[] = [];
  const claim = (base: string, names: (stem: string) => string[]): string => {
    for (let i = 1; ; i += 1) {
      const stem = i === 1 ? base : `${base}-${i}`;
      if (names(stem).every((n) => !used.has(n.toLowerCase()))) {
        for (const n of names(stem)) used.add(n.toLowerCase());
        return stem;
      }
    }
  };
  for (const g of selection.glossaries) {
    const dictionaries = g.dictionaries.map((d) => ({ ...d, entries: entries.get(dictionaryKey(g.id, d.sourceLang, d.targetLang)) ?? new Map<string, string>() }));
    const table = format === 'tsv' ? undefined : toConceptTable(dictionaries);
    if (format !== 'tsv' && table === undefined) onTsvInstead(g.name);
    if (table !== undefined) {
      const stem = claim(slugify(g.name), (s) => [`${s}.yaml`, `${s}.${format}`]);
      const resource = { kind: 'glossary', name: g.name, api: g.api, entries_file: `${stem}.${format}`, languages: [table.source, ...table.targets] };
      files.push({ name: `${stem}.yaml`, content: stringify(resource, { flow: false }) });
      files.push({ name: `${stem}.${format}`, content: format === 'tbx' ? formatTbx(g.name, table) : { sheet: 'Terms', rows: toSheetRows(table) } });
      continue;
    }
    const pairs = g.dictionaries.map(pairSlug);
    const stem = claim(slugify(g.name), (s) => [`${s}.yaml`, ...pairs.map((p) => `${s}.${p}.tsv`)]);
    const resource = {
      kind: 'glossary',
      name: g.name,
      api: g.api,
      dictionaries: g.dictionaries.map((d) => ({
        source_lang: d.sourceLang,
        target_lang: d.targetLang,
        entries_file: `${stem}.${pairSlug(d)}.tsv`,
      })),
    };
    files.push({ name: `${stem}.yaml`, content: stringify(resource) });
    for (const d of g.dictionaries) {
      const dictionary = entries.get(dictionaryKey(g.id, d.sourceLang, d.targetLang)) ?? new Map<string, string>();
      // pull's TSV writer: a file whose first entry reads as a header gets a header line first.
      files.push({ name: `${stem}.${pairSlug(d)}.tsv`, content: createTsv(new Map(toEntryList(dictionary)), d), pair: d });
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
