import { type Diagnostic, error, show, warning } from '../../lib/diagnostics.js';
import { glossaryLanguageOf, type ConceptCollector, type TermAt } from './collect-concepts.js';

/** Rows searched for the header row when `header_row` is not given. */
export const HEADER_SEARCH_ROWS = 10;

/**
 * The most characters (UTF-16 code units) the language columns of a table may hold: the limit of
 * the text of any entries file (10 MiB). A workbook can repeat one shared string in every row, so
 * what its cells expand to is counted as they are read, and reading stops at the limit.
 */
export const MAX_TABLE_CHARACTERS = 10 * 1024 * 1024;

const LANGUAGE_CODE = /^\s*[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*\s*$/;

/** Whether a header cell is a declared language's code (`en`, `DE`, `fr-FR`, `pt_BR`). */
export function isLanguageCell(text: string, languages: readonly string[]): boolean {
  if (text.length > 40 || !LANGUAGE_CODE.test(text)) return false;
  const lang = glossaryLanguageOf(text);
  return lang !== undefined && languages.includes(lang);
}

/** A cell of a row: its text (already a string) and its 1-based column number. */
export interface CellText {
  readonly text: string;
  readonly column: number;
  /** Why the cell cannot be read as a term (a formula, an error value): an error in a language column. */
  readonly problem?: string | undefined;
}

/** A term of the row being read: one object per language column, rewritten for every row. */
interface TermSlot {
  readonly lang: string;
  text: string;
  line: number;
  column: number;
}

/**
 * A table with one concept per row and one language per column (a workbook sheet, or CSV/TSV with
 * language columns): finds the header row (the given one, or the first of the first ten that names
 * a declared language), maps its columns to languages, and hands every later row to the
 * collector. Columns whose header is not a language (notes, ids) are ignored.
 */
export class RowsToConcepts {
  private columns: Map<number, string> | undefined;
  /** By column number, once the header is read: the language column's slot for the row being read. */
  private slots: (TermSlot | undefined)[] = [];
  /** The terms of the row being read, by language (cleared for every row: nothing of it is kept). */
  private readonly terms = new Map<string, TermAt>();
  private done = false;
  /** Refused because no header row was found (the caller may try another sheet). */
  private headerless = false;
  /** Characters of the language columns' cells so far (see MAX_TABLE_CHARACTERS). */
  private characters = 0;
  private header: number | undefined;

  constructor(
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
    private readonly collector: ConceptCollector,
    private readonly languages: readonly string[],
    private readonly headerRow: number | undefined,
    /** Names a column in messages: `B` in a workbook, `column 2` in CSV. */
    private readonly columnName: (column: number) => string,
  ) {}

  /** False once the table is refused (a bad header): the caller can stop reading. */
  get usable(): boolean {
    return !this.done;
  }

  /** True when the table was refused for want of a header row (and for nothing else). */
  get missingHeader(): boolean {
    return this.headerless;
  }

  /** The header row, once found. */
  get headerLine(): number | undefined {
    return this.header;
  }

  row(line: number, cells: readonly CellText[]): void {
    if (this.done) return;
    if (this.columns === undefined) {
      if (this.headerRow !== undefined) {
        if (line === this.headerRow) this.readHeader(line, cells);
        else if (line > this.headerRow) this.noHeader();
      } else if (line > HEADER_SEARCH_ROWS) this.noHeader();
      else if (this.namesALanguage(cells)) this.readHeader(line, cells);
      return;
    }
    // The collector keeps nothing of `terms` or its slots once `concept` returns.
    const { terms, slots } = this;
    terms.clear();
    for (const cell of cells) {
      const slot = slots[cell.column];
      if (slot === undefined) continue;
      if (cell.problem !== undefined) {
        this.diagnostics.push(error('entries/cell-value', cell.problem, this.file, line, cell.column));
        continue;
      }
      this.characters += cell.text.length;
      if (this.characters > MAX_TABLE_CHARACTERS) {
        this.refuse(
          'entries/too-much-text',
          `the language columns hold more than ${MAX_TABLE_CHARACTERS} characters by this cell, the limit of the text of any entries file (10 MiB), so reading stopped here (a workbook repeating a long shared string expands to far more than its size)`,
          line,
          cell.column,
        );
        return;
      }
      if (cell.text.trim() === '') continue;
      slot.text = cell.text;
      slot.line = line;
      slot.column = cell.column;
      terms.set(slot.lang, slot);
    }
    // A row's problems are located at its first column (a sheet's cells may be given sparsely).
    if (terms.size > 0) this.collector.concept(terms, line, 1);
  }

  /** Ends the table: false when no usable header row was found (reported). */
  finish(lastLine: number): boolean {
    if (this.done) return false;
    if (this.columns === undefined) {
      if (this.headerRow !== undefined && lastLine < this.headerRow) {
        this.refuse('entries/header-row', `\`header_row\` is ${this.headerRow}, but the table ends at ${lastLine === 0 ? 'its start (it is empty)' : `row ${lastLine}`}`, Math.max(lastLine, 1), 1);
      } else this.noHeader();
      return false;
    }
    return true;
  }

  private namesALanguage(cells: readonly CellText[]): boolean {
    return cells.some((cell) => isLanguageCell(cell.text, this.languages));
  }

  private noHeader(): void {
    if (this.done) return;
    this.headerless = true;
    const where = this.headerRow === undefined ? `none of the first ${HEADER_SEARCH_ROWS} rows` : `row ${this.headerRow} (\`header_row\`)`;
    this.refuse(
      'entries/no-header-row',
      `${where} names a declared language (${this.languages.join(', ')}): the header row gives each language column its code (e.g. en, de, fr)${this.headerRow === undefined ? '; set `header_row` if it is further down' : ''}`,
      this.headerRow ?? 1,
      1,
    );
  }

  private refuse(code: string, message: string, line: number, column: number): void {
    this.done = true;
    this.diagnostics.push(error(code, message, this.file, line, column));
  }

  private readHeader(line: number, cells: readonly CellText[]): void {
    const columns = new Map<number, string>();
    const seen = new Map<string, number>();
    for (const cell of cells) {
      if (!isLanguageCell(cell.text, this.languages)) continue;
      const text = cell.text.trim();
      const lang = glossaryLanguageOf(text) as string;
      const first = seen.get(lang);
      if (first !== undefined) {
        this.refuse(
          'entries/duplicate-language-column',
          `two columns for the language ${lang}: ${this.columnName(first)} and ${this.columnName(cell.column)} (${show(text)}); a glossary has one dictionary per language, for all its variants, so their terms would be mixed: keep one (or split them over two glossaries)`,
          line,
          cell.column,
        );
        return;
      }
      seen.set(lang, cell.column);
      columns.set(cell.column, lang);
      this.slots[cell.column] = { lang, text: '', line: 0, column: 0 };
      if (text !== lang) {
        this.diagnostics.push(
          warning('entries/language-column-variant', `column ${show(text)} is read as the glossary language ${lang} (the service's glossaries have one dictionary per language, for all its variants)`, this.file, line, cell.column),
        );
      }
    }
    const missing = this.languages.filter((lang) => !seen.has(lang));
    if (missing.length > 0) {
      this.refuse(
        'entries/missing-language-column',
        `the header row has no column for ${missing.join(', ')}, which the glossary declares in \`languages\` (found: ${[...seen.keys()].join(', ') || 'none'})`,
        line,
        1,
      );
      return;
    }
    this.columns = columns;
    this.header = line;
    this.collector.languageColumns(columns);
  }
}
