import type { Entries, LanguagePair } from '../model/entries.js';
import type { CsvDelimiter } from './entries-format.js';

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

// ignoreBOM: a byte order mark is kept as text, so that the rewrite keeps it (the default drops it).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** A writer of a text format whose files feed one dictionary each (applied in turn when several share one). */
export function textWriter(extensions: readonly string[], rewrite: (text: string, content: DictionaryContent) => string, create: (content: DictionaryContent) => string): EntriesWriter {
  return {
    extensions,
    rewrite: (content, dictionaries) => encoder.encode(dictionaries.reduce((text, d) => rewrite(text, d), decoder.decode(content))),
    create: (dictionaries) => encoder.encode(dictionaries.map((d) => create(d)).join('')),
  };
}
