import type { Diagnostic } from '../lib/diagnostics.js';
import type { LanguagePair } from '../model/entries.js';
import type { SourceRef } from '../model/desired.js';
import { PackedEntries } from '../model/packed-entries.js';
import { ConceptCollector } from './collect-concepts.js';
import { detectSecretsInText } from './detect-secrets.js';
import { error } from './diagnostic.js';
import { parseEntries, type EntriesFormat } from './parse-entries.js';
import type { withCells as WithCells } from './read-workbook.js';
import { BatchArena, decodeUtf8Files, readEntriesFile, type EntriesFileFormat } from './read-files.js';
import type { EntriesFileOptions } from './validate-resource.js';

/** One entries file to read and parse. */
export interface EntriesJob {
  readonly root: string;
  readonly rootReal: string;
  readonly resourceFile: string;
  readonly declared: string;
  readonly at: SourceRef;
  /** The dictionaries the file feeds: one for a dictionary's own file, every derived one for a glossary-level file. */
  readonly pairs: readonly LanguagePair[];
  /** A glossary-level file (outcome in `dictionaries`): always read as one concept per row or entry. */
  readonly glossaryLevel: boolean;
  /** The languages a concept should have a term in (the glossary's `languages`, or the dictionary's pair). */
  readonly languages: readonly string[];
  readonly options: EntriesFileOptions;
}

export interface EntriesOutcome {
  readonly diagnostics: Diagnostic[];
  /** Repository-relative path, when the file resolved inside the repository. */
  readonly file?: string;
  /** Present when the file was read (possibly empty), for a dictionary's own file. */
  readonly entries?: PackedEntries;
  /** Present when a glossary-level file was read: the entries of each of the job's `pairs`, in order. */
  readonly dictionaries?: PackedEntries[];
}

/** Where this thread reads the text files of a batch (see BatchArena). */
const arena = new BatchArena();
const EMPTY_BYTES = Buffer.alloc(0);

function isText(format: EntriesFileFormat): format is EntriesFormat {
  return format === 'tsv' || format === 'csv';
}

/**
 * Reads, checks and canonicalises a batch of entries files (synchronous file I/O, see
 * read-files.ts), one outcome per job, in order. The text files of a batch are decoded together;
 * a workbook is read asynchronously (its reader streams).
 */
export async function readEntriesBatch(jobs: readonly EntriesJob[], dirCache?: Map<string, string | null>): Promise<EntriesOutcome[]> {
  // Text files are decoded before the first await: the arena is free for the next batch from then on.
  arena.reset();
  const reads = jobs.map((job) => readEntriesFile(job.root, job.rootReal, job.resourceFile, job.declared, job.at, dirCache, arena));
  const textual = reads.filter((read) => read.bytes !== undefined && read.format !== undefined && isText(read.format));
  const texts = decodeUtf8Files(textual.map((read) => read.bytes as Buffer));
  let next = 0;
  const outcomes: EntriesOutcome[] = [];
  for (const [i, read] of reads.entries()) {
    if (read.bytes === undefined || read.format === undefined || read.file === undefined) {
      outcomes.push({ diagnostics: read.diagnostics, ...(read.file === undefined ? {} : { file: read.file }) });
      continue;
    }
    // A file that was read carries no diagnostic from reading (readEntriesFile): all come from parsing.
    const job = jobs[i] as EntriesJob;
    const text = isText(read.format) ? (texts[next++] as string) : undefined;
    if (!job.glossaryLevel && text !== undefined && isText(read.format)) outcomes.push(entriesOutcome(text, read.format, job.pairs[0] as LanguagePair, read.file, job.at));
    // A text file's bytes are the arena's (overwritten by the next batch): only its text goes on.
    else outcomes.push(await conceptsOutcome(text === undefined ? read.bytes : EMPTY_BYTES, text, read.format, job, read.file));
  }
  return outcomes;
}

/**
 * Reads a multilingual file (TBX, workbook, CSV/TSV with language columns) into the entries of
 * each of the job's pairs. A refused file (malformed, hostile) yields no entries at all.
 */
export async function conceptsOutcome(bytes: Buffer, text: string | undefined, format: EntriesFileFormat, job: EntriesJob, file: string): Promise<EntriesOutcome> {
  let diagnostics: Diagnostic[] = [];
  // A text file is scanned for credentials as a whole (every cell); of a TBX file or a workbook,
  // every term the dictionaries would take is checked.
  if (text !== undefined) diagnostics.push(...detectSecretsInText(text, file, 'a cell'));
  // Each reader (and its XML, zip or CSV library) is loaded only for a repository that has such a file.
  const collector = new ConceptCollector(file, diagnostics, job.pairs, job.languages, format === 'xlsx' ? 'row' : 'line', format === 'tbx' ? 'concept' : 'row', text === undefined);
  let ok: boolean;
  let sheet: string | undefined;
  let withCells: typeof WithCells | undefined;
  if (format === 'tbx') {
    const { decodeXmlChunks, parseTbx } = await import('./parse-tbx.js');
    ok = parseTbx(decodeXmlChunks(bytes), file, collector, job.options.terms, diagnostics);
  } else if (format === 'xlsx') {
    const workbook = await import('./read-workbook.js');
    withCells = workbook.withCells;
    ({ ok, sheet } = await workbook.readWorkbook(bytes, file, collector, job.languages, job.options, diagnostics));
  } else {
    const { parseLanguageColumns } = await import('./parse-language-columns.js');
    ok = parseLanguageColumns(text ?? '', format, file, collector, job.languages, job.options.headerRow, diagnostics);
  }
  const maps = collector.finish();
  if (sheet !== undefined && withCells !== undefined) diagnostics = withCells(diagnostics, file, sheet);
  if (!ok) return { diagnostics, file };
  const errors = diagnostics.some((d) => d.severity === 'error');
  for (const [i, pair] of job.pairs.entries()) {
    if ((maps[i] as PackedEntries).size > 0 || errors) continue;
    diagnostics.push(
      error(
        'entries/empty-dictionary',
        `no ${format === 'tbx' ? 'concept' : 'row'} has a term in both ${pair.sourceLang} and ${pair.targetLang}, so the dictionary ${pair.sourceLang}-${pair.targetLang} holds no entries; the service rejects a dictionary without entries`,
        job.at.file,
        job.at.line,
        job.at.column,
      ),
    );
  }
  return job.glossaryLevel ? { diagnostics, file, dictionaries: maps } : { diagnostics, file, entries: maps[0] ?? PackedEntries.EMPTY };
}

/** Parses and checks the text of an entries file (pure): its outcome. */
export function entriesOutcome(text: string, format: EntriesFormat, pair: LanguagePair, file: string, at: SourceRef): EntriesOutcome {
  const { entries, diagnostics } = parseEntries(text, format, pair, file);
  diagnostics.push(...detectSecretsInText(text, file, 'a cell'));
  const empty = emptyDictionary(entries, diagnostics, at);
  if (empty !== undefined) diagnostics.push(empty);
  return { diagnostics, file, entries };
}

/**
 * The service rejects a dictionary without entries. Reported at the declaration (the `entries_file`
 * or `entries` line) when nothing else in the dictionary is an error already (an error there names
 * the real cause, and the dictionary is wrong anyway).
 */
export function emptyDictionary(entries: ReadonlyMap<string, string>, diagnostics: readonly Diagnostic[], at: SourceRef): Diagnostic | undefined {
  if (entries.size > 0 || diagnostics.some((d) => d.severity === 'error')) return undefined;
  const ignored = diagnostics.some((d) => d.code === 'entries/language-columns-mismatch');
  const why = ignored ? ': every row was ignored because of its language columns' : ' (blank lines and ignored rows do not count)';
  return error('entries/empty-dictionary', `the dictionary holds no entries${why}; the service rejects a dictionary without entries`, at.file, at.line, at.column);
}
