import path from 'node:path';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { LanguagePair } from '../model/entries.js';
import { CSV_FORMAT } from './csv/csv-format.js';
import type { CsvDelimiter, DialectSetting, EntriesFormat, EntriesWriter, ReadEntriesResult } from './entries-format.js';
import { TBX_FORMAT } from './tbx/tbx-format.js';
import { TSV_FORMAT } from './tsv/tsv-format.js';
import { XLSX_FORMAT } from './xlsx/xlsx-format.js';

/**
 * Every entries format termsync reads or writes, in the order they are named to users. The loader
 * (config/), `pull`, `import` and the file watcher find formats here and nowhere else: a new format
 * is a folder of src/formats/ and one line of this list.
 */
export const ENTRIES_FORMATS: readonly EntriesFormat[] = [TSV_FORMAT, CSV_FORMAT, TBX_FORMAT, XLSX_FORMAT];

/** The lowercase extension of a path, with the dot (`''` for none, and for a name that only starts with a dot). */
export function extensionOf(file: string): string {
  return path.extname(file).toLowerCase();
}

/** The format of an entries file, by its extension; undefined when no format has it. */
export function formatOfFile(file: string, formats: readonly EntriesFormat[] = ENTRIES_FORMATS): EntriesFormat | undefined {
  const extension = extensionOf(file);
  return formats.find((f) => f.extensions.includes(extension));
}

/** The format of this name (`tsv`, `xlsx`…), or undefined. */
export function formatNamed(name: string): EntriesFormat | undefined {
  return ENTRIES_FORMATS.find((f) => f.name === name);
}

/** Every extension an entries file may have, with the dot, in the order of the formats. */
export const ENTRIES_EXTENSIONS: readonly string[] = ENTRIES_FORMATS.flatMap((f) => f.extensions);

/** `a, b or c`. */
function listOr(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) as string}`;
}

/** Why an `entries_file` of this extension is not read: the extensions there are, and what to do with a known kind of other file. */
export function unknownExtensionMessage(shown: string, extension: string): string {
  const misnamed = ENTRIES_FORMATS.find((f) => f.misnamed?.extensions.includes(extension) === true)?.misnamed;
  const hint = misnamed === undefined ? '' : ` (${misnamed.hint})`;
  return `\`entries_file\` ${shown} must end in ${listOr(ENTRIES_EXTENSIONS)} (the format comes from the extension)${hint}`;
}

/**
 * The formats a dialect setting applies to (`.csv`, `.csv and .tsv`), with why it does not apply to
 * the others when they say so (`(a TBX file declares its own; a workbook has none)`): for the
 * warning about a setting the file's format does not take.
 */
export function dialectFormats(setting: DialectSetting): string {
  const extensions = ENTRIES_FORMATS.filter((f) => f.dialect.includes(setting))
    .flatMap((f) => f.extensions)
    .sort();
  const notes = ENTRIES_FORMATS.flatMap((f) => f.dialectNote?.[setting] ?? []);
  return `${extensions.join(' and ')}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}`;
}

/** The writers pull knows, by format. */
export const ENTRIES_WRITERS: readonly EntriesWriter[] = ENTRIES_FORMATS.flatMap((f) => (f.writer === undefined ? [] : [f.writer]));

/** The writer for a file, by its extension; undefined when pull cannot write that format. */
export function writerFor(file: string, writers: readonly EntriesWriter[] = ENTRIES_WRITERS): EntriesWriter | undefined {
  const extension = extensionOf(file);
  return writers.find((w) => w.extensions.includes(extension));
}

/** The formats `import --format` offers, the first being the default (and what a glossary falls back to when one file cannot hold it). */
export const IMPORT_FORMATS: readonly EntriesFormat[] = ENTRIES_FORMATS.filter((f) => f.import !== undefined);

/**
 * Parses the text of an entries file of one dictionary (TSV or CSV, as the spec defines them) into
 * canonical entries, with a located diagnostic for every problem and every canonicalisation change.
 * Pure: `file` only labels the diagnostics. `delimiter`: a CSV file's declared `delimiter`.
 */
export function parseEntries(
  text: string,
  format: string,
  pair: LanguagePair,
  file: string,
  /** Adds further diagnostics of the same file (its credential scan) before the list is capped. */
  also?: (diagnostics: Diagnostic[]) => void,
  delimiter?: CsvDelimiter,
): ReadEntriesResult {
  const read = formatNamed(format)?.readEntries;
  if (read === undefined) throw new Error(`${format} files are not read as the entries of one dictionary`);
  return read(text, pair, file, { terms: 'preferred', ...(delimiter === undefined ? {} : { delimiter }) }, also);
}
