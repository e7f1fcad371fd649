import { type Diagnostic, error, markDiagnostics, show, truncateDiagnostics, warning } from '../../lib/diagnostics.js';
import { Interrupted } from '../common/interrupted.js';
import type { SheetEntry } from './check-workbook.js';
import { openWorkbook } from './read-sheet.js';
import { Refused } from './zip-parts.js';
import type { ConceptCollector } from '../common/collect-concepts.js';
import { columnLetters } from '../common/collect-concepts.js';
import { HEADER_SEARCH_ROWS, RowsToConcepts } from '../common/collect-rows.js';

/*
 * Workbooks (.xlsx): the zip container is read with yauzl (zip-parts.ts, checked in
 * check-workbook.ts), the XML parts with saxes (parse-parts.ts); shared strings, number formats
 * and sheets each have a module (shared-strings.ts, number-styles.ts, read-sheet.ts), and this one
 * maps a sheet's rows to concepts. Nothing is evaluated, nothing written to disk.
 *
 * The zip container is checked before any XML is parsed, so that what can ever be inflated is
 * bounded (zip bombs):
 * 1. The central directory's declared sizes: at most MAX_WORKBOOK_PARTS parts and
 *    MAX_WORKBOOK_INFLATED bytes in the parts read (workbook, relationships, shared strings, sheets).
 * 2. Each of those parts' local header must agree with the central directory, and each is inflated
 *    once, with its declared size as the limit: inflating stops as soon as a part yields more, so
 *    the work is bounded by the declared sizes, lies included.
 * The workbook and its relationships (which sheet is which part) are parsed, the other sheets
 * only measured; the shared strings and the chosen sheet are inflated as they are read, in small
 * pieces, within the same limit: a part that inflates past its declared size refuses the whole
 * workbook (nothing read from it is used), and their XML is never held whole.
 *
 * Every XML part is parsed with saxes, which expands no entity but the five predefined ones and
 * character references; a document type declaration (how entity expansion and external entities
 * get in) is refused, as in TBX files.
 *
 * Cells are read as Excel saves them: shared strings (`t="s"`, rich-text runs concatenated,
 * phonetic guides left out), inline strings (`t="inlineStr"`) and strings (`t="str"`). A number
 * is read through its cell's number format (xl/styles.xml, see NumberStyle): a date or time (a
 * term Excel took for a date, `1-2` → 2 January) is refused, and so is any number whose text
 * depends on the format or the reader's locale; an integer in the General format is the digits
 * Excel shows. A cell without a reference (`r`) is the one after the previous cell, a row without
 * one the row after the previous row. Formula cells are refused, never evaluated, and their cached
 * values are not trusted either: a term that changes when the workbook recalculates is not a term
 * (paste the values instead). Booleans (Excel turns a typed `true` into one), error values and ISO
 * date cells (`t="d"`) are refused too: each a located error that says to format the column as
 * Text. Every XML part may nest elements at most MAX_XML_DEPTH deep.
 *
 * Without a `sheet` option, the first worksheet is read; when it names no declared language in its
 * first rows (a README or title sheet first) and no `header_row` is given, the next worksheets are
 * tried in tab order, and the one read is named in a warning.
 */

/** The most entries per dictionary the shared strings may announce (see readWorkbook): tables of a few MiB. */
const MAX_ENTRIES_HINT = 1 << 18;

/** ...and across all the dictionaries a workbook feeds: about 12 MiB of tables, however many are declared. */
const MAX_ENTRIES_HINT_TOTAL = 1 << 19;

/**
 * Reads a workbook's sheet into concepts: one row per concept, one column per language. Without a
 * `sheet` (nor a `header_row`), a first worksheet that names no declared language in its first
 * rows is passed over for the next one that does (see the comment at the top). Diagnostics are
 * located by row (`line`) and column number; the caller names the cell with the sheet returned
 * (`Terms!B12`). `ok` is false when the file was refused. `pause` is awaited between pieces of the
 * parts read; a load interrupted meanwhile ends with Interrupted.
 */
export async function readWorkbook(
  bytes: Buffer,
  file: string,
  collector: ConceptCollector,
  languages: readonly string[],
  options: { readonly sheet?: string | number; readonly headerRow?: number },
  diagnostics: Diagnostic[],
  pause?: () => Promise<void>,
): Promise<{ ok: boolean; sheet?: string }> {
  const before = markDiagnostics(diagnostics);
  try {
    const book = await openWorkbook(bytes, options.sheet, pause);
    // Each row holds a string per language, or nearly: the dictionaries are sized for that many
    // entries at once instead of growing through every power of two.
    // A hint only, capped: a file of countless empty strings makes no large tables.
    const expect = (): void => collector.expect(Math.min(Math.ceil(book.stringCount / Math.max(languages.length, 1)), MAX_ENTRIES_HINT), MAX_ENTRIES_HINT_TOTAL);
    expect();
    const candidates = options.sheet === undefined && options.headerRow === undefined ? book.worksheets : [book.chosen];
    for (const [k, sheet] of candidates.entries()) {
      const rows = new RowsToConcepts(file, diagnostics, collector, languages, options.headerRow, (column) => `column ${columnLetters(column)}`);
      let last = 0;
      await book.read(sheet, (row, cells) => {
        last = row;
        rows.row(row, cells);
        return rows.usable;
      });
      const ok = rows.finish(last);
      if (!ok && rows.missingHeader && candidates.length > 1) {
        // Another worksheet may hold the table (a README or title sheet first): nothing of this one counts.
        truncateDiagnostics(diagnostics, before);
        collector.discard();
        if (k + 1 < candidates.length) {
          expect();
          continue;
        }
        const first = candidates[0] as SheetEntry;
        diagnostics.push(
          error(
            'entries/no-header-row',
            `no worksheet (${candidates.map((c) => show(c.name)).join(', ')}) names a declared language (${languages.join(', ')}) in its first ${HEADER_SEARCH_ROWS} rows: the header row gives each language column its code (e.g. en, de, fr); set \`sheet\` and \`header_row\` if it is further down`,
            file,
            1,
            1,
          ),
        );
        return { ok: false, sheet: first.name };
      }
      if (ok && k > 0) {
        diagnostics.push(
          warning(
            'entries/sheet-chosen',
            `read the sheet ${show(sheet.name)}, the first worksheet that names a declared language in its first ${HEADER_SEARCH_ROWS} rows (${candidates
              .slice(0, k)
              .map((c) => show(c.name))
              .join(', ')} ${k === 1 ? 'does' : 'do'} not); set \`sheet\` to read another`,
            file,
            rows.headerLine ?? 1,
            1,
          ),
        );
      }
      return { ok, sheet: sheet.name };
    }
    return { ok: false };
  } catch (caught) {
    if (caught instanceof Interrupted) throw caught;
    // A workbook refused while its sheet was read (it inflates past its size, its XML breaks off):
    // nothing read from it counts, its rows' diagnostics neither.
    truncateDiagnostics(diagnostics, before);
    collector.discard();
    const refused = caught instanceof Refused;
    const message = refused ? caught.message : `not a readable .xlsx workbook (${(caught as Error).message})`;
    diagnostics.push(error(refused ? caught.code : 'entries/malformed-workbook', message, file, 1, 1));
    return { ok: false };
  }
}

/** Diagnostics located by row and column named by their cell (`Terms!B12`); whole-file ones stay as they are. */
export function withCells(diagnostics: readonly Diagnostic[], file: string, sheet: string): Diagnostic[] {
  const prefix = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
  return diagnostics.map((d) => (d.file === file && d.line > 0 && d.cell === undefined ? { ...d, cell: `${prefix}!${columnLetters(Math.max(d.column, 1))}${d.line}` } : d));
}

export { readSheetRows } from './read-sheet.js';
export { Refused } from './zip-parts.js';
