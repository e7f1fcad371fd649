import { parse as parseCsvSync } from 'csv-parse/sync';
import type { CsvError } from 'csv-parse';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { ConceptCollector } from './collect-concepts.js';
import { RowsToConcepts, type CellText } from './collect-rows.js';
import { error } from './diagnostic.js';

/**
 * CSV or TSV with one column per language (a header row of language codes, `en,de,fr`) and one
 * concept per line: the shape of a spreadsheet saved as text. Pure: `file` only labels the
 * diagnostics. Columns of diagnostics are field numbers (1 = the first field).
 */
export function parseLanguageColumns(
  text: string,
  format: 'tsv' | 'csv',
  file: string,
  collector: ConceptCollector,
  languages: readonly string[],
  headerRow: number | undefined,
  diagnostics: Diagnostic[],
): boolean {
  const rows = new RowsToConcepts(file, diagnostics, collector, languages, headerRow, (column) => `column ${column}`);
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const cells = (fields: readonly string[]): CellText[] => fields.map((field, i) => ({ text: field, column: i + 1 }));
  let last = 0;
  if (format === 'tsv') {
    let line = 0;
    for (let start = 0; start < body.length && rows.usable; ) {
      let end = body.indexOf('\n', start);
      if (end === -1) end = body.length;
      line++;
      rows.row(line, cells(body.slice(start, end).split('\t')));
      start = end + 1;
    }
    last = line;
  } else {
    let records: { record: string[]; info: { lines: number } }[];
    try {
      records = parseCsvSync(body, { info: true, record_delimiter: '\n', relax_column_count: true, skip_empty_lines: true }) as unknown as { record: string[]; info: { lines: number } }[];
    } catch (caught) {
      const err = caught as CsvError;
      const line = typeof err.lines === 'number' && err.lines > 0 ? err.lines : 1;
      diagnostics.push(error('entries/malformed-quote', 'malformed CSV: a field with a comma or a double quote must be enclosed in double quotes, and a double quote inside it doubled (`""`)', file, line, 1));
      return false;
    }
    for (const { record, info } of records) {
      if (!rows.usable) break;
      let breaks = 0;
      for (const field of record) for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) breaks++;
      last = info.lines;
      rows.row(info.lines - breaks, cells(record));
    }
  }
  return rows.finish(last);
}
