import type { Diagnostic } from '../lib/diagnostics.js';
import type { LanguagePair } from '../model/entries.js';
import type { SourceRef } from '../model/desired.js';
import { error } from './diagnostic.js';
import { parseEntries, type EntriesFormat } from './parse-entries.js';
import { decodeUtf8Files, readEntriesFile } from './read-files.js';

/** One entries file to read and parse. */
export interface EntriesJob {
  readonly root: string;
  readonly rootReal: string;
  readonly resourceFile: string;
  readonly declared: string;
  readonly at: SourceRef;
  readonly pair: LanguagePair;
}

export interface EntriesOutcome {
  readonly diagnostics: Diagnostic[];
  /** Repository-relative path, when the file resolved inside the repository. */
  readonly file?: string;
  /** Present when the file was read (possibly empty). */
  readonly entries?: Map<string, string>;
  /**
   * Set when the entries are exactly the lines of this TSV text, in order: a file that raised no
   * diagnostic at all (no blank line, no change by canonicalisation, no duplicate). Lets a worker
   * thread send the text back instead of packing the entries one by one.
   */
  readonly verbatim?: string;
}

/**
 * Reads, checks and canonicalises a batch of entries files (synchronous file I/O, see
 * read-files.ts), one outcome per job, in order. The files of a batch are decoded together.
 */
export function readEntriesBatch(jobs: readonly EntriesJob[], dirCache?: Map<string, string | null>): EntriesOutcome[] {
  const reads = jobs.map((job) => readEntriesFile(job.root, job.rootReal, job.resourceFile, job.declared, job.at, dirCache));
  const readable = reads.filter((read) => read.bytes !== undefined);
  const texts = decodeUtf8Files(readable.map((read) => read.bytes as Buffer));
  let next = 0;
  return reads.map((read, i): EntriesOutcome => {
    if (read.bytes === undefined || read.format === undefined || read.file === undefined) {
      return { diagnostics: read.diagnostics, ...(read.file === undefined ? {} : { file: read.file }) };
    }
    // A file that was read carries no diagnostic from reading (readEntriesFile): all come from parsing.
    const job = jobs[i] as EntriesJob;
    return entriesOutcome(texts[next++] as string, read.format, job.pair, read.file, job.at);
  });
}

/** Parses and checks the text of an entries file (pure): its outcome, `verbatim` included. */
export function entriesOutcome(text: string, format: EntriesFormat, pair: LanguagePair, file: string, at: SourceRef): EntriesOutcome {
  const { entries, diagnostics } = parseEntries(text, format, pair, file);
  const empty = emptyDictionary(entries, diagnostics, at);
  if (empty !== undefined) diagnostics.push(empty);
  const verbatim = format === 'tsv' && diagnostics.length === 0;
  return { diagnostics, file, entries, ...(verbatim ? { verbatim: text } : {}) };
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
