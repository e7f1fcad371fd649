import path from 'node:path';
import { pairKey } from '../lib/canonical.js';
import { pairSlug } from '../lib/file-name.js';
import type { Drift, DriftNote, GlossaryDrift } from '../model/drift.js';
import type { Entries, LanguagePair } from '../model/entries.js';
import type { DictionaryContent, EntriesWriter } from '../formats/entries-format.js';
import { ENTRIES_WRITERS, writerFor } from '../formats/registry.js';
import { unwritableEntries, unwritableInstruction } from './find-unwritable.js';
import type { GlossaryYamlEdit, ResourceYamlEdit } from './rewrite-resource-yaml.js';

/** One file pull writes (repository-relative paths). */
export type FileEdit =
  /** An existing entries file rewritten to hold the service's entries of the dictionaries it feeds. */
  | { readonly kind: 'entries'; readonly file: string; readonly writer: EntriesWriter; readonly dictionaries: readonly DictionaryContent[] }
  /** A new entries file for a dictionary only the service has. */
  | { readonly kind: 'new_entries'; readonly file: string; readonly writer: EntriesWriter; readonly dictionaries: readonly DictionaryContent[] }
  /** A resource file edited through the YAML document API. */
  | { readonly kind: 'resource'; readonly file: string; readonly edit: ResourceYamlEdit };

export interface FileEdits {
  readonly edits: readonly FileEdit[];
  /** Differences pull leaves alone, and why. */
  readonly notes: readonly DriftNote[];
  /**
   * What the service holds that these edits would write but the files cannot hold (see
   * find-unwritable.ts), each located on the service: when any, pull must write nothing.
   */
  readonly unwritable: readonly string[];
}

const PAIR_SUFFIX = /\.[a-z]{2,3}-[a-z]{2,3}$/i;

/**
 * Where a dictionary only the service has goes: next to the glossary's first entries file, named
 * like it with the new pair (`storefront-ui.en-de.tsv` → `storefront-ui.en-it.tsv`), never over a
 * file that exists. Undefined when the glossary keeps its entries inline.
 */
function newEntriesFile(glossary: GlossaryDrift, pair: LanguagePair, isTaken: (file: string) => boolean, writers: readonly EntriesWriter[]): string | undefined {
  const sibling = glossary.declared.dictionaries.find((d) => d.entriesFile !== undefined && writerFor(d.entriesFile, writers) !== undefined)?.entriesFile;
  if (sibling === undefined) return undefined;
  const extension = path.posix.extname(sibling);
  const stem = path.posix.basename(sibling, extension).replace(PAIR_SUFFIX, '');
  const base = path.posix.join(path.posix.dirname(sibling), `${stem}.${pairSlug(pair)}`);
  for (let n = 1; ; n++) {
    const candidate = `${base}${n === 1 ? '' : `-${n}`}${extension}`;
    if (!isTaken(candidate)) return candidate;
  }
}

function glossaryEdits(glossary: GlossaryDrift, isTaken: (file: string) => boolean, writers: readonly EntriesWriter[], notes: DriftNote[], unwritable: string[]): FileEdit[] {
  const d = glossary.declared;
  const written = (pair: LanguagePair, live: Entries): void => {
    unwritable.push(...unwritableEntries({ kind: 'glossary', name: d.name, id: glossary.liveId }, pair, live));
  };
  const resourceFile = d.origin.file;
  const edits: FileEdit[] = [];
  const byFile = new Map<string, DictionaryContent[]>();
  const yaml: { inline: { pair: LanguagePair; live: Entries }[]; remove: LanguagePair[]; add: { pair: LanguagePair; entries?: Entries; entriesFile?: string }[] } = { inline: [], remove: [], add: [] };
  const note = (reason: string): void => {
    notes.push({ kind: 'glossary', name: d.name, file: resourceFile, reason });
  };
  const removals = glossary.dictionaries.filter((x) => x.action === 'remove').length;
  const sharedFile = d.dictionaries.find((x) => x.shared === true)?.entriesFile;
  const additions = glossary.dictionaries.filter((x) => x.action === 'add').length;
  for (const drift of glossary.dictionaries) {
    const pair = { sourceLang: drift.sourceLang, targetLang: drift.targetLang };
    // A glossary-level file (TBX, workbook, language columns) feeds every dictionary at once: no
    // writer rewrites one yet, and its pairs come from `languages`/`pairs`.
    if (sharedFile !== undefined && (drift.action !== 'update' || drift.declared?.shared === true)) {
      note(`pull cannot write the glossary-level entries file ${sharedFile} yet (${drift.action} ${pairKey(pair)}): left as it is`);
      continue;
    }
    if (drift.action === 'remove') {
      // The loader refuses a glossary without dictionaries, and the service keeps an emptied one.
      if (removals >= d.dictionaries.length && additions === 0) note(`the service's glossary has no dictionary ${pairKey(pair)} left, nor any other: kept in the repository`);
      else yaml.remove.push(pair);
      continue;
    }
    const live = drift.live ?? new Map<string, string>();
    if (drift.action === 'add') {
      written(pair, live);
      const file = newEntriesFile(glossary, pair, (f) => isTaken(f) || byFile.has(f) || edits.some((e) => e.file === f), writers);
      if (file === undefined) yaml.add.push({ pair, entries: live });
      else {
        edits.push({ kind: 'new_entries', file, writer: writerFor(file, writers) as EntriesWriter, dictionaries: [{ pair, live }] });
        yaml.add.push({ pair, entriesFile: path.posix.relative(path.posix.dirname(resourceFile), file) });
      }
      continue;
    }
    const file = drift.declared?.entriesFile;
    if (file === undefined) {
      written(pair, live);
      yaml.inline.push({ pair, live });
      continue;
    }
    if (writerFor(file, writers) === undefined) {
      note(`pull cannot write ${path.posix.extname(file) || 'extension-less'} entries files yet: ${file} (${pairKey(pair)}) left as it is`);
      continue;
    }
    const dialect = drift.declared?.textDialect;
    if (dialect?.encoding !== undefined && dialect.encoding !== 'utf-8') {
      note(`pull writes entries files in UTF-8 only: ${file} (\`encoding: ${dialect.encoding}\`, ${pairKey(pair)}) left as it is; save it as UTF-8 and remove \`encoding\` to pull into it`);
      continue;
    }
    written(pair, live);
    byFile.set(file, [...(byFile.get(file) ?? []), { pair, live, ...(dialect?.delimiter === undefined ? {} : { delimiter: dialect.delimiter }) }]);
  }
  for (const [file, dictionaries] of byFile) edits.push({ kind: 'entries', file, writer: writerFor(file, writers) as EntriesWriter, dictionaries });
  if (yaml.inline.length + yaml.remove.length + yaml.add.length > 0) {
    const edit: GlossaryYamlEdit = { kind: 'glossary', ...yaml };
    edits.push({ kind: 'resource', file: resourceFile, edit });
  }
  return edits;
}

/**
 * The files pull writes to adopt a drift (pure): entries files through the writer of their format,
 * resource files through the YAML document API. `isTaken` tells which paths exist already (a new
 * entries file never replaces one).
 */
export function planFileEdits(drift: Drift, isTaken: (file: string) => boolean, writers: readonly EntriesWriter[] = ENTRIES_WRITERS): FileEdits {
  const notes: DriftNote[] = [];
  const unwritable: string[] = [];
  const edits: FileEdit[] = drift.glossaries.flatMap((g) => glossaryEdits(g, isTaken, writers, notes, unwritable));
  for (const s of drift.styleRules) {
    for (const i of s.instructions) if (i.after !== undefined) unwritable.push(...unwritableInstruction({ kind: 'style_rules', name: s.declared.name, id: s.liveId }, i.after));
    edits.push({
      kind: 'resource',
      file: s.declared.origin.file,
      edit: { kind: 'style_rules', ...(s.configuredRules === undefined ? {} : { configuredRules: s.configuredRules.after }), instructions: s.instructions },
    });
  }
  return { edits, notes, unwritable };
}
