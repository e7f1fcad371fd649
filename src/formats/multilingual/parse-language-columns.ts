import { parse as parseCsvSync } from 'csv-parse/sync';
import type { CsvError } from 'csv-parse';
import { type Diagnostic, error } from '../../lib/diagnostics.js';
import type { ConceptCollector } from '../common/collect-concepts.js';
import { HEADER_SEARCH_ROWS, isLanguageCell, RowsToConcepts, type CellText } from '../common/collect-rows.js';
import type { ConceptsReader, CsvDelimiter } from '../entries-format.js';

const CANDIDATES: readonly CsvDelimiter[] = [',', ';', '\t'];

/** The fields of one line split at `delimiter` outside double quotes (quotes left in: only codes are looked for). */
function roughFields(line: string, delimiter: CsvDelimiter): string[] {
  const fields: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"') quoted = !quoted;
    else if (c === delimiter && !quoted) {
      fields.push(line.slice(start, i));
      start = i + 1;
    }
  }
  fields.push(line.slice(start));
  return fields;
}

/**
 * The delimiter of a CSV file with language columns, found from its header row: of a comma, a
 * semicolon (Excel's CSV in many European locales) and a tab, the one that splits the header row
 * (`header_row`, or the first of the first rows that names a declared language) into the most
 * declared language codes; a comma when no line names one (the missing header is then reported).
 */
export function detectDelimiter(body: string, languages: readonly string[], headerRow: number | undefined): CsvDelimiter {
  const lines = body.split('\n', headerRow ?? HEADER_SEARCH_ROWS);
  const from = headerRow === undefined ? 0 : headerRow - 1;
  for (let i = from; i < lines.length; i++) {
    let best: CsvDelimiter | undefined;
    let most = 0;
    for (const delimiter of CANDIDATES) {
      const codes = roughFields(lines[i] as string, delimiter).filter((field) => isLanguageCell(field.replace(/^\s*"|"\s*$/g, ''), languages)).length;
      if (codes > most) {
        most = codes;
        best = delimiter;
      }
    }
    if (best !== undefined) return best;
  }
  return ',';
}

/**
 * CSV or TSV with one column per language (a header row of language codes, `en,de,fr`) and one
 * concept per line: the shape of a spreadsheet saved as text. Pure: `file` only labels the
 * diagnostics. Columns of diagnostics are field numbers (1 = the first field). `delimiter`: a
 * CSV file's declared one; otherwise it is found from the header row (detectDelimiter).
 */
export function parseLanguageColumns(
  text: string,
  format: 'tsv' | 'csv',
  file: string,
  collector: ConceptCollector,
  languages: readonly string[],
  headerRow: number | undefined,
  diagnostics: Diagnostic[],
  delimiter?: CsvDelimiter,
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
      records = parseCsvSync(body, {
        delimiter: delimiter ?? detectDelimiter(body, languages, headerRow),
        info: true,
        record_delimiter: '\n',
        relax_column_count: true,
        skip_empty_lines: true,
      }) as unknown as { record: string[]; info: { lines: number } }[];
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

/** The reader of a glossary-level TSV or CSV file (see parseLanguageColumns). */
export function languageColumnsReader(format: 'tsv' | 'csv'): ConceptsReader {
  return {
    read: ({ text }, file, collector, languages, options, diagnostics) =>
      Promise.resolve({ ok: parseLanguageColumns(text ?? '', format, file, collector, languages, options.headerRow, diagnostics, options.delimiter) }),
  };
}
