import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Diagnostic } from '../../lib/diagnostics.js';
import { ConceptCollector, columnLetters, type TermAt } from '../common/collect-concepts.js';
import { planConceptEdits, type ConceptEdit, type ConceptSpot, type TermSpot } from '../common/concept-edits.js';
import type { ConceptsRewrite, ConceptsRewritten } from '../entries-format.js';
import { checkedWorkbook } from './check-workbook.js';
import { localName } from './parse-parts.js';
import { readWorkbook } from './read-workbook.js';
import { copyWorkbook } from './copy-workbook.js';
import { inflatePart } from './zip-parts.js';

/*
 * pull's writer of workbooks (.xlsx): the sheet the loader reads (readWorkbook: the `sheet` option,
 * or the first worksheet that names a declared language), its rows read into concepts by the
 * loader's own code, and the service's edits written into that sheet's XML with the smallest change:
 * - a changed term: its cell becomes an inline string of the new text (its style kept);
 * - a removed entry: its target cell emptied (its style kept), its source cell too when no other
 *   language of the row keeps a term; a row left with nothing in it is removed from the sheet (the
 *   rows below keep their numbers: it reads as a blank row);
 * - an added entry: its terms as inline strings in the empty cells of the row whose source term it
 *   is (the only row with that term, empty in every language added), each styled as it was, or a
 *   missing cell added in column order, styled as the nearest term cell of its column (else as its
 *   left neighbour); else a row after
 *   the last one, its terms as inline strings in their language columns, styled as the cells above
 *   them; the sheet's `dimension` grows to hold it.
 * A cell holding a formula is never written (the entry is named and left as it is). Every other part
 * of the package (styles, shared strings, other sheets, comments, column widths) keeps its bytes;
 * see copy-workbook.ts.
 */

/** A term's place: its row and column numbers (1-based). */
interface Cell {
  readonly row: number;
  readonly column: number;
}

/** A `<c>` of the sheet: where its element is, its reference and style as written, whether it holds a formula or a value. */
interface CellXml {
  readonly start: number;
  end: number;
  readonly ref: string;
  readonly style: string | undefined;
  formula: boolean;
  value: boolean;
}

interface RowXml {
  readonly number: number;
  readonly start: number;
  end: number;
  readonly cells: Map<number, CellXml>;
}

interface SheetXml {
  readonly rows: Map<number, RowXml>;
  /** Where `</sheetData>` starts (new rows go there), and the `dimension` element's `ref`. */
  sheetDataEnd: number;
  dimension?: { readonly start: number; readonly end: number; readonly ref: string };
}

/** The concepts of the sheet as the loader reads them, each term with its row and column. */
class CaptureConcepts extends ConceptCollector {
  found: { terms: Map<string, TermAt>; line: number }[] = [];
  /** Each language's column (number), from the header row. */
  readonly columns = new Map<string, number>();

  constructor(file: string, languages: readonly string[]) {
    super(file, [], [], languages, 'row', 'row');
  }

  override concept(terms: ReadonlyMap<string, TermAt>, line: number): void {
    this.found.push({ terms: new Map([...terms].map(([lang, t]) => [lang, { text: t.text, line: t.line, column: t.column }])), line });
  }

  override discard(): void {
    this.found = [];
  }

  override languageColumns(columns: ReadonlyMap<number, string>): void {
    for (const [column, lang] of columns) this.columns.set(lang, column);
  }
}

function columnOf(ref: string): number {
  let column = 0;
  for (const c of ref.toUpperCase()) {
    const code = c.charCodeAt(0);
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return column;
}

/** The rows and cells of a sheet part with where each is in its text (offsets of saxes' positions). */
function locateSheet(xml: string): SheetXml {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const sheet: SheetXml = { rows: new Map(), sheetDataEnd: -1 };
  let row: RowXml | undefined;
  let cell: CellXml | undefined;
  let rowNumber = 0;
  let column = 0;
  let tagStart = 0;
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('opentagstart', (tag) => {
    tagStart = xml.lastIndexOf(`<${tag.name}`, parser.position);
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    const attribute = (key: string): string | undefined => (typeof tag.attributes[key] === 'string' ? tag.attributes[key] : undefined);
    if (name === 'dimension') sheet.dimension = { start: tagStart, end: parser.position, ref: attribute('ref') ?? '' };
    else if (name === 'row') {
      rowNumber = attribute('r') === undefined ? rowNumber + 1 : Number(attribute('r'));
      column = 0;
      row = { number: rowNumber, start: tagStart, end: -1, cells: new Map() };
      sheet.rows.set(rowNumber, row);
    } else if (name === 'c' && row !== undefined) {
      const ref = attribute('r');
      column = ref === undefined ? column + 1 : columnOf(ref);
      cell = { start: tagStart, end: -1, ref: ref ?? `${columnLetters(column)}${rowNumber}`, style: attribute('s'), formula: false, value: false };
      row.cells.set(column, cell);
    } else if (cell !== undefined && name === 'f') cell.formula = true;
    else if (cell !== undefined && (name === 'v' || name === 'is')) cell.value = true;
  });
  parser.on('closetag', (tag) => {
    const name = localName(tag.name);
    if (name === 'c' && cell !== undefined) {
      cell.end = parser.position;
      cell = undefined;
    } else if (name === 'row' && row !== undefined) {
      row.end = parser.position;
      row = undefined;
    } else if (name === 'sheetData' && !tag.isSelfClosing) sheet.sheetDataEnd = xml.lastIndexOf('</', parser.position - 1);
  });
  parser.write(xml);
  parser.close();
  return sheet;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#13;'));
}

function inlineCell(ref: string, style: string | undefined, text: string): string {
  return `<c r="${ref}"${style === undefined ? '' : ` s="${style}"`} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
}

interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * The style of a cell added at `column` of row `row`: that of the nearest cell of its column in
 * another row of terms (above first; no style is the default one), else that of the nearest cell
 * to its left in the row.
 */
function neighbourStyle(sheet: SheetXml, termRows: ReadonlySet<number>, row: number, column: number): string | undefined {
  let best: { distance: number; cell: CellXml } | undefined;
  for (const number of termRows) {
    const cell = sheet.rows.get(number)?.cells.get(column);
    if (number === row || cell === undefined) continue;
    const distance = number < row ? 2 * (row - number) : 2 * (number - row) + 1;
    if (best === undefined || distance < best.distance) best = { distance, cell };
  }
  if (best !== undefined) return best.cell.style;
  const left = [...(sheet.rows.get(row)?.cells ?? [])].filter(([c]) => c < column).sort((a, b) => b[0] - a[0])[0];
  return left?.[1].style;
}

/** The splices of the sheet's XML that make the edits, and the entries left as they are (formula cells). */
function sheetSplices(xml: string, sheet: SheetXml, concepts: readonly ConceptSpot<Cell>[], edits: readonly ConceptEdit<Cell>[], columns: ReadonlyMap<string, number>, file: string): { splices: Splice[]; refused: string[] } {
  const refused: string[] = [];
  const inserted: (Splice & { column: number })[] = [];
  const cleared = new Set<CellXml>();
  const written = new Map<CellXml, string>();
  const xmlOf = (at: Cell): CellXml | undefined => sheet.rows.get(at.row)?.cells.get(at.column);
  const edit = (at: Cell, text: string): boolean => {
    const xml = xmlOf(at);
    if (xml === undefined || xml.formula) {
      refused.push(`pull cannot write the cell ${columnLetters(at.column)}${at.row} of ${file}: it holds a formula (or cannot be found); left as it is`);
      return false;
    }
    if (text === '') cleared.add(xml);
    written.set(xml, text === '' ? `<c r="${xml.ref}"${xml.style === undefined ? '' : ` s="${xml.style}"`}/>` : inlineCell(xml.ref, xml.style, text));
    return true;
  };
  const filled = new Set<number>();
  const termRows = new Set(concepts.flatMap((c) => [...c.terms.values()].map((t) => t.at.row)));
  for (const e of edits) {
    if (e.kind === 'set') edit(e.term.at, e.text);
    if (e.kind !== 'fill') continue;
    filled.add(e.concept);
    const row = [...(concepts[e.concept]?.terms.values() ?? [])][0]?.at.row as number;
    const rowXml = sheet.rows.get(row);
    for (const [lang, text] of e.terms) {
      const column = columns.get(lang) as number;
      if (xmlOf({ row, column }) !== undefined || rowXml === undefined) {
        edit({ row, column }, text);
        continue;
      }
      // No cell there: one added before the first cell to its right, or at the end of the row.
      const right = [...rowXml.cells].filter(([c]) => c > column).sort((a, b) => a[0] - b[0])[0]?.[1];
      const at = right?.start ?? xml.lastIndexOf('</', rowXml.end - 1);
      inserted.push({ start: at, end: at, column, text: inlineCell(`${columnLetters(column)}${row}`, neighbourStyle(sheet, termRows, row, column), text) });
    }
  }
  for (const e of edits) {
    if (e.kind !== 'remove' || !edit(e.term.at, '')) continue;
    if (filled.has(e.concept)) continue;
    const left = [...(concepts[e.concept]?.terms.values() ?? [])].filter((t: TermSpot<Cell>) => !cleared.has(xmlOf(t.at) as CellXml));
    if (left.length === 1) edit((left[0] as TermSpot<Cell>).at, '');
  }
  const splices: Splice[] = [];
  const rowsTouched = new Set<RowXml>();
  for (const row of sheet.rows.values()) for (const c of row.cells.values()) if (written.has(c)) rowsTouched.add(row);
  for (const row of rowsTouched) {
    if ([...row.cells.values()].every((c) => cleared.has(c) || (!c.value && !c.formula))) splices.push({ start: row.start, end: row.end, text: '' });
    else for (const c of row.cells.values()) if (written.has(c)) splices.push({ start: c.start, end: c.end, text: written.get(c) as string });
  }
  splices.push(...inserted.sort((a, b) => a.column - b.column).map(({ start, end, text }) => ({ start, end, text })));
  return { splices, refused };
}

/** Rows appended for added entries, in the columns of their languages, styled as the last row's cells. */
function addedRows(sheet: SheetXml, edits: readonly ConceptEdit<Cell>[], columns: ReadonlyMap<string, number>): { text: string; last: number } {
  const lastRow = Math.max(0, ...sheet.rows.keys());
  const styleRow = sheet.rows.get(lastRow);
  let n = lastRow;
  const rows: string[] = [];
  for (const e of edits) {
    if (e.kind !== 'add') continue;
    n++;
    const cells = [...e.terms]
      .map(([lang, text]) => [columns.get(lang) as number, text] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([column, text]) => inlineCell(`${columnLetters(column)}${n}`, styleRow?.cells.get(column)?.style, text));
    rows.push(`<row r="${n}">${cells.join('')}</row>`);
  }
  return { text: rows.join(''), last: n };
}

function applySplices(text: string, list: readonly Splice[]): string {
  let out = '';
  let at = 0;
  for (const s of [...list].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}

/** A workbook with the service's edits (see the comment at the top). */
export async function rewriteWorkbook(content: Buffer, request: ConceptsRewrite): Promise<ConceptsRewritten> {
  const { languages, sheet: wanted, headerRow, terms } = request.source;
  const capture = new CaptureConcepts(request.file, languages);
  const diagnostics: Diagnostic[] = [];
  const options = { terms, ...(wanted === undefined ? {} : { sheet: wanted }), ...(headerRow === undefined ? {} : { headerRow }) };
  const { ok, sheet: name } = await readWorkbook(content, request.file, capture, languages, options, diagnostics);
  if (!ok || name === undefined) return { bytes: content, refused: [`pull cannot read ${request.file} as the loader does: left as it is`] };
  const concepts: ConceptSpot<Cell>[] = capture.found.map(({ terms: found, line }) => ({
    terms: new Map([...found].map(([lang, t]) => [lang, { text: t.text, rivals: 'none' as const, at: { row: t.line, column: t.column } }])),
    name: `row ${line}`,
  }));
  const plan = planConceptEdits(concepts, languages, request.dictionaries, request.file);
  if (plan.edits.length === 0) return { bytes: content, refused: plan.refused };
  const book = await checkedWorkbook(content, name);
  const part = book.worksheets.get(book.chosen.part as string);
  if (part === undefined) return { bytes: content, refused: [`pull cannot find the sheet ${JSON.stringify(name)} of ${request.file}: left as it is`] };
  const raw = inflatePart(part.data, 0, part.entry).toString('utf8');
  const bom = raw.startsWith('\uFEFF') ? '\uFEFF' : '';
  const xml = raw.slice(bom.length);
  const sheet = locateSheet(xml);
  const columns = capture.columns;
  const made = sheetSplices(xml, sheet, concepts, plan.edits, columns, request.file);
  const added = addedRows(sheet, plan.edits, columns);
  const splices = [...made.splices];
  if (added.text !== '') {
    if (sheet.sheetDataEnd === -1) made.refused.push(`pull cannot add rows to ${request.file}: its sheet has no rows element to add them to; the added entries are left out`);
    else splices.push({ start: sheet.sheetDataEnd, end: sheet.sheetDataEnd, text: added.text });
    const dimension = sheet.dimension;
    const end = dimension === undefined ? undefined : /^([A-Z]+\d+:[A-Z]+)(\d+)$/i.exec(dimension.ref);
    if (dimension !== undefined && end?.[1] !== undefined && Number(end[2]) < added.last) {
      const at = xml.indexOf(dimension.ref, dimension.start);
      splices.push({ start: at, end: at + dimension.ref.length, text: `${end[1]}${added.last}` });
    }
  }
  const edited = Buffer.from(bom + applySplices(xml, splices), 'utf8');
  return { bytes: await copyWorkbook(content, new Map([[part.entry.fileName, edited]])), refused: [...plan.refused, ...made.refused] };
}
