import type { Entries, LanguagePair } from '../model/entries.js';
import { createCsv, rewriteCsv } from './rewrite-csv.js';
import { createTsv, rewriteTsv } from './rewrite-tsv.js';

/** The service's entries of one dictionary an entries file feeds. */
export interface DictionaryContent {
  readonly pair: LanguagePair;
  readonly live: Entries;
  /** A CSV file's declared `delimiter` (default a comma). */
  readonly delimiter?: ',' | ';' | '\t';
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

// ignoreBOM: a byte order mark is kept as text, so that the rewrite keeps it (the default drops it).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** A writer of a text format whose files feed one dictionary each (applied in turn when several share one). */
function textWriter(extensions: readonly string[], rewrite: (text: string, content: DictionaryContent) => string, create: (content: DictionaryContent) => string): EntriesWriter {
  return {
    extensions,
    rewrite: (content, dictionaries) => encoder.encode(dictionaries.reduce((text, d) => rewrite(text, d), decoder.decode(content))),
    create: (dictionaries) => encoder.encode(dictionaries.map((d) => create(d)).join('')),
  };
}

// Every file these write reads back to exactly the entries it was written from: an entry that
// would read as a header when it comes first gets a header line before it (see rewrite-tsv.ts and
// rewrite-csv.ts; test/pull/writers-round-trip.test.ts holds it).
export const TSV_WRITER = textWriter(['.tsv'], (text, d) => rewriteTsv(text, d.pair, d.live), (d) => createTsv(d.live, d.pair));
export const CSV_WRITER = textWriter(['.csv'], (text, d) => rewriteCsv(text, d.pair, d.live, d.delimiter), (d) => createCsv(d.live, d.pair, d.delimiter));

/** The writers pull knows, by format. */
export const ENTRIES_WRITERS: readonly EntriesWriter[] = [TSV_WRITER, CSV_WRITER];

/** The writer for a file, by its extension; undefined when pull cannot write that format. */
export function writerFor(file: string, writers: readonly EntriesWriter[] = ENTRIES_WRITERS): EntriesWriter | undefined {
  const dot = file.lastIndexOf('.');
  const extension = dot === -1 ? '' : file.slice(dot).toLowerCase();
  return writers.find((w) => w.extensions.includes(extension));
}
