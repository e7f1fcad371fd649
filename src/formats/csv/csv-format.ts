import type { EntriesFormat } from '../entries-format.js';
import { textWriter } from '../entries-writer.js';
import { MAX_ENTRIES_FILE_BYTES, textTooLarge } from '../common/text-limits.js';
import { parseCsvEntries } from './parse-csv.js';
import { createCsv, rewriteCsv } from './rewrite-csv.js';

/**
 * Every file this writes reads back to exactly the entries it was written from: an entry that
 * would read as a header when it comes first gets a header row before it (see rewrite-csv.ts;
 * test/formats/writers-round-trip.test.ts holds it).
 */
export const CSV_WRITER = textWriter(['.csv'], (text, d) => rewriteCsv(text, d.pair, d.live, d.delimiter), (d) => createCsv(d.live, d.pair, d.delimiter));

/** CSV: `source,target` (optionally with language columns) per record, or a column per language (a glossary-level file). */
export const CSV_FORMAT: EntriesFormat = {
  name: 'csv',
  extensions: ['.csv'],
  content: 'text',
  maxBytes: MAX_ENTRIES_FILE_BYTES,
  tooLarge: textTooLarge,
  dialect: ['delimiter', 'encoding'],
  readEntries: (text, pair, file, options, also) => parseCsvEntries(text, pair, file, also, options.delimiter),
  rules: [
    { id: 'entries/csv-header', severity: 'warning', summary: 'a CSV header row, ignored' },
    { id: 'entries/wrong-separator', severity: 'error', summary: 'a CSV file that separates its fields with another character than its delimiter' },
    { id: 'entries/malformed-quote', severity: 'error', summary: 'malformed CSV quoting' },
    { id: 'entries/language-columns-mismatch', severity: 'warning', summary: "a CSV record whose language columns are another pair's, ignored" },
    { id: 'entries/field-count', severity: 'error', summary: 'a TSV line or CSV record that is not a source and a target (and, in CSV, their languages)' },
  ],
  concepts: { unit: 'line', item: 'row', load: async () => (await import('../multilingual/parse-language-columns.js')).languageColumnsReader('csv') },
  writer: CSV_WRITER,
};
