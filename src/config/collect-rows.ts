import type { Diagnostic } from '../lib/diagnostics.js';
import { glossaryLanguageOf, type ConceptCollector, type TermAt } from './collect-concepts.js';
import { error, show, warning } from './diagnostic.js';

/** Rows searched for the header row when `header_row` is not given. */
export const HEADER_SEARCH_ROWS = 10;

/** A cell of a row: its text (already a string) and its 1-based column number. */
export interface CellText {
  readonly text: string;
  readonly column: number;
  /** Why the cell cannot be read as a term (a formula, an error value): an error in a language column. */
  readonly problem?: string | undefined;
}

/** A term of the row being read: one object per language column, rewritten for every row. */
interface TermSlot {
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
  /** By column, as `columns`: the language's slot for the row being read. */
  private slots = new Map<number, TermSlot>();
  /** The terms of the row being read, by language (cleared for every row: nothing of it is kept). */
  private readonly terms = new Map<string, TermAt>();
  private done = false;

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
    const { terms, columns, slots } = this;
    terms.clear();
    for (const cell of cells) {
      const lang = columns.get(cell.column);
      if (lang === undefined) continue;
      if (cell.problem !== undefined) {
        this.diagnostics.push(error('entries/cell-value', cell.problem, this.file, line, cell.column));
        continue;
      }
      if (cell.text.trim() === '') continue;
      const slot = slots.get(cell.column) as TermSlot;
      slot.text = cell.text;
      slot.line = line;
      slot.column = cell.column;
      terms.set(lang, slot);
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
    return cells.some((cell) => {
      const lang = glossaryLanguageOf(cell.text);
      return lang !== undefined && this.languages.includes(lang) && /^\s*[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*\s*$/.test(cell.text);
    });
  }

  private noHeader(): void {
    if (this.done) return;
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
      const text = cell.text.trim();
      if (text === '' || !/^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$/.test(text)) continue;
      const lang = glossaryLanguageOf(text);
      if (lang === undefined || !this.languages.includes(lang)) continue;
      const first = seen.get(lang);
      if (first !== undefined) {
        this.refuse('entries/duplicate-language-column', `two columns for the language ${lang}: ${this.columnName(first)} and ${this.columnName(cell.column)} (${show(text)}); keep one`, line, cell.column);
        return;
      }
      seen.set(lang, cell.column);
      columns.set(cell.column, lang);
      this.slots.set(cell.column, { text: '', line: 0, column: 0 });
      if (text !== lang) {
        this.diagnostics.push(warning('entries/language-column-variant', `column ${show(text)} is read as the glossary language ${lang} (a dictionary applies to every variant of its language)`, this.file, line, cell.column));
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
  }
}
