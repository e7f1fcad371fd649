import { toSheetRows } from '../common/concept-table.js';
import { MAX_ENTRIES_FILE_BYTES } from '../common/text-limits.js';
import type { EntriesFormat } from '../entries-format.js';
import { SheetFile } from './sheet-file.js';

/** Workbooks (.xlsx): a sheet with one concept per row and one language per column (see read-workbook.ts). */
export const XLSX_FORMAT: EntriesFormat = {
  name: 'xlsx',
  extensions: ['.xlsx'],
  misnamed: { extensions: ['.xls', '.ods', '.numbers'], hint: 'save the spreadsheet as .xlsx' },
  content: 'bytes',
  maxBytes: MAX_ENTRIES_FILE_BYTES,
  tooLarge: (shown, size) => `\`entries_file\` ${shown} is ${size} bytes, so it is not read: a workbook may be at most ${MAX_ENTRIES_FILE_BYTES} bytes (10 MiB), the service's limit for a whole glossary's entries`,
  dialect: [],
  dialectNote: { encoding: 'a workbook has none' },
  rules: [
    { id: 'entries/malformed-workbook', severity: 'error', summary: 'a workbook that is not a readable .xlsx file' },
    { id: 'entries/workbook-too-large', severity: 'error', summary: 'a workbook whose parts inflate past their limit (a zip bomb)' },
    { id: 'entries/no-such-sheet', severity: 'error', summary: 'a `sheet` the workbook does not have, or that is no worksheet' },
    { id: 'entries/sheet-chosen', severity: 'warning', summary: 'a workbook read from another sheet than the first (the first names no declared language)' },
    { id: 'entries/xml-doctype', severity: 'error', summary: 'an XML document type declaration with an internal subset (entities)' },
    { id: 'entries/xml-too-deep', severity: 'error', summary: 'XML elements nested more than 64 deep' },
    { id: 'entries/cell-value', severity: 'error', summary: 'a workbook cell that is not text (a formula, a date, a number shown through a format)' },
  ],
  concepts: {
    unit: 'row',
    item: 'row',
    load: async () => {
      const { readWorkbook, withCells } = await import('./read-workbook.js');
      return {
        read: async ({ bytes }, file, collector, languages, options, diagnostics, pause) => {
          const { ok, sheet } = await readWorkbook(bytes, file, collector, languages, options, diagnostics, pause);
          return sheet === undefined ? { ok } : { ok, locate: (found) => withCells(found, file, sheet) };
        },
      };
    },
  },
  import: { kind: 'glossary', noun: 'workbook', create: (_title, table) => new SheetFile('Terms', toSheetRows(table)) },
};
