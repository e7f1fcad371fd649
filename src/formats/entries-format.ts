import type { Diagnostic } from '../lib/diagnostics.js';
import type { Entries, LanguagePair, TermChoice } from '../model/entries.js';
import type { PackedEntries } from '../model/packed-entries.js';
import type { ConceptCollector } from './common/collect-concepts.js';
import type { ConceptTable } from './common/concept-table.js';
import type { TextEncodingName } from './common/text-encoding.js';

/*
 * What an entries format is, for everything that reads or writes one: the loader (config/), pull,
 * import and the watcher find a format in the registry (registry.ts) by the file's extension and use
 * only what this interface says. Each format is one folder of src/formats/ (tsv, csv, tbx, xlsx;
 * multilingual reads CSV and TSV with language columns) whose `*-format.ts` fills it in.
 */

/** What separates the fields of a CSV file: a comma, or what Excel writes in many locales (`;`), or a tab. */
export type CsvDelimiter = ',' | ';' | '\t';

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

/** The service's entries of one dictionary an entries file feeds. */
export interface DictionaryContent {
  readonly pair: LanguagePair;
  readonly live: Entries;
  /** A CSV file's declared `delimiter` (default a comma). */
  readonly delimiter?: CsvDelimiter;
}

/**
 * How `pull` writes one entries format back: a pluggable writer per file extension. A writer gets
 * the file's bytes and every dictionary the file feeds (one for TSV and CSV; a multilingual file
 * would feed several), and returns the new bytes, changing as little as the format allows.
 */
export interface EntriesWriter {
  /** Lowercase file extensions, with the dot. */
  readonly extensions: readonly string[];
  rewrite(content: Uint8Array, dictionaries: readonly DictionaryContent[]): Uint8Array | Promise<Uint8Array>;
  /** A new file for dictionaries that only the service has. */
  create(dictionaries: readonly DictionaryContent[]): Uint8Array | Promise<Uint8Array>;
}

/** A rule a reader checks (its diagnostics' code and severity), for the loader's table of every rule. */
export interface ReaderRule {
  readonly id: string;
  readonly severity: 'error' | 'warning';
  /** One line: what the rule refuses or points out. */
  readonly summary: string;
}

/** Settings next to `entries_file` that only some formats take (the others warn that they are unused). */
export type DialectSetting = 'delimiter' | 'encoding';

/** The entries of one dictionary read from a text file, with every problem located. */
export interface ReadEntriesResult {
  readonly entries: PackedEntries;
  readonly diagnostics: Diagnostic[];
}

/**
 * A multilingual file read into concepts (one term per language), handed to the collector the
 * loader made. `ok` is false when the file was refused as a whole (nothing of it may be used).
 */
export interface ConceptsReader {
  read(
    input: { readonly bytes: Buffer; readonly text: string | undefined },
    file: string,
    collector: ConceptCollector,
    languages: readonly string[],
    options: EntriesFileOptions,
    diagnostics: Diagnostic[],
    /** Awaited between pieces of a long parse (the loader's signal is heard); may throw Interrupted. */
    pause?: () => Promise<void>,
  ): Promise<{ readonly ok: boolean; readonly locate?: (diagnostics: readonly Diagnostic[]) => Diagnostic[] }>;
}

/** A file's content as a format writes it: text, or bytes made when the file is written (a workbook). */
export type FileContent = string | { bytes(): Promise<Uint8Array> };

/** How `import` writes a glossary in a format: a file per dictionary, or one file for the whole glossary. */
export type ImportWriter =
  | { readonly kind: 'dictionary'; readonly noun: string; create(entries: ReadonlyMap<string, string>, pair: LanguagePair): string }
  | { readonly kind: 'glossary'; readonly noun: string; create(title: string, table: ConceptTable): FileContent };

/** One entries format: found by its extension, read by the loader, written by pull and import. */
export interface EntriesFormat {
  /** The name settings and options use (`import --format`). */
  readonly name: string;
  /** Lowercase, with the dot; the first is the one files are written with. */
  readonly extensions: readonly string[];
  /** Extensions of files of another kind that users name an entries file with, and what to do instead. */
  readonly misnamed?: { readonly extensions: readonly string[]; readonly hint: string };
  /**
   * How the loader hands a file to the readers: `text`, decoded (UTF-8, checked, or the declared
   * `encoding`), or `bytes`, as they are (the format declares its own encoding, or is binary).
   */
  readonly content: 'text' | 'bytes';
  /** Larger files are refused before they are read (`tooLarge` says why, naming the file as `shown`). */
  readonly maxBytes: number;
  readonly tooLarge: (shown: string, size: number) => string;
  /** The dialect settings this format takes; `dialectNote` says why one does not apply to it. */
  readonly dialect: readonly DialectSetting[];
  readonly dialectNote?: Partial<Record<DialectSetting, string>>;
  /** The entries of one dictionary from a text file (synchronous: the loader's batch is read before its first await). */
  readonly readEntries?: (text: string, pair: LanguagePair, file: string, options: EntriesFileOptions, also?: (diagnostics: Diagnostic[]) => void) => ReadEntriesResult;
  /** Concepts of a multilingual file (a glossary-level `entries_file`, and every TBX file and workbook). */
  readonly concepts: {
    /** What a line of the file is in messages (a line of text, a row of a sheet), and what holds a concept. */
    readonly unit: 'line' | 'row';
    readonly item: 'concept' | 'row';
    /** The reader, loaded only for a repository that has such a file (with its XML, zip or CSV library). */
    load(): Promise<ConceptsReader>;
  };
  /** The rules this format's readers check besides the common ones (formats/common/reader-rules.ts). */
  readonly rules: readonly ReaderRule[];
  /** How pull writes a file of this format back (absent: pull leaves such files alone). */
  readonly writer?: EntriesWriter;
  /** How import writes a glossary in this format (absent: not an `import --format`). */
  readonly import?: ImportWriter;
}
