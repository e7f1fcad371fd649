import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyTimeout, runs } from '../helpers/properties.js';
import type { CellText } from '../../src/formats/common/collect-rows.js';
import { loadRepository } from '../../src/config/index.js';
import { ConceptCollector } from '../../src/formats/common/collect-concepts.js';
import { Interrupted } from '../../src/formats/common/interrupted.js';
import { readSheetRows, readWorkbook, Refused } from '../../src/formats/xlsx/read-workbook.js';
import type { Diagnostic } from '../../src/lib/diagnostics.js';
import { sheetXml, unzipParts, workbookBytes, workbookOfParts, zipBytes } from '../fixtures/build-files.js';
import { toolWorkbook } from '../fixtures/tool-workbooks.js';
import { exceljsSheetRows } from '../fixtures/exceljs-sheet-reader.js';

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Loads a repository whose one glossary reads `t.xlsx` (the given bytes) with the given options. */
async function load(bytes: Buffer, languages = 'en, de', extra = '') {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-xlsx-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), `kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [${languages}]\n${extra}`);
  await writeFile(path.join(dir, 'glossaries', 't.xlsx'), bytes);
  const result = await loadRepository({ dir, parallel: false });
  const glossary = result.desired?.glossaries[0];
  const dictionaries = Object.fromEntries((glossary?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
  return { diagnostics: result.diagnostics, dictionaries };
}

function shown(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file}:${d.cell ?? `${d.line}:${d.column}`} ${d.severity} ${d.code}`);
}

/** The rows the reader gives for a sheet: row number and the cells that hold a value (copied: the reader reuses them). */
async function rowsOf(bytes: Buffer, sheet?: string | number): Promise<{ sheet: string; rows: { row: number; cells: CellText[] }[] }> {
  const rows: { row: number; cells: CellText[] }[] = [];
  const name = await readSheetRows(bytes, sheet, (row, cells) => {
    rows.push({ row, cells: cells.map(({ text, column, problem }) => (problem === undefined ? { text, column } : { text, column, problem })) });
    return true;
  });
  return { sheet: name, rows };
}

const inline = (text: string, ref = ''): string => `<c${ref === '' ? '' : ` r="${ref}"`} t="inlineStr"><is><t>${text}</t></is></c>`;
const WORKBOOK_XML = '<workbook xmlns:r="r"><sheets><sheet name="Terms" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS_XML = '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>';
const SST = (items: string): string => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${items}</sst>`;

describe('workbook cells as Excel saves them', () => {
  it('reads shared strings once, concatenating rich-text runs and leaving phonetic guides out', async () => {
    const strings = SST(
      '<si><t>en</t></si><si><t>ja</t></si>' +
        '<si><r><rPr><b/><sz val="11"/></rPr><t>shopping</t></r><r><rPr><i/></rPr><t xml:space="preserve"> cart</t></r></si>' +
        '<si><t>買い物かご</t><rPh sb="0" eb="3"><t>カイモノカゴ</t></rPh><phoneticPr fontId="1"/></si>' +
        '<si><r><t>check</t></r><r><t>out</t></r><rPh sb="0" eb="1"><t>チェック</t></rPh></si><si><t>会計</t></si>',
    );
    const rows = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c></row><row r="3"><c r="A3" t="s"><v>4</v></c><c r="B3" t="s"><v>5</v></c></row>';
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }], sharedStrings: strings }), 'en, ja');
    expect(diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-ja': { 'shopping cart': '買い物かご', checkout: '会計' } });
  });

  it('reads inline strings, plain and rich, and strings (`t="str"`) as the text Excel shows, entities decoded once', async () => {
    const rows =
      `<row r="1">${inline('en', 'A1')}${inline('de', 'B1')}</row>` +
      `<row r="2">${inline('cart', 'A2')}<c r="B2" t="inlineStr"><is><r><rPr><b/></rPr><t>Waren</t></r><r><t>korb</t></r></is></c></row>` +
      '<row r="3"><c r="A3" t="str"><v>R&amp;amp;D</v></c><c r="B3" t="str"><v>F&amp;E &lt;intern&gt;</v></c></row>';
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }] }));
    expect(diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Warenkorb', 'R&amp;D': 'F&E <intern>' } });
  });

  it("decodes Excel's _xHHHH_ escapes in shared and inline strings, once, left to right (_x005F_ escapes the underscore)", async () => {
    const strings = SST('<si><t>en</t></si><si><t>de</t></si><si><t>gift_x0020_card</t></si><si><t>Geschenk_x005F_x0020_karte</t></si><si><t>line_x000D_break</t></si>');
    const rows =
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
      '<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c></row>' +
      `<row r="3">${inline('R_x0026_D', 'A3')}${inline('F_x0026_E', 'B3')}</row>` +
      `<row r="4">${inline('two lines', 'A4')}<c r="B4" t="s"><v>4</v></c></row>`;
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }], sharedStrings: strings }));
    // The carriage return Excel escaped is a line break inside a term: refused at its cell, as any other.
    expect(shown(diagnostics)).toContain('glossaries/t.xlsx:Terms!B4 error entries/tab-or-newline');
    expect(diagnostics.every((d) => d.cell === 'Terms!B4')).toBe(true);
    expect(dictionaries).toEqual({ 'en-de': { 'gift card': 'Geschenk_x0020_karte', 'R&D': 'F&E' } });
    const read = await rowsOf(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }], sharedStrings: strings }));
    expect(read.rows.slice(1).map((r) => r.cells.map((c) => c.text))).toEqual([
      ['gift card', 'Geschenk_x0020_karte'],
      ['R&D', 'F&E'],
      ['two lines', 'line\rbreak'],
    ]);
  });

  it('reads parts whose elements carry a namespace prefix (`x:row`, `x:si`) as it reads unprefixed ones', async () => {
    const ns = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const strings =
      `<?xml version="1.0" encoding="UTF-8"?>\n<x:sst ${ns}><x:si><x:t>en</x:t></x:si><x:si><x:t>ja</x:t></x:si>` +
      '<x:si><x:r><x:t>shopping</x:t></x:r><x:r><x:t xml:space="preserve"> cart</x:t></x:r></x:si>' +
      '<x:si><x:t>買い物かご</x:t><x:rPh sb="0" eb="3"><x:t>カイモノカゴ</x:t></x:rPh></x:si></x:sst>';
    const sheet =
      `<?xml version="1.0" encoding="UTF-8"?>\n<x:worksheet ${ns}><x:sheetData>` +
      '<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c><x:c r="B1" t="s"><x:v>1</x:v></x:c></x:row>' +
      '<x:row r="2"><x:c r="A2" t="s"><x:v>2</x:v></x:c><x:c r="B2" t="s"><x:v>3</x:v></x:c></x:row>' +
      '<x:row r="3"><x:c r="A3" t="inlineStr"><x:is><x:t>checkout</x:t><x:rPh><x:t>チェック</x:t></x:rPh></x:is></x:c><x:c r="B3"><x:f>1+1</x:f><x:v>2</x:v></x:c></x:row>' +
      '</x:sheetData></x:worksheet>';
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheet }], sharedStrings: strings }), 'en, ja');
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A3 warning entries/missing-term', 'glossaries/t.xlsx:Terms!B3 error entries/cell-value']);
    expect(diagnostics[1]?.message).toMatch(/^the cell holds a formula \(its saved value is "?2"?\)/);
    expect(dictionaries).toEqual({ 'en-ja': { 'shopping cart': '買い物かご' } });
  });

  it('places cells and rows without a reference after the previous one, and names their cells in diagnostics', async () => {
    const rows =
      `<row>${inline('en')}${inline('note')}${inline('de')}</row>` +
      `<row>${inline('cart')}${inline('web shop')}${inline('Wagen')}</row>` +
      `<row r="5">${inline('checkout')}<c t="e"><v>#N/A</v></c><c t="e"><v>#REF!</v></c></row>` +
      `<row>${inline('wish list', 'A6')}${inline('Wunschliste', 'C6')}</row>`;
    const book = await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }] });
    expect((await rowsOf(book)).rows.map((r) => [r.row, r.cells.map((c) => c.column)])).toEqual([
      [1, [1, 2, 3]],
      [2, [1, 2, 3]],
      [5, [1, 2, 3]],
      [6, [1, 3]],
    ]);
    const { diagnostics, dictionaries } = await load(book);
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A5 warning entries/missing-term', 'glossaries/t.xlsx:Terms!C5 error entries/cell-value']);
    expect(diagnostics[1]?.message).toBe('the cell holds the error value #REF!; format the column as Text (Format Cells › Text) and type the term again');
    // The error value in column B, a note column, does not count.
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen', 'wish list': 'Wunschliste' } });
  });

  it('reads sparse rows and cells: skipped rows, gaps between cells, empty styled cells', async () => {
    const rows =
      `<row r="2">${inline('en', 'B2')}${inline('de', 'D2')}</row>` +
      `<row r="4">${inline('cart', 'B4')}<c r="C4" s="1"/>${inline('Wagen', 'D4')}</row>` +
      `<row r="9"><c r="A9" s="1"/>${inline('Korb', 'D9')}</row>` +
      `<row r="12"><c r="B12" s="1"/></row>` +
      `<row r="40">${inline('checkout', 'B40')}${inline('Kasse', 'D40')}</row>`;
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(rows) }] }));
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A9 warning entries/missing-term']);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen', checkout: 'Kasse' } });
  });

  it('chooses a sheet by name or by position in tab order when several exist, whatever their parts are called', async () => {
    const notes = sheetXml(`<row r="1">${inline('read me', 'A1')}</row>`);
    const terms = sheetXml(`<row r="1">${inline('en', 'A1')}${inline('de', 'B1')}</row><row r="2">${inline('cart', 'A2')}${inline('Wagen', 'B2')}</row>`);
    const other = sheetXml(`<row r="1">${inline('en', 'A1')}${inline('de', 'B1')}</row><row r="2">${inline('bag', 'A2')}${inline('Tasche', 'B2')}</row>`);
    // Tab order: Notes, Q3 terms, Other; parts numbered otherwise, one target absolute.
    const book = await workbookOfParts({
      sheets: [
        { name: 'Notes', xml: notes, target: 'worksheets/sheet3.xml', part: 'xl/worksheets/sheet3.xml' },
        { name: 'Q3 terms', xml: terms, target: '/xl/worksheets/sheet1.xml', part: 'xl/worksheets/sheet1.xml' },
        { name: 'Other', xml: other, target: 'worksheets/sheet2.xml', part: 'xl/worksheets/sheet2.xml' },
      ],
    });
    for (const choice of ['"Q3 terms"', '2']) {
      const { diagnostics, dictionaries } = await load(book, 'en, de', `sheet: ${choice}\n`);
      expect(diagnostics).toEqual([]);
      expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
    }
    expect((await load(book, 'en, de', 'sheet: Other\n')).dictionaries).toEqual({ 'en-de': { bag: 'Tasche' } });
    // By default the first sheet in tab order; it names no language, so the next one that does is read, and named.
    const byDefault = await load(book);
    expect(shown(byDefault.diagnostics)).toEqual(["glossaries/t.xlsx:'Q3 terms'!A1 warning entries/sheet-chosen"]);
    expect(byDefault.diagnostics[0]?.message).toBe('read the sheet "Q3 terms", the first worksheet that names a declared language in its first 10 rows ("Notes" does not); set `sheet` to read another');
    expect(byDefault.dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
    // A sheet named or a header row given: no other sheet is tried.
    expect(shown((await load(book, 'en, de', 'sheet: Notes\n')).diagnostics)).toEqual(['glossaries/t.xlsx:Notes!A1 error entries/no-header-row']);
    expect(shown((await load(book, 'en, de', 'header_row: 1\n')).diagnostics)).toEqual(['glossaries/t.xlsx:Notes!A1 error entries/missing-language-column']);
    const missing = await load(book, 'en, de', 'sheet: q3 terms\n');
    expect(shown(missing.diagnostics)).toEqual(['glossaries/t.xlsx:1:1 error entries/no-such-sheet']);
    expect(missing.diagnostics[0]?.message).toBe('the workbook has no sheet "q3 terms" (did you mean "Q3 terms"? sheet names are matched exactly); its sheets: "Notes", "Q3 terms", "Other"');
  });

  it('reads an integer in the General format as its digits, and refuses decimals, large numbers, booleans and dates, saying to format the column as Text', async () => {
    const book = await workbookBytes({ Terms: [['en', 'de'], ['2024', 2024], ['one and a half', 1.5], ['tiny', 0.000001], ['big', 123456789012345680], ['yes', true as unknown as string], ['launch', new Date(Date.UTC(2024, 0, 1)) as unknown as string]] });
    const mine = await rowsOf(book);
    expect(mine.rows.slice(1).map((r) => r.cells[1]?.text ?? '')).toEqual(['2024', '', '', '', '', '']);
    const fix = 'format the column as Text (Format Cells › Text) and type the term again';
    expect(mine.rows.slice(2).map((r) => r.cells[1]?.problem)).toEqual([
      `the cell holds the number 1.5, which Excel shows with the decimal separator of the reader's locale (a point or a comma); ${fix} as it should read`,
      `the cell holds the number 0.000001, which Excel shows with the decimal separator of the reader's locale (a point or a comma); ${fix} as it should read`,
      `the cell holds the number 123456789012345680, which Excel shows in scientific notation (and keeps only 15 digits of); ${fix}`,
      `the cell holds the boolean TRUE, not text (Excel turns a typed true or false into one); ${fix}`,
      `the cell holds a date or time (2024-01-01), not text: Excel stores it as the number 45292 with the format "mm-dd-yy", and turns a term that looks like a date into one; ${fix}`,
    ]);
  });
});

/** A header row of the languages en and de. */
const header = `<row r="1">${inline('en', 'A1')}${inline('de', 'B1')}</row>`;

describe('hostile or broken workbooks are refused, located, and nothing of them is used', () => {
  const body = `<row r="2">${inline('cart', 'A2')}${inline('Wagen', 'B2')}</row>`;
  const LAUGHS = '<!DOCTYPE worksheet [<!ENTITY a "haha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>';

  it.each([
    ['entity expansion in a sheet', { sheets: [{ name: 'Terms', xml: sheetXml(header + body).replace('\n', `\n${LAUGHS}\n`).replace('cart', '&c;') }] }, 'entries/xml-doctype', 'part xl/worksheets/sheet1.xml has a document type declaration'],
    [
      'an external entity in the shared strings',
      { sheets: [{ name: 'Terms', xml: sheetXml(`${header}<row r="2"><c r="A2" t="s"><v>0</v></c>${inline('Wagen', 'B2')}</row>`) }], sharedStrings: SST('<si><t>&x;</t></si>').replace('\n', '\n<!DOCTYPE sst [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n') },
      'entries/xml-doctype',
      'part xl/sharedStrings.xml has a document type declaration',
    ],
    [
      'a DOCTYPE in the workbook part',
      { sheets: [{ name: 'Terms', xml: sheetXml(header + body) }], workbook: '<?xml version="1.0"?><!DOCTYPE workbook><workbook xmlns:r="r"><sheets><sheet name="Terms" sheetId="1" r:id="rId1"/></sheets></workbook>' },
      'entries/xml-doctype',
      'part xl/workbook.xml has a document type declaration',
    ],
    ['an entity that is not declared', { sheets: [{ name: 'Terms', xml: sheetXml(header + body.replace('cart', '&secret;')) }] }, 'entries/malformed-workbook', 'part xl/worksheets/sheet1.xml is not well-formed XML (line 2, column'],
    ['a sheet cut short', { sheets: [{ name: 'Terms', xml: sheetXml(header + body).slice(0, -40) }] }, 'entries/malformed-workbook', 'part xl/worksheets/sheet1.xml is not well-formed XML (line 2'],
    ['a cell reference that is not one', { sheets: [{ name: 'Terms', xml: sheetXml(header + body.replace('r="A2"', 'r="2A"')) }] }, 'entries/malformed-workbook', 'part xl/worksheets/sheet1.xml: a cell\'s reference (r="2A") is not a cell reference'],
    [
      'a sheet whose part is missing',
      { sheets: [{ name: 'Terms', xml: sheetXml(header + body), target: 'worksheets/sheet7.xml' }] },
      'entries/malformed-workbook',
      'the workbook\'s sheet "Terms" refers to the part xl/worksheets/sheet7.xml, which the zip container does not hold',
    ],
  ])('%s', async (_, parts, code, message) => {
    const { diagnostics, dictionaries } = await load(await workbookOfParts(parts));
    expect(shown(diagnostics)).toEqual([`glossaries/t.xlsx:1:1 error ${code}`]);
    expect(diagnostics[0]?.message).toContain(message);
    expect(Object.values(dictionaries).flatMap((entries) => Object.keys(entries))).toEqual([]);
  });

  it('refuses a sheet that is not UTF-8', async () => {
    const latin1 = Buffer.from(sheetXml(header + body.replace('Wagen', 'Gep\u00e4ck')), 'latin1');
    const { diagnostics } = await load(await zipBytes({ 'xl/workbook.xml': WORKBOOK_XML, 'xl/_rels/workbook.xml.rels': RELS_XML, 'xl/worksheets/sheet1.xml': latin1 }));
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:1:1 error entries/malformed-workbook']);
    expect(diagnostics[0]?.message).toMatch(/^part xl\/worksheets\/sheet1\.xml is not valid UTF-8 \(byte \d+\) \(line 2, column \d+\)$/);
  });

  it.each([
    ['a formula whose saved value is 0', '<c r="B2"><f>1-1</f><v>0</v></c>', 'the cell holds a formula (its saved value is "0")'],
    ['a formula, shared, with a saved value', '<c r="B2" t="str"><f t="shared" si="0"/><v>Wagen</v></c>', 'the cell holds a formula (its saved value is "Wagen"): formulas are never evaluated'],
    ['a formula without a saved value', '<c r="B2"><f>1+1</f></c>', 'the cell holds a formula (it has no saved value)'],
    ['an ISO date cell', '<c r="B2" t="d"><v>2024-01-01T00:00:00Z</v></c>', 'the cell holds a date ("2024-01-01T00:00:00Z"), not text; format the column as Text'],
    ['an error value', '<c r="B2" t="e"><v>#DIV/0!</v></c>', 'the cell holds the error value #DIV/0!; format the column as Text'],
    ['a boolean', '<c r="B2" t="b"><v>1</v></c>', 'the cell holds the boolean TRUE, not text (Excel turns a typed true or false into one); format the column as Text'],
    ['a shared string the workbook does not hold', '<c r="B2" t="s"><v>7</v></c>', 'the cell refers to shared string "7", which the workbook does not hold'],
  ])('refuses %s in a language column, naming its cell', async (_, cell, message) => {
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(`${header}<row r="2">${inline('cart', 'A2')}${cell}</row>`) }] }));
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A2 warning entries/missing-term', 'glossaries/t.xlsx:Terms!B2 error entries/cell-value']);
    expect(diagnostics[1]?.message).toContain(message);
    expect(Object.values(dictionaries).flatMap((entries) => Object.keys(entries))).toEqual([]);
  });

  /** The workbook with the declared size of its part `name` changed (zip directory and local header alike). */
  function declaring(book: Buffer, name: string, size: (actual: number) => number): Buffer {
    const fileName = Buffer.from(name);
    const central = book.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), book.lastIndexOf(fileName));
    const local = book.lastIndexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), book.indexOf(fileName));
    const tampered = Buffer.from(book);
    tampered.writeUInt32LE(size(book.readUInt32LE(central + 24)), central + 24);
    if (tampered.readUInt32LE(local + 22) !== 0) tampered.writeUInt32LE(size(book.readUInt32LE(local + 22)), local + 22);
    return tampered;
  }

  // Rows with problems of their own, read before the sheet turns out larger or smaller than declared.
  const troubled = Array.from({ length: 3000 }, (_, i) => `<row r="${i + 2}">${inline(`term ${i}`, `A${i + 2}`)}${i % 2 === 0 ? '<c t="e"><v>#N/A</v></c>' : ''}</row>`).join('');

  it.each([
    ['more', (actual: number) => actual - 1000, 'entries/workbook-too-large', /^part xl\/worksheets\/sheet1\.xml inflates to more than the \d+ bytes it declares \(a zip bomb, or a tampered file\): refused$/],
    ['fewer', (actual: number) => actual + 1000, 'entries/malformed-workbook', /^part xl\/worksheets\/sheet1\.xml inflates to \d+ bytes, not the \d+ it declares$/],
  ])('refuses a sheet that inflates to %s bytes than it declares, once its rows were read: nothing of them is reported or used', async (_, size, code, message) => {
    const book = declaring(await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(header + troubled) }] }), 'xl/worksheets/sheet1.xml', size);
    const { diagnostics, dictionaries } = await load(book);
    expect(diagnostics.map((d) => d.code)).toEqual([code]);
    expect(diagnostics[0]?.message).toMatch(message);
    expect(Object.values(dictionaries).flatMap((entries) => Object.keys(entries))).toEqual([]);
  });

  it('reads a large sheet in pieces: characters cut between two pieces, and a byte order mark, read whole', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `<row r="${i + 2}">${inline(`語 ${i} ü`, `A${i + 2}`)}${inline(`😀 ${i} ß`, `B${i + 2}`)}</row>`).join('');
    const xml = `\ufeff${sheetXml(header + rows)}`;
    expect(Buffer.byteLength(xml)).toBeGreaterThan(4 * 64 * 1024);
    const { diagnostics, dictionaries } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml }] }));
    expect(diagnostics).toEqual([]);
    const entries = dictionaries['en-de'] ?? {};
    expect(Object.keys(entries)).toHaveLength(4000);
    expect(Object.entries(entries).every(([en, de]) => /^語 (\d+) ü$/.test(en) && de === `😀 ${en.split(' ')[1]} ß`)).toBe(true);
  });

  it('refuses a chart sheet as the chosen sheet, and passes over it by default', async () => {
    const workbook = '<workbook xmlns:r="r"><sheets><sheet name="Chart" sheetId="1" r:id="rIdC"/><sheet name="Terms" sheetId="2" r:id="rId1"/></sheets></workbook>';
    const rels =
      '<Relationships><Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet" Target="chartsheets/sheet1.xml"/><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>';
    const book = await zipBytes({ 'xl/workbook.xml': workbook, 'xl/_rels/workbook.xml.rels': rels, 'xl/chartsheets/sheet1.xml': '<chartsheet/>', 'xl/worksheets/sheet1.xml': sheetXml(header + body) });
    const { diagnostics } = await load(book, 'en, de', 'sheet: Chart\n');
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([['entries/no-such-sheet', 'the workbook\'s sheet "Chart" is a chartsheet, not a worksheet of cells; its sheets: "Chart", "Terms"']]);
    expect((await load(book, 'en, de', 'sheet: Terms\n')).dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
    // By default the first worksheet: a chart sheet holds no cells to read.
    expect(await load(book)).toEqual({ diagnostics: [], dictionaries: { 'en-de': { cart: 'Wagen' } } });
  });

  it('reports a refusal by the reader as the Refused error, with its rule id', async () => {
    const book = await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(header) }] });
    await expect(readSheetRows(book, 'Nope', () => true)).rejects.toBeInstanceOf(Refused);
    await expect(readSheetRows(book, 'Nope', () => true)).rejects.toMatchObject({ code: 'entries/no-such-sheet' });
  });
});

// Workbooks as exceljs writes them (shared strings; or, from its streaming writer, strings and rich
// text inline): the reader must see exactly the cells the previous reader (exceljs's own) saw.
describe('agrees with the previous reader on workbooks exceljs writes (property)', () => {
  // Text without `&name;` runs: the previous reader decoded entities in inline strings a second time.
  const text = fc
    .array(fc.constantFrom('a', 'B', 'z', '0', '7', ' ', '-', '.', '&', '<', '>', '"', "'", 'é', 'ß', 'Ω', '日本', '😀', '\u00a0', 'en', 'de'), { maxLength: 8 })
    .map((parts) => parts.join(''))
    .filter((t) => !/&[a-z]*;/.test(t));
  // Rich text is left out of workbooks without shared strings: the previous reader kept only the
  // last run of an inline rich-text string (the test above checks that all runs count).
  const cell = (shared: boolean) => fc.oneof(
    { weight: 5, arbitrary: text },
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }),
    fc.boolean(),
    fc.constant(null),
    fc.date({ min: new Date(Date.UTC(1950, 0, 1)), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true }),
    // A saved value of 0 or "": the previous reader took it for none (the message differs, the cell is refused alike).
    fc.record({ formula: fc.constantFrom('A1', 'CONCAT("a","b")', '1+1'), result: fc.oneof(text.filter((t) => t !== ''), fc.integer().filter((n) => n !== 0)) }),
    fc.array(text, { minLength: 1, maxLength: shared ? 3 : 1 }).map((runs) => ({ richText: runs.map((t, i) => (i % 2 === 0 ? { text: t } : { text: t, font: { bold: true } })) })),
    fc.constantFrom({ error: '#N/A' }, { error: '#DIV/0!' }),
    text.map((t) => ({ text: t, hyperlink: 'https://example.com/terms' })),
  );
  const sheet = (shared: boolean) => fc.uniqueArray(fc.record({ number: fc.integer({ min: 1, max: 40 }), cells: fc.array(cell(shared), { maxLength: 6 }) }), { selector: (r) => r.number, maxLength: 8 });
  const book = (shared: boolean) =>
    fc.uniqueArray(fc.tuple(fc.constantFrom('Terms', 'Sheet1', 'Q3 terms', 'Übersicht', "it's", 'Glossar (neu)'), sheet(shared)), { selector: ([name]) => name, minLength: 1, maxLength: 3 });
  const choice = fc.option(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.constantFrom('Terms', 'Q3 terms', 'Übersicht', 'nope')), { nil: undefined });

  async function write(sheets: [string, { number: number; cells: unknown[] }[]][], shared: boolean): Promise<Buffer> {
    const fill = (target: ExcelJS.Worksheet, rows: { number: number; cells: unknown[] }[]): void => {
      for (const row of [...rows].sort((a, b) => a.number - b.number)) {
        const line = target.getRow(row.number);
        row.cells.forEach((value, i) => {
          if (value !== null) line.getCell(i + 1).value = value as ExcelJS.CellValue;
        });
        line.commit();
      }
    };
    if (shared) {
      const workbook = new ExcelJS.Workbook();
      for (const [name, rows] of sheets) fill(workbook.addWorksheet(name), rows);
      return Buffer.from(await workbook.xlsx.writeBuffer());
    }
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false });
    for (const [name, rows] of sheets) {
      const target = writer.addWorksheet(name);
      fill(target, rows);
      target.commit();
    }
    await writer.commit();
    return Buffer.concat(chunks);
  }

  /**
   * The previous reader's cells as this reader reads them: the same text, except the cells it
   * took as text that this one refuses (by the value written: a boolean, a date, a number that is
   * not an integer of at most 11 digits), and the fix added to the message of an error value.
   */
  function asReadNow(previous: { sheet: string; rows: { row: number; cells: CellText[] }[] }, sheets: [string, { number: number; cells: unknown[] }[]][]): typeof previous {
    const written = sheets.find(([name]) => name === previous.sheet)?.[1] ?? [];
    const fix = 'format the column as Text (Format Cells › Text) and type the term again';
    return {
      sheet: previous.sheet,
      rows: previous.rows.map(({ row, cells }) => ({
        row,
        cells: cells.map((cell) => {
          const value = written.find((r) => r.number === row)?.cells[cell.column - 1];
          if (typeof value === 'boolean') return { text: '', column: cell.column, problem: `the cell holds the boolean ${value ? 'TRUE' : 'FALSE'}, not text (Excel turns a typed true or false into one); ${fix}` };
          if (value instanceof Date) return { text: '', column: cell.column, problem: expect.stringMatching(/^the cell holds a date or time \(\d{4}-\d\d-\d\d( \d\d:\d\d)?\), not text: Excel stores it as the number [\d.]+ with the format "mm-dd-yy"/) as string };
          if (typeof value === 'number' && !(Number.isInteger(value) && Math.abs(value) < 1e11)) return { text: '', column: cell.column, problem: expect.stringMatching(/^the cell holds the number \S+, which Excel shows with the decimal separator/) as string };
          if (cell.problem?.startsWith('the cell holds the error value') === true) return { ...cell, problem: `${cell.problem}; ${fix}` };
          return cell;
        }),
      })),
    };
  }

  it('gives the same sheet and the same cells, row by row, or refuses the same missing sheet', async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean().chain((shared) => fc.tuple(fc.constant(shared), book(shared))), choice, async ([shared, sheets], wanted) => {
        const bytes = await write(sheets, shared);
        const previous = await exceljsSheetRows(bytes, wanted);
        if (previous === undefined) {
          await expect(readSheetRows(bytes, wanted, () => true)).rejects.toMatchObject({ code: 'entries/no-such-sheet' });
          return;
        }
        expect(await rowsOf(bytes, wanted)).toEqual(asReadNow(previous, sheets));
      }),
      { numRuns: runs(40) },
    );
  }, propertyTimeout(60_000));
});

// Number cells through their number format (xl/styles.xml), as each tool writes the styles.
describe('number formats as Excel, openpyxl and LibreOffice write them', () => {
  const DATES = [14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 30, 36, 45, 46, 47, 50, 57, 58];
  const OTHERS = [2, 3, 4, 9, 10, 11, 12, 13, 37, 38, 39, 40, 48];

  it.each(['excel', 'openpyxl', 'libreoffice'] as const)('%s: built-in date and time formats (14–22, 45–47, East Asian 27–36 and 50–58) are dates; other built-ins are formats; General, 0 and @ give an integer\'s digits', async (tool) => {
    const cells: [number | string, number][] = [...DATES.map((id) => [id, 45413] as [number, number]), ...OTHERS.map((id) => [id, 7] as [number, number]), [0, 2024], [1, 2024], [49, 2024]];
    const book = await toolWorkbook(tool, [{ name: 'Terms', rows: [['en', 'de'], ...cells.map(([format, number], i) => [`term ${i}`, { number, format }])] }]);
    const { rows } = await rowsOf(book);
    const read = rows.slice(1).map((r) => r.cells[1]?.problem?.replace(/^the cell holds (a date or time|the number \S+ shown with the number format) .*$/, '$1') ?? r.cells[1]?.text);
    expect(read).toEqual([...DATES.map(() => 'a date or time'), ...OTHERS.map(() => 'the number 7 shown with the number format'), '2024', '2024', '2024']);
  });

  it.each([
    ['yyyy-mm-dd', 'date'],
    ['DD.MM.YYYY', 'date'],
    ['d/m/yy;@', 'date'],
    ['[$-409]d-mmm-yy;@', 'date'],
    ['[$-F800]dddd, mmmm dd, yyyy', 'date'],
    ['h:mm AM/PM', 'date'],
    ['[h]:mm', 'date'],
    ['mm:ss.0', 'date'],
    ['yyyy-mm-dd h:mm:ss', 'date'],
    ['General', 'text'],
    ['0', 'text'],
    ['@', 'text'],
    ['0.00', 'format'],
    ['#,##0', 'format'],
    ['00000', 'format'],
    ['"Model "0', 'format'],
    ['[Red]0.00;[Blue]-0.00', 'format'],
    ['0%', 'format'],
    ['#,##0 [$€-407]', 'format'],
    ['"Day "0', 'format'],
  ])('the custom format %s reads 44927 as %s', async (code, kind) => {
    const book = await toolWorkbook('excel', [{ name: 'Terms', rows: [['en', 'de'], ['term', { number: 44927, format: code }]] }]);
    const cell = (await rowsOf(book)).rows[1]?.cells[1];
    if (kind === 'text') expect(cell).toEqual({ text: '44927', column: 2 });
    else if (kind === 'date') expect(cell?.problem).toMatch(/^the cell holds a date or time \(2023-01-01( \d\d:\d\d)?\), not text/);
    else expect(cell?.problem).toBe(`the cell holds the number 44927 shown with the number format ${JSON.stringify(code)}, whose text termsync does not reproduce (it depends on the format and the locale); format the column as Text (Format Cells › Text) and type the term again`);
  });

  it.each([
    [1, '1900-01-01'],
    [59, '1900-02-28'],
    [60, '1900-02-29'],
    [61, '1900-03-01'],
    [45413.75, '2024-05-01 18:00'],
    [0.25, '06:00'],
  ])('shows the serial %s as Excel does (%s), 1900 date system and its leap day included', async (serial, shown) => {
    const book = await toolWorkbook('excel', [{ name: 'Terms', rows: [['en', 'de'], ['term', { number: serial, format: 22 }]] }]);
    expect((await rowsOf(book)).rows[1]?.cells[1]?.problem).toContain(`holds a date or time (${shown})`);
  });

  it('counts dates from 1904 in a workbook that says so', async () => {
    const book = await workbookOfParts({
      sheets: [{ name: 'Terms', xml: sheetXml(`${header}<row r="2">${inline('term', 'A2')}<c r="B2" s="1"><v>0</v></c></row>`) }],
      workbook: '<workbook xmlns:r="r"><workbookPr date1904="1"/><sheets><sheet name="Terms" sheetId="1" r:id="rId1"/></sheets></workbook>',
    });
    const styles = '<styleSheet><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>';
    const withStyles = await zipBytes({ ...Object.fromEntries(await unzipParts(book)), 'xl/styles.xml': styles });
    expect((await rowsOf(withStyles)).rows[1]?.cells[1]?.problem).toContain('holds a date or time (1904-01-01)');
  });
});

describe('what a workbook expands to is bounded', () => {
  it('stops at the cell where the language columns pass 10 MiB of text (one long shared string in every row), located', async () => {
    const long = 'x'.repeat(1024 * 1024);
    const rows = Array.from({ length: 40 }, (_, i) => `<row r="${i + 2}"><c r="A${i + 2}" t="s"><v>0</v></c><c r="B${i + 2}" t="s"><v>0</v></c></row>`).join('');
    const book = await workbookOfParts({ sheets: [{ name: 'Terms', xml: sheetXml(header + rows) }], sharedStrings: SST(`<si><t>${long}</t></si>`) });
    const { diagnostics, dictionaries } = await load(book);
    const errors = diagnostics.filter((d) => d.code === 'entries/too-much-text');
    expect(errors.map((d) => d.cell)).toEqual(['Terms!A7']);
    expect(errors[0]?.message).toBe(
      'the language columns hold more than 10485760 characters by this cell, the limit of the text of any entries file (10 MiB), so reading stopped here (a workbook repeating a long shared string expands to far more than its size)',
    );
    expect(Object.values(dictionaries).flatMap((entries) => Object.keys(entries))).toEqual([]);
  });

  it('refuses a sheet nested deeper than the XML of a workbook needs, naming the part', async () => {
    const deep = sheetXml(`${header}<row r="2">${'<x>'.repeat(70)}${'</x>'.repeat(70)}</row>`);
    const { diagnostics } = await load(await workbookOfParts({ sheets: [{ name: 'Terms', xml: deep }] }));
    expect(diagnostics.map((d) => [d.code, d.message.replace(/\(line \d+, column \d+\)/, '(…)')])).toEqual([['entries/xml-too-deep', 'part xl/worksheets/sheet1.xml nests elements more than 64 deep (…): a workbook needs a few levels; refused']]);
  });

  it('passes a load\'s interruption on, never reporting it as a broken workbook', async () => {
    const book = await workbookBytes({ Terms: [['en', 'de'], ['cart', 'Wagen']] });
    const collector = new ConceptCollector('t.xlsx', [], [{ sourceLang: 'en', targetLang: 'de' }], ['en', 'de'], 'row', 'row');
    const diagnostics: Diagnostic[] = [];
    await expect(
      readWorkbook(book, 't.xlsx', collector, ['en', 'de'], {}, diagnostics, () => {
        throw new Interrupted();
      }),
    ).rejects.toBeInstanceOf(Interrupted);
    expect(diagnostics).toEqual([]);
  });

  it('tells a sheet that names no language from a workbook where no sheet does', async () => {
    const book = await toolWorkbook('libreoffice', [
      { name: 'README', rows: [['Read me']] },
      { name: 'Notes', rows: [['nothing', 'here']] },
    ]);
    const { diagnostics } = await load(book);
    expect(shown(diagnostics)).toEqual(['glossaries/t.xlsx:README!A1 error entries/no-header-row']);
    expect(diagnostics[0]?.message).toBe('no worksheet ("README", "Notes") names a declared language (en, de) in its first 10 rows: the header row gives each language column its code (e.g. en, de, fr); set `sheet` and `header_row` if it is further down');
  });
});
