import type { EntriesFormat } from '../entries-format.js';
import { textWriter } from '../entries-writer.js';
import { MAX_ENTRIES_FILE_BYTES, textTooLarge } from '../common/text-limits.js';
import { parseTsvEntries } from './parse-tsv.js';
import { createTsv, rewriteTsv } from './rewrite-tsv.js';

/**
 * Every file this writes reads back to exactly the entries it was written from: an entry that
 * would read as a header when it comes first gets a header line before it (see rewrite-tsv.ts;
 * test/formats/writers-round-trip.test.ts holds it).
 */
export const TSV_WRITER = textWriter(['.tsv'], (text, d) => rewriteTsv(text, d.pair, d.live), (d) => createTsv(d.live, d.pair));

/** TSV: `source<TAB>target` per line (one dictionary), or a column per language (a glossary-level file). */
export const TSV_FORMAT: EntriesFormat = {
  name: 'tsv',
  extensions: ['.tsv'],
  content: 'text',
  maxBytes: MAX_ENTRIES_FILE_BYTES,
  tooLarge: textTooLarge,
  dialect: ['encoding'],
  readEntries: (text, pair, file, _options, also) => parseTsvEntries(text, pair, file, also),
  rules: [
    { id: 'entries/tsv-header', severity: 'warning', summary: "a TSV header line of the pair's codes, ignored" },
    { id: 'entries/field-count', severity: 'error', summary: 'a TSV line or CSV record that is not a source and a target (and, in CSV, their languages)' },
  ],
  concepts: { unit: 'line', item: 'row', load: async () => (await import('../multilingual/parse-language-columns.js')).languageColumnsReader('tsv') },
  writer: TSV_WRITER,
  // pull's TSV writer: a file whose first entry reads as a header gets a header line first.
  import: { kind: 'dictionary', noun: 'TSV file', create: (entries, pair) => createTsv(entries, pair) },
};
