import { show } from '../../lib/diagnostics.js';
import { STYLES } from './check-workbook.js';
import { localName, parsePart } from './parse-parts.js';

/** Why a cell cannot be a term (what cellText returns instead of its text). */
export class CellProblem {
  constructor(readonly problem: string) {}
}

/**
 * What a number format makes of a number cell: `general` (General, `0`: an integer shows as its
 * digits), `text` (`@`: a number stored in a Text cell, shown as General), `date` (a date or a
 * time: what Excel made of text that looked like one) or `other` (decimals, percentages,
 * currencies, leading zeros, any other format: the text depends on the format and the locale).
 */
export interface NumberStyle {
  readonly kind: 'general' | 'text' | 'date' | 'other';
  /** The format code, for messages. */
  readonly code: string;
}

export const GENERAL: NumberStyle = { kind: 'general', code: 'General' };

/** The built-in number formats (ECMA-376 Part 1, 18.8.30) by id; 27–36 and 50–58 are East Asian dates. */
const BUILTIN_FORMATS: Readonly<Record<number, string>> = {
  0: 'General', 1: '0', 2: '0.00', 3: '#,##0', 4: '#,##0.00', 9: '0%', 10: '0.00%', 11: '0.00E+00', 12: '# ?/?', 13: '# ??/??',
  14: 'mm-dd-yy', 15: 'd-mmm-yy', 16: 'd-mmm', 17: 'mmm-yy', 18: 'h:mm AM/PM', 19: 'h:mm:ss AM/PM', 20: 'h:mm', 21: 'h:mm:ss', 22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)', 38: '#,##0 ;[Red](#,##0)', 39: '#,##0.00;(#,##0.00)', 40: '#,##0.00;[Red](#,##0.00)', 45: 'mm:ss', 46: '[h]:mm:ss', 47: 'mmss.0', 48: '##0.0E+0', 49: '@',
};

function builtinStyle(id: number): NumberStyle {
  if ((id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47) || (id >= 50 && id <= 58)) return { kind: 'date', code: BUILTIN_FORMATS[id] ?? `built-in date format ${id}` };
  if (id === 0 || id === 1) return { kind: 'general', code: BUILTIN_FORMATS[id] as string };
  if (id === 49) return { kind: 'text', code: '@' };
  return { kind: 'other', code: BUILTIN_FORMATS[id] ?? `built-in format ${id}` };
}

/**
 * A custom number format by what it shows: a date or time when, outside quoted text, escaped
 * characters, fill and padding characters and bracketed parts other than elapsed time (`[h]`),
 * it has a day, month, year, hour or second code (`yyyy-mm-dd`, `DD.MM.YYYY`, `[$-409]mmm d`);
 * General, `0` and `@` as they are (what LibreOffice writes for plain cells); anything else shows
 * more or other than the number's digits (`"Model "0`, `00000`, `0.00`).
 */
function customStyle(code: string): NumberStyle {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .replace(/general/gi, '');
  if (/[dmyhs]/i.test(bare)) return { kind: 'date', code };
  const plain = code.trim().toLowerCase();
  if (plain === 'general' || plain === '0') return { kind: 'general', code };
  if (plain === '@') return { kind: 'text', code };
  return { kind: 'other', code };
}

/** The number style of each cell style (`s` of a cell indexes `cellXfs`), from xl/styles.xml. */
export function readStyles(styles: Buffer | undefined): NumberStyle[] {
  if (styles === undefined) return [];
  const custom = new Map<number, string>();
  const ids: number[] = [];
  let inCellXfs = false;
  parsePart(STYLES, styles, (_, onTags) => {
    onTags(
      (tag) => {
        const name = localName(tag.name);
        if (name === 'numFmt') {
          const id = Number(tag.attributes['numFmtId']);
          const code = tag.attributes['formatCode'];
          if (Number.isInteger(id) && typeof code === 'string') custom.set(id, code);
        } else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) ids.push(Number(tag.attributes['numFmtId'] ?? 0));
      },
      (tag) => {
        if (localName(tag.name) === 'cellXfs') inCellXfs = false;
      },
    );
  });
  return ids.map((id) => {
    const code = custom.get(id);
    return code === undefined ? builtinStyle(Number.isInteger(id) ? id : 0) : customStyle(code);
  });
}

/** A date serial as Excel shows it in the 1900 (or 1904) date system: `2024-05-01`, `2024-05-01 14:30`, `14:30`. */
function excelDate(serial: number, date1904: boolean): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return undefined;
  const pad = (n: number): string => String(n).padStart(2, '0');
  const days = Math.floor(serial);
  const minutes = Math.round((serial - days) * 24 * 60);
  const time = minutes === 0 ? '' : `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  if (days === 0 && !date1904) return time === '' ? undefined : time;
  // 1900 system: day 1 is 1900-01-01, and Excel counts a 29 February 1900 that never was (day 60).
  if (!date1904 && days === 60) return '1900-02-29';
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  const date = new Date(epoch + days * 86_400_000);
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return time === '' ? day : `${day} ${time}`;
}

/** What to do about a cell that is not text, in every message: the one fix that works in Excel, LibreOffice and Google Sheets. */
export const AS_TEXT = 'format the column as Text (Format Cells › Text) and type the term again';

/** How a number cell reads as a term, through its number style (see NumberStyle), or why it cannot. */
export function numberText(saved: string, style: NumberStyle, date1904: boolean): string | CellProblem {
  const number = Number(saved.trim());
  if (saved.trim() === '' || !Number.isFinite(number)) return new CellProblem(`holds ${show(saved)} as a number, which it is not (a malformed file)`);
  if (style.kind === 'date') {
    const shown = excelDate(number, date1904);
    return new CellProblem(`holds a date or time${shown === undefined ? '' : ` (${shown})`}, not text: Excel stores it as the number ${number} with the format ${show(style.code)}, and turns a term that looks like a date into one; ${AS_TEXT}`);
  }
  if (style.kind === 'other') return new CellProblem(`holds the number ${number} shown with the number format ${show(style.code)}, whose text termsync does not reproduce (it depends on the format and the locale); ${AS_TEXT}`);
  if (!Number.isInteger(number)) return new CellProblem(`holds the number ${number}, which Excel shows with the decimal separator of the reader's locale (a point or a comma); ${AS_TEXT} as it should read`);
  if (Math.abs(number) >= 1e11) return new CellProblem(`holds the number ${number}, which Excel shows in scientific notation (and keeps only 15 digits of); ${AS_TEXT}`);
  return String(number);
}
