import type { Diagnostic } from '../lib/diagnostics.js';
import type { LanguagePair } from '../model/entries.js';
import type { SourceRef } from '../model/desired.js';
import { parseEntries } from './parse-entries.js';
import { readEntriesFile } from './read-files.js';

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
}

/** Reads, checks and canonicalises one entries file (synchronous file I/O, see read-files.ts). */
export function readEntries(job: EntriesJob, dirCache?: Map<string, string | null>): EntriesOutcome {
  const read = readEntriesFile(job.root, job.rootReal, job.resourceFile, job.declared, job.at, dirCache);
  if (read.text === undefined || read.format === undefined || read.file === undefined) {
    return { diagnostics: read.diagnostics, ...(read.file === undefined ? {} : { file: read.file }) };
  }
  const parsed = parseEntries(read.text, read.format, job.pair, read.file);
  return { diagnostics: [...read.diagnostics, ...parsed.diagnostics], file: read.file, entries: parsed.entries };
}
