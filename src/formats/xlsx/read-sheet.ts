import type { SaxesTagPlain } from 'saxes';
import { show } from '../../lib/diagnostics.js';
import type { CellText } from '../common/collect-rows.js';
import { checkedWorkbook, isWorksheet, type SheetEntry } from './check-workbook.js';
import { AS_TEXT, CellProblem, GENERAL, numberText, readStyles, type NumberStyle } from './number-styles.js';
import { byLocalName, parseCompressedPart, Stop } from './parse-parts.js';
import { readSharedStrings, SharedStrings, StringItem } from './shared-strings.js';
import { Refused, type CompressedPart } from './zip-parts.js';

/** The number of a cell reference's column (`B12` → 2), or 0 when it is not a cell reference. */
function columnOfReference(ref: string): number {
  let column = 0;
  let i = 0;
  for (; i < ref.length && i < 4; i++) {
    const code = ref.charCodeAt(i) | 0x20; // lower case
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
  }
  return i === 0 || i > 3 || column > 16_384 ? 0 : column;
}

/**
 * A cell's text (the empty string: an empty cell), or why it cannot be a term, from its saved
 * content: its type (`t`), whether it has a formula, the text of its `<v>` and of its inline
 * string (`<is>`), each undefined when the cell has none, and its number style.
 */
function cellText(type: string, formula: boolean, value: string | undefined, inline: string | undefined, strings: SharedStrings, style: NumberStyle, date1904: boolean): string | CellProblem {
  if (formula) {
    const saved = value === undefined || value === '' ? undefined : type === 'str' || type === 'e' ? value : type === 'inlineStr' ? (inline ?? value) : String(parseFloat(value));
    const shown = saved === undefined ? ' (it has no saved value)' : ` (its saved value is ${show(saved)})`;
    return new CellProblem(`holds a formula${shown}: formulas are never evaluated and their saved values are not used; paste the values instead (Paste Special › Values)`);
  }
  switch (type) {
    case 's': {
      if (value === undefined || value === '') return '';
      const text = strings.get(Number(value));
      return text === undefined ? new CellProblem(`refers to shared string ${show(value)}, which the workbook does not hold (a malformed file)`) : text;
    }
    case 'inlineStr':
      return inline ?? value ?? '';
    case 'str':
      return value ?? inline ?? '';
    case 'e':
      return new CellProblem(`holds the error value ${value ?? ''}; ${AS_TEXT}`);
    case 'b':
      return value === undefined || value.trim() === '' ? '' : new CellProblem(`holds the boolean ${parseInt(value, 10) !== 0 ? 'TRUE' : 'FALSE'}, not text (Excel turns a typed true or false into one); ${AS_TEXT}`);
    case 'd':
      return value === undefined || value.trim() === '' ? '' : new CellProblem(`holds a date (${show(value)}), not text; ${AS_TEXT}`);
    default: {
      const saved = value ?? inline;
      if (saved === undefined || saved.trim() === '') return '';
      return numberText(saved, style, date1904);
    }
  }
}

/**
 * The cells of the row being read that hold a value: the array and its cells are those of the row
 * before, rewritten (this runs for every cell of the sheet; the caller keeps nothing of a row).
 */
class RowCells {
  readonly list: CellText[] = [];
  private readonly pool: { text: string; column: number; problem: string | undefined }[] = [];

  clear(): void {
    this.list.length = 0;
  }

  add(text: string, column: number, problem: string | undefined): void {
    let cell = this.pool[this.list.length];
    if (cell === undefined) {
      cell = { text, column, problem };
      this.pool.push(cell);
    } else {
      cell.text = text;
      cell.column = column;
      cell.problem = problem;
    }
    this.list.push(cell);
  }
}

/** A row's number: its `r`, or the one after the previous row's. */
function rowNumberOf(r: string | undefined, previous: number, refuse: (message: string) => never): number {
  if (r === undefined) return previous + 1;
  const number = Number(r);
  if (!Number.isInteger(number) || number < 1 || number > 1_048_576) refuse(`a row's number (r="${r}") is not a row number`);
  return number;
}

/** A cell's column number: that of its reference `r`, or the one after the previous cell's. */
function columnOf(ref: string | undefined, previous: number, refuse: (message: string) => never): number {
  if (ref === undefined) return previous + 1;
  const column = columnOfReference(ref);
  if (column === 0) refuse(`a cell's reference (r="${ref}") is not a cell reference`);
  return column;
}

/**
 * Streams the rows of a sheet part: for each `<row>`, its number and its cells that hold a value
 * (empty cells left out). `onRow` returns false to stop reading. The cell being read is kept in
 * plain variables, not an object per cell (this runs for every cell of the sheet), and a row's
 * array and cells are those of the row before, rewritten: onRow keeps nothing of them.
 */
async function readRows(
  sheet: CompressedPart,
  strings: SharedStrings,
  styles: { readonly numbers: readonly NumberStyle[]; readonly date1904: boolean },
  onRow: (row: number, cells: CellText[]) => boolean,
  pause?: () => Promise<void>,
): Promise<void> {
  const part = sheet.entry.fileName;
  let rowNumber = 0;
  let inRow = false;
  const cells = new RowCells();
  let column = 0;
  // The cell being read (inCell), as cellText takes it.
  let inCell = false;
  let type = 'n';
  let style = GENERAL;
  let formula = false;
  let value: string | undefined;
  let inline: string | undefined;
  let inValue = false;
  const item = new StringItem();
  const refuse = (message: string): never => {
    throw new Refused(`part ${part}: ${message}`);
  };
  try {
    await parseCompressedPart(
      sheet,
      (parser, onTags) => {
        const onOpen = (name: string, tag: SaxesTagPlain): boolean => {
          switch (name) {
            case 'row': {
              rowNumber = rowNumberOf(tag.attributes['r'], rowNumber, refuse);
              inRow = true;
              cells.clear();
              column = 0;
              return true;
            }
            case 'c': {
              if (!inRow) return true;
              column = columnOf(tag.attributes['r'], column, refuse);
              inCell = true;
              type = tag.attributes['t'] ?? 'n';
              const s = tag.attributes['s'];
              style = s === undefined ? GENERAL : (styles.numbers[Number(s)] ?? GENERAL);
              formula = false;
              value = undefined;
              inline = undefined;
              return true;
            }
            case 'v':
              if (inCell) {
                value = '';
                inValue = true;
              }
              return true;
            case 'f':
              if (inCell) formula = true;
              return true;
            case 'is':
              if (inCell) item.begin();
              return true;
            default:
              return item.open(name);
          }
        };
        const onText = (text: string): void => {
          if (inValue) value += text;
          else item.add(text);
        };
        parser.on('text', onText);
        parser.on('cdata', onText);
        const onClose = (name: string): boolean => {
          switch (name) {
            case 'c':
              if (inCell) {
                const read = cellText(type, formula, value, inline, strings, style, styles.date1904);
                if (typeof read !== 'string') cells.add('', column, `the cell ${read.problem}`);
                else if (read !== '') cells.add(read, column, undefined);
                inCell = false;
              }
              return true;
            case 'v':
              inValue = false;
              return true;
            case 'is': {
              const text = item.end();
              if (text !== undefined) inline = text;
              return true;
            }
            case 'row':
              if (!inRow) return true;
              inRow = false;
              if (!onRow(rowNumber, cells.list)) throw new Stop();
              return true;
            default:
              return item.close(name);
          }
        };
        onTags(byLocalName(onOpen), byLocalName(onClose));
      },
      pause,
    );
  } catch (caught) {
    if (!(caught instanceof Stop)) throw caught;
  }
}

/** A workbook checked, with its shared strings and number styles read: its worksheets can be read row by row. */
export interface OpenWorkbook {
  /** The sheet the `sheet` option names, else the first worksheet. */
  readonly chosen: SheetEntry;
  /** The worksheets in tab order from the chosen one on (what a default choice may try). */
  readonly worksheets: readonly SheetEntry[];
  readonly stringCount: number;
  read(sheet: SheetEntry, onRow: (row: number, cells: CellText[]) => boolean): Promise<void>;
}

export async function openWorkbook(bytes: Buffer, sheet: string | number | undefined, pause?: () => Promise<void>): Promise<OpenWorkbook> {
  const book = await checkedWorkbook(bytes, sheet);
  const strings = book.sharedStrings === undefined ? SharedStrings.NONE : await readSharedStrings(book.sharedStrings, pause);
  const styles = { numbers: readStyles(book.styles), date1904: book.date1904 };
  const present = new Set(book.worksheets.keys());
  const from = book.sheets.indexOf(book.chosen);
  return {
    chosen: book.chosen,
    worksheets: [book.chosen, ...book.sheets.slice(from + 1).filter((s) => isWorksheet(s, present))],
    stringCount: strings.size,
    read: (entry, onRow) => readRows(book.worksheets.get(entry.part as string) as CompressedPart, strings, styles, onRow, pause),
  };
}

/**
 * Reads the chosen sheet of a workbook (`sheet`: its name, or its position in tab order; default
 * the first worksheet) row by row: `onRow` gets each row's number and its cells that hold a value,
 * and returns false to stop. Returns the sheet's name; throws Refused when the workbook is refused.
 */
export async function readSheetRows(
  bytes: Buffer,
  sheet: string | number | undefined,
  /** Keeps nothing of a row's cells (neither the array nor a cell): they are reused for the next row. */
  onRow: (row: number, cells: CellText[]) => boolean,
  /** Told the number of shared strings before the first row (a workbook of terms has one per term, or nearly). */
  onStrings?: (count: number) => void,
): Promise<string> {
  const book = await openWorkbook(bytes, sheet);
  onStrings?.(book.stringCount);
  await book.read(book.chosen, onRow);
  return book.chosen.name;
}
