// pull's workbook writer on the workbooks of test/e2e/real-files.test.ts (as Excel, openpyxl and
// LibreOffice write them): the changed cell becomes an inline string (its style kept), a removed
// entry's cells are emptied (the row goes when nothing is left in it), an added entry is a row after
// the last one; every other part of the package has the same content, name and order, and in the
// sheet only those cells and rows differ. The file read back holds the service's entries.
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkbook } from '../../src/formats/xlsx/create-workbook.js';
import { inflatePart, listEntries, localHeader, openZip } from '../../src/formats/xlsx/zip-parts.js';
import { toolWorkbook, type Tool } from '../fixtures/tool-workbooks.js';
import { loadGlossary, pullInto, removeTemps } from './concepts-round-trip.js';

afterEach(removeTemps);

const resource = (languages: string, extra = ''): string => `kind: glossary\nname: T\nentries_file: terms.xlsx\nlanguages: [${languages}]\n${extra}`;

/** Every part of a workbook, in container order: name, stored or deflated, content. */
async function parts(bytes: Buffer): Promise<{ name: string; method: number; content: string }[]> {
  const zip = await openZip(bytes);
  try {
    const out: { name: string; method: number; content: string }[] = [];
    for (const entry of await listEntries(zip)) out.push({ name: entry.fileName, method: entry.compressionMethod, content: inflatePart(bytes, (await localHeader(zip, entry)).fileDataStart, entry).toString('utf8') });
    return out;
  } finally {
    zip.close();
  }
}

describe('pull writes into workbooks', () => {
  it.each(['excel', 'openpyxl', 'libreoffice'] as Tool[])('%s: a changed cell, a removed entry and an added one; every other part as it was', async (tool) => {
    const bytes = await toolWorkbook(tool, [
      { name: 'README', rows: [['How to use this glossary']] },
      { name: 'Terms', merges: ['A1:C1'], rows: [['Outdoor glossary'], [], ['en', 'de', 'Notes'], ['tent', 'Zelt', 'checked'], ['stove', 'Kocher'], ['compass', 'Kompass', { formula: 'LEN(A6)', cached: 7 }]] },
    ]);
    const out = await pullInto(resource('en, de'), 'terms.xlsx', bytes, { 'en-de': { tent: 'Zelt & Plane', compass: 'Kompass', 'gift card': 'Geschenkkarte' } });
    expect(out.refused).toEqual([]);
    const written = Buffer.from(out.bytes);
    const again = await loadGlossary(resource('en, de'), 'terms.xlsx', written);
    expect(again.errors).toEqual([]);
    expect(again.dictionaries['en-de']).toEqual({ tent: 'Zelt & Plane', compass: 'Kompass', 'gift card': 'Geschenkkarte' });

    const before = await parts(bytes);
    const after = await parts(written);
    expect(after.map((p) => [p.name, p.method])).toEqual(before.map((p) => [p.name, p.method]));
    const sheet = 'xl/worksheets/sheet2.xml';
    expect(after.filter((p) => p.name !== sheet)).toEqual(before.filter((p) => p.name !== sheet));
    const old = before.find((p) => p.name === sheet)?.content as string;
    const style = tool === 'libreoffice' ? ' s="1"' : '';
    const cell = (ref: string): string => (/<c r="REF"[^>]*>.*?<\/c>/.exec(old.replace(`<c r="${ref}"`, '<c r="REF"'))?.[0] ?? '').replace('REF', ref);
    const row5 = /<row r="5"[^>]*>.*?<\/row>/.exec(old)?.[0] as string;
    const expected = old
      .replace(cell('B4'), `<c r="B4"${style} t="inlineStr"><is><t xml:space="preserve">Zelt &amp; Plane</t></is></c>`)
      .replace(row5, '')
      .replace('</sheetData>', `<row r="7"><c r="A7"${style} t="inlineStr"><is><t xml:space="preserve">gift card</t></is></c><c r="B7"${style} t="inlineStr"><is><t xml:space="preserve">Geschenkkarte</t></is></c></row></sheetData>`)
      .replace('<dimension ref="A1:C6"/>', '<dimension ref="A1:C7"/>');
    expect(after.find((p) => p.name === sheet)?.content).toBe(expected);
  });

  it('empties the removed term\'s cell and keeps the row when another column still holds something', async () => {
    const bytes = await toolWorkbook('excel', [{ name: 'Terms', rows: [['en', 'de', 'fr'], ['tent', 'Zelt', 'tente'], ['stove', 'Kocher', 'réchaud']] }]);
    const out = await pullInto(resource('en, de, fr'), 'terms.xlsx', bytes, { 'en-de': { tent: 'Zelt' } });
    const again = await loadGlossary(resource('en, de, fr'), 'terms.xlsx', Buffer.from(out.bytes));
    expect(again.dictionaries).toEqual({ 'en-de': { tent: 'Zelt' }, 'en-fr': { tent: 'tente', stove: 'réchaud' } });
    const sheet = (await parts(Buffer.from(out.bytes))).find((p) => p.name === 'xl/worksheets/sheet1.xml')?.content;
    expect(sheet).toContain('<row r="3" spans="1:3"><c r="A3" t="s"><v>6</v></c><c r="B3"/><c r="C3" t="s"><v>8</v></c></row>');
  });

  it('keeps a row whose other cell holds a formula, emptying only the terms', async () => {
    const bytes = await toolWorkbook('excel', [{ name: 'Terms', rows: [['en', 'de', 'Length'], ['tent', 'Zelt'], ['compass', 'Kompass', { formula: 'LEN(A3)', cached: 7 }]] }]);
    const out = await pullInto(resource('en, de'), 'terms.xlsx', bytes, { 'en-de': { tent: 'Zelt' } });
    expect(out.refused).toEqual([]);
    const sheet = (await parts(Buffer.from(out.bytes))).find((p) => p.name === 'xl/worksheets/sheet1.xml')?.content;
    expect(sheet).toContain('<row r="3" spans="1:3"><c r="A3"/><c r="B3"/><c r="C3"><f>LEN(A3)</f><v>7</v></c></row>');
  });

  it.each(['excel', 'libreoffice'] as Tool[])('%s: an added entry whose source is in exactly one row, empty in the languages added, fills that row (an empty cell keeps its style, a missing one is added in column order, styled as its column); otherwise a row', async (tool) => {
    const rows = [['en', 'de', 'fr', 'Notes'], ['invoice', '', 'facture'], ['receipt', null, null, 'paper'], ['tax', 'Steuer'], ['tax']];
    const bytes = await toolWorkbook(tool, [{ name: 'Terms', rows }]);
    const live = { 'en-de': { invoice: 'Rechnung', receipt: 'Quittung & Beleg', tax: 'Steuer' }, 'en-fr': { invoice: 'facture', receipt: 'reçu', tax: 'taxe' } };
    const out = await pullInto(resource('en, de, fr'), 'terms.xlsx', bytes, live);
    expect(out.refused).toEqual([]);
    const again = await loadGlossary(resource('en, de, fr'), 'terms.xlsx', Buffer.from(out.bytes));
    expect(again.errors).toEqual([]);
    expect(again.dictionaries).toEqual(live);
    const sheet = 'xl/worksheets/sheet1.xml';
    const old = (await parts(bytes)).find((p) => p.name === sheet)?.content as string;
    const style = tool === 'libreoffice' ? ' s="1"' : '';
    const inline = (ref: string, text: string): string => `<c r="${ref}"${style} t="inlineStr"><is><t xml:space="preserve">${text}</t></is></c>`;
    const cell = (ref: string): string => (new RegExp(`<c r="${ref}"[^>]*>.*?</c>`).exec(old)?.[0] ?? '');
    // "tax" is in two rows: its fr term is a new row.
    const expected = old
      .replace(cell('B2'), inline('B2', 'Rechnung'))
      .replace(cell('D3'), `${inline('B3', 'Quittung &amp; Beleg')}${inline('C3', 'reçu')}${cell('D3')}`)
      // (A new row's cells are styled as the last row's, which has no C.)
      .replace('</sheetData>', `<row r="6">${inline('A6', 'tax')}${inline('C6', 'taxe').replace(style, '')}</row></sheetData>`)
      .replace('<dimension ref="A1:D5"/>', '<dimension ref="A1:D6"/>');
    expect((await parts(Buffer.from(out.bytes))).find((p) => p.name === sheet)?.content).toBe(expected);
  });

  it('a cell added to a row of terms is styled as the terms of its column, not as the header row (a workbook `import` wrote, its header bold)', async () => {
    const bytes = await createWorkbook({ sheet: 'Terms', rows: [['en', 'de', 'fr'], ['invoice', 'Rechnung', null], ['receipt', 'Quittung', 'reçu']] });
    const old = (await parts(bytes)).find((p) => p.name === 'xl/worksheets/sheet1.xml')?.content as string;
    expect(old).toMatch(/<c r="C1" s="1"/);
    const out = await pullInto(resource('en, de, fr'), 'terms.xlsx', bytes, { 'en-fr': { receipt: 'reçu', invoice: 'facture' } });
    expect(out.refused).toEqual([]);
    const sheet = (await parts(Buffer.from(out.bytes))).find((p) => p.name === 'xl/worksheets/sheet1.xml')?.content as string;
    const row2 = /<row r="2"[^>]*>.*?<\/row>/.exec(old)?.[0] as string;
    expect(sheet).toBe(old.replace(row2, row2.replace('</row>', '<c r="C2" t="inlineStr"><is><t xml:space="preserve">facture</t></is></c></row>')));
  });
});
