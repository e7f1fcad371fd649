/**
 * The .xlsx writer of `import --format xlsx` (src/formats/xlsx/create-workbook.ts): what it writes is read
 * back cell for cell by termsync's own reader and by an independent one (exceljs, the library that
 * wrote workbooks before), every part is well-formed XML, the header row is bold, and what a
 * workbook cannot hold is refused with the cell named instead of written broken.
 */
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { createWorkbook } from '../../src/formats/xlsx/create-workbook.js';
import type { SheetContent } from '../../src/formats/xlsx/sheet-content.js';
import type { CellText } from '../../src/formats/common/collect-rows.js';
import { readSheetRows } from '../../src/formats/xlsx/read-workbook.js';
import { InputError } from '../../src/lib/errors.js';
import { unzipParts } from '../fixtures/build-files.js';
import { exceljsSheetRows } from '../fixtures/exceljs-sheet-reader.js';

type Rows = SheetContent['rows'];

/** The cells a reader should see for the rows: row and column numbers from 1, empty and null cells left out. */
function expected(rows: Rows): { row: number; cells: CellText[] }[] {
  return rows.map((row, r) => ({ row: r + 1, cells: row.flatMap((text, c) => (text === null || text === '' ? [] : [{ text, column: c + 1 }])) }));
}

async function ownReader(bytes: Buffer): Promise<{ sheet: string; rows: { row: number; cells: CellText[] }[] }> {
  const rows: { row: number; cells: CellText[] }[] = [];
  const sheet = await readSheetRows(bytes, undefined, (row, cells) => {
    rows.push({ row, cells: cells.map(({ text, column, problem }) => (problem === undefined ? { text, column } : { text, column, problem })) });
    return true;
  });
  return { sheet, rows };
}

/** Throws on the first XML error of a part (saxes: a strict, namespace-aware parser). */
function wellFormed(name: string, xml: Buffer): void {
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (error) => {
    throw new Error(`${name}: ${error.message}`);
  });
  parser.write(xml.toString('utf8')).close();
}

const TRICKY: Rows = [
  ['en', 'de', 'fr', 'ja'],
  ['=SUM(A1)', '=SUMME(A1)', null, '合計'],
  ['2024', '0042', '1e3', 'TRUE'],
  ['  leading and trailing  ', 'a & b < c > d "e"', "l'apostrophe", '🙂 beyond the BMP'],
  ['', 'after an empty cell', null, null],
  ['line\rend', 'tab\tinside', 'x', 'y'],
];

describe('createWorkbook', () => {
  it('writes a workbook both readers read back cell for cell: formulas, numbers and booleans stay text, spaces and markup characters are kept', async () => {
    const bytes = await createWorkbook({ sheet: 'Terms', rows: TRICKY });
    const want = expected(TRICKY);
    expect(await ownReader(bytes)).toEqual({ sheet: 'Terms', rows: want });
    expect(await exceljsSheetRows(bytes)).toEqual({ sheet: 'Terms', rows: want });
  });

  it("writes text that looks like Excel's own escapes (`_x000D_` is a carriage return in a string item) escaped, so it reads back as it was", async () => {
    const rows: Rows = [
      ['en', 'de'],
      ['_x000D_ literally', 'snake_x0041_case_'],
      ['_x005F_', 'a_x12_b'],
    ];
    const bytes = await createWorkbook({ sheet: 'Terms', rows });
    expect((await ownReader(bytes)).rows).toEqual(expected(rows));
    const strings = (await unzipParts(bytes)).get('xl/sharedStrings.xml')?.toString('utf8') ?? '';
    expect(strings).toContain('>_x005F_x000D_ literally<');
    expect(strings).toContain('>a_x12_b<');
  });

  it('has the parts Excel needs, each well-formed XML; shared strings counted; row 1 bold and frozen', async () => {
    const bytes = await createWorkbook({ sheet: 'Terms', rows: [['en', 'de'], ['cart', 'Warenkorb'], ['basket', 'Warenkorb']] });
    const parts = await unzipParts(bytes);
    expect([...parts.keys()]).toEqual(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/worksheets/sheet1.xml', 'xl/sharedStrings.xml', 'xl/styles.xml']);
    for (const [name, xml] of parts) wellFormed(name, xml);
    const types = parts.get('[Content_Types].xml')?.toString() ?? '';
    for (const part of [...parts.keys()].filter((p) => p.endsWith('.xml') && p !== '[Content_Types].xml')) expect(types, part).toContain(`PartName="/${part}"`);
    // Each distinct text once: "Warenkorb" twice in the sheet, once in the table.
    expect(parts.get('xl/sharedStrings.xml')?.toString()).toMatch(/count="6" uniqueCount="5"/);
    // The full reader of the independent library, with styles: the header's font is bold, the terms' not.
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = book.getWorksheet('Terms');
    expect(sheet?.getCell('A1').font?.bold).toBe(true);
    expect(sheet?.getCell('B1').font?.bold).toBe(true);
    expect(sheet?.getCell('A2').font?.bold).not.toBe(true);
    expect(sheet?.getCell('B3').value).toBe('Warenkorb');
    expect(sheet?.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('names columns past Z as spreadsheets do (AA, AB, …)', async () => {
    const row = Array.from({ length: 30 }, (_, i) => `c${i + 1}`);
    const bytes = await createWorkbook({ sheet: 'Terms', rows: [row] });
    const sheet = (await unzipParts(bytes)).get('xl/worksheets/sheet1.xml')?.toString() ?? '';
    expect(sheet).toContain('<c r="Z1" s="1" t="s">');
    expect(sheet).toContain('<c r="AD1" s="1" t="s">');
    expect(sheet).toContain('<dimension ref="A1:AD1"/>');
    expect((await ownReader(bytes)).rows).toEqual(expected([row]));
  });

  it('writes the same bytes for the same content', async () => {
    const [a, b] = await Promise.all([createWorkbook({ sheet: 'Terms', rows: TRICKY }), createWorkbook({ sheet: 'Terms', rows: TRICKY })]);
    expect(a.equals(b)).toBe(true);
  });

  it('refuses, naming the cell, text no workbook can hold: a control character, a lone surrogate, more than 32,767 characters; and a sheet name Excel refuses', async () => {
    const refusal = async (content: SheetContent): Promise<unknown> => createWorkbook(content).then(() => 'written', (error: unknown) => error);
    const control = await refusal({ sheet: 'Terms', rows: [['en', 'de'], ['bell', 'Glocke\u0007']] });
    expect(control).toBeInstanceOf(InputError);
    expect((control as InputError).message).toBe('cannot write cell Terms!B2 of the workbook: it holds U+0007, which a workbook cannot hold (write this glossary with --format tsv or tbx)');
    expect(((await refusal({ sheet: 'Terms', rows: [['\ud800x']] })) as Error).message).toContain('Terms!A1 of the workbook: it holds U+D800');
    expect(((await refusal({ sheet: 'Terms', rows: [['a', 'b', 'x'.repeat(32_768)]] })) as Error).message).toContain('Terms!C1 of the workbook: it holds 32768 characters, over the 32767');
    expect(await refusal({ sheet: 'Terms', rows: [['a', 'x'.repeat(32_767)]] })).toBe('written');
    expect(((await refusal({ sheet: 'Terms/2024', rows: [] })) as Error).message).toMatch(/^cannot name a workbook sheet "Terms\/2024"/);
  });

  it('any text a term can hold comes back unchanged through termsync\'s reader (property)', async () => {
    // Terms hold no control characters (the loader refuses them), but anything else: markup
    // characters, spaces at either end, every plane of Unicode.
    // eslint-disable-next-line no-control-regex
    const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !/[\u0000-\u001f\ufffe\uffff]/.test(s));
    const rows = fc.array(fc.array(fc.option(text, { nil: null, freq: 5 }), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 });
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(rows, async (generated) => {
        const bytes = await createWorkbook({ sheet: 'Terms', rows: generated });
        expect((await ownReader(bytes)).rows).toEqual(expected(generated));
        checked += 1;
      }),
      { numRuns: runs(150) },
    );
    expect(checked).toBeGreaterThanOrEqual(150);
  });
});
