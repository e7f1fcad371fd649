import { glossaryLanguageOf } from '../common/collect-concepts.js';
import { HEADER_SEARCH_ROWS, isLanguageCell } from '../common/collect-rows.js';
import { planConceptEdits, type ConceptEdit, type ConceptSpot } from '../common/concept-edits.js';
import { joinLines, splitLines, type Line } from '../common/split-lines.js';
import { csvField, fieldSpans, fieldsOf, splitRecords } from '../csv/rewrite-csv.js';
import type { ConceptsRewrite, ConceptsRewritten, CsvDelimiter } from '../entries-format.js';
import { detectDelimiter } from './parse-language-columns.js';

/*
 * pull's writer of CSV and TSV files with language columns (a glossary-level `entries_file`): the
 * rows found as parse-language-columns.ts reads them (the header row, the language of each column),
 * and the service's edits written with the smallest change:
 * - a changed term: its cell only, quoted as it was (quotes added only where the text needs them);
 * - a removed entry: its target cell emptied, and its source cell too when no other language of
 *   the row keeps a term; a row left with nothing in it goes (with its line break);
 * - an added entry: its terms in the empty cells of the row whose source term it is (the only row
 *   with that term, empty in every language added; fields the row lacks are added), else a row
 *   appended, its terms in their language columns, the others empty.
 * Every other byte as it was: the byte order mark, the line breaks (a last line without one
 * keeps none unless a row is appended), other columns, blank lines, rows above the header.
 */

/** Where a field of a record is, and whether it is enclosed in double quotes. */
interface FieldSpan {
  readonly start: number;
  readonly end: number;
  readonly quoted: boolean;
}

interface Row {
  readonly record: Line;
  /** Its first line in the file (1-based), as the reader numbers rows. */
  readonly line: number;
  readonly fields: readonly string[];
  readonly spans: readonly FieldSpan[];
}

/** Where a term is: its row (an index of the file's records) and its field. */
interface Cell {
  readonly row: number;
  readonly field: number;
}

function tabSpans(text: string): FieldSpan[] {
  const spans: FieldSpan[] = [];
  let start = 0;
  for (let tab = text.indexOf('\t'); tab !== -1; tab = text.indexOf('\t', start)) {
    spans.push({ start, end: tab, quoted: false });
    start = tab + 1;
  }
  spans.push({ start, end: text.length, quoted: false });
  return spans;
}

function readRows(text: string, format: 'csv' | 'tsv', delimiter: CsvDelimiter): Row[] {
  const records = format === 'csv' ? splitRecords(text) : splitLines(text);
  let line = 1;
  return records.map((record) => {
    const row: Row =
      format === 'csv'
        ? { record, line, fields: record.text.trim() === '' ? [] : fieldsOf(record.text, delimiter), spans: fieldSpans(record.text, delimiter) }
        : { record, line, fields: record.text.split('\t'), spans: tabSpans(record.text) };
    line += (record.text.match(/\r\n|\r|\n/g)?.length ?? 0) + (record.eol === '' ? 0 : 1);
    return row;
  });
}

/** The header row (as RowsToConcepts finds it) and the language of each of its language columns. */
function headerOf(rows: readonly Row[], languages: readonly string[], headerRow: number | undefined): { index: number; columns: Map<number, string> } | undefined {
  const index = rows.findIndex((r) => (headerRow === undefined ? r.line <= HEADER_SEARCH_ROWS && r.fields.some((f) => isLanguageCell(f, languages)) : r.line === headerRow));
  if (index === -1) return undefined;
  const columns = new Map<number, string>();
  (rows[index] as Row).fields.forEach((f, i) => {
    if (isLanguageCell(f, languages)) columns.set(i, glossaryLanguageOf(f.trim()) as string);
  });
  return { index, columns };
}

/** The concepts of the rows after the header: the term of each language column that is not blank. */
function conceptsOf(rows: readonly Row[], header: { index: number; columns: Map<number, string> }): ConceptSpot<Cell>[] {
  const concepts: ConceptSpot<Cell>[] = [];
  rows.forEach((row, index) => {
    if (index <= header.index) return;
    const terms = new Map<string, { text: string; rivals: 'none'; at: Cell }>();
    for (const [field, lang] of header.columns) {
      const text = row.fields[field];
      if (text !== undefined && text.trim() !== '') terms.set(lang, { text, rivals: 'none', at: { row: index, field } });
    }
    if (terms.size > 0) concepts.push({ terms, name: `row ${row.line}` });
  });
  return concepts;
}

/** The new text of each cell edited (row → field → text), and the rows that go. */
function cellEdits(concepts: readonly ConceptSpot<Cell>[], edits: readonly ConceptEdit<Cell>[], rows: readonly Row[], byLanguage: ReadonlyMap<string, number>): { cells: Map<number, Map<number, string>>; gone: Set<number> } {
  const cells = new Map<number, Map<number, string>>();
  const set = (cell: Cell, text: string): void => {
    cells.set(cell.row, (cells.get(cell.row) ?? new Map<number, string>()).set(cell.field, text));
  };
  const filled = new Set<number>();
  for (const edit of edits) {
    if (edit.kind === 'set' || edit.kind === 'remove') set(edit.term.at, edit.kind === 'set' ? edit.text : '');
    else if (edit.kind === 'fill') {
      filled.add(edit.concept);
      const row = [...(concepts[edit.concept]?.terms.values() ?? [])][0]?.at.row as number;
      for (const [lang, text] of edit.terms) set({ row, field: byLanguage.get(lang) as number }, text);
    }
  }
  for (const edit of edits) {
    if (edit.kind !== 'remove' || filled.has(edit.concept)) continue;
    // A source term no other language of the row pairs with any more goes too.
    const left = [...(concepts[edit.concept]?.terms.values() ?? [])].filter((t) => cells.get(t.at.row)?.get(t.at.field) !== '');
    if (left.length === 1) set((left[0] as { at: Cell }).at, '');
  }
  const gone = new Set<number>();
  for (const [index, fields] of cells) {
    const row = rows[index] as Row;
    if (row.fields.every((f, i) => (fields.get(i) ?? f).trim() === '')) gone.add(index);
  }
  return { cells, gone };
}

/** A CSV or TSV file with language columns, with the service's edits (see the comment at the top). */
export function rewriteLanguageColumns(content: Buffer, format: 'csv' | 'tsv', request: ConceptsRewrite): ConceptsRewritten {
  const whole = content.toString('utf8');
  const bom = whole.startsWith('\uFEFF') ? '\uFEFF' : '';
  const text = whole.slice(bom.length);
  const { languages, headerRow } = request.source;
  const delimiter: CsvDelimiter = format === 'tsv' ? '\t' : (request.source.delimiter ?? detectDelimiter(text.replace(/\r\n?/g, '\n'), languages, headerRow));
  const rows = readRows(text, format, delimiter);
  const header = headerOf(rows, languages, headerRow);
  if (header === undefined) return { bytes: content, refused: [`pull cannot find the header row of ${request.file}: left as it is`] };
  const concepts = conceptsOf(rows, header);
  const plan = planConceptEdits(concepts, languages, request.dictionaries, request.file);
  if (plan.edits.length === 0) return { bytes: content, refused: plan.refused };
  const byLanguage = new Map([...header.columns].map(([i, lang]) => [lang, i]));
  const { cells, gone } = cellEdits(concepts, plan.edits, rows, byLanguage);
  const field = (value: string, quoted: boolean): string => (format === 'csv' ? csvField(value, quoted, delimiter) : value);
  const lines: Line[] = [];
  rows.forEach((row, index) => {
    if (gone.has(index)) return;
    const edited = cells.get(index);
    if (edited === undefined) {
      lines.push(row.record);
      return;
    }
    let out = '';
    let at = 0;
    for (const [i, span] of row.spans.entries()) {
      const value = edited.get(i);
      if (value === undefined) continue;
      out += row.record.text.slice(at, span.start) + field(value, span.quoted);
      at = span.end;
    }
    out += row.record.text.slice(at);
    // A term filled into a column the row's record stops short of: the fields up to it added.
    const beyond = Math.max(-1, ...[...edited.keys()].filter((i) => i >= row.spans.length));
    for (let i = row.spans.length; i <= beyond; i++) out += delimiter + field(edited.get(i) ?? '', false);
    lines.push({ text: out, eol: row.record.eol });
  });
  const width = (rows[header.index] as Row).fields.length;
  const added = plan.edits.flatMap((edit) => {
    if (edit.kind !== 'add') return [];
    const fields = Array.from({ length: width }, () => '');
    for (const [lang, term] of edit.terms) fields[byLanguage.get(lang) as number] = field(term, false);
    return [fields.join(delimiter)];
  });
  // A row removed at the end of a file without a last line break leaves the new last row without one.
  const last = lines.at(-1);
  if (last !== undefined && added.length === 0 && rows.at(-1)?.record.eol === '' && gone.has(rows.length - 1)) lines[lines.length - 1] = { text: last.text, eol: '' };
  return { bytes: Buffer.from(joinLines(bom, lines, added), 'utf8'), refused: plan.refused };
}
