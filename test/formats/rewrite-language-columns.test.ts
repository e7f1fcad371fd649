// pull's writer of CSV and TSV files with language columns, on the spreadsheet exports of
// test/fixtures/real-files/text: the changed cell only (its quoting kept), a removed entry's cells
// emptied (the row gone when nothing is left in it), an added entry as a row in the file's
// dialect; the byte order mark, CRLF, a last line without a line break, notes with line breaks
// and the other columns as they were. The file read back holds the service's entries.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGlossary, pullInto, removeTemps } from './concepts-round-trip.js';

afterEach(removeTemps);

const TEXT = join(import.meta.dirname, '..', 'fixtures', 'real-files', 'text');
const resource = (file: string, languages: string, extra = ''): string => `kind: glossary\nname: T\nentries_file: ${file}\nlanguages: [${languages}]\n${extra}`;

async function roundTrip(file: string, languages: string, bytes: Buffer, live: Record<string, Record<string, string>>): Promise<string> {
  const out = await pullInto(resource(file, languages), file, bytes, live);
  expect(out.refused).toEqual([]);
  const again = await loadGlossary(resource(file, languages), file, Buffer.from(out.bytes));
  expect(again.errors).toEqual([]);
  for (const [pair, entries] of Object.entries(live)) expect(again.dictionaries[pair]).toEqual(entries);
  return Buffer.from(out.bytes).toString('utf8');
}

describe('pull writes into CSV and TSV files with language columns', () => {
  it('Excel "CSV UTF-8": a changed cell keeps its quoting, a removed entry empties its cell, an added entry is a row; BOM, CRLF and a note with a line break kept', async () => {
    const bytes = await readFile(join(TEXT, 'excel-csv-utf8.csv'));
    const { dictionaries } = await loadGlossary(resource('terms.csv', 'en, de, fr'), 'terms.csv', bytes);
    const de = { ...dictionaries['en-de'], '"Storm" shell jacket': '„Storm“-Jacke, winddicht', 'gift card': 'Geschenkkarte' } as Record<string, string>;
    delete de['sleeping bag'];
    const fr = { ...dictionaries['en-fr'], 'trail runner': 'chaussure "trail"' } as Record<string, string>;
    const after = await roundTrip('terms.csv', 'en, de, fr', bytes, { 'en-de': de, 'en-fr': fr });
    expect(after).toBe(
      '\uFEFFen,de,fr,Notes\r\n' +
        'sleeping bag,,sac de couchage,\r\n' +
        '"""Storm"" shell jacket","„Storm“-Jacke, winddicht",veste « Storm »,Product name in quotes\r\n' +
        '"down jacket, hooded",Daunenjacke mit Kapuze,doudoune à capuche,\r\n' +
        'trail runner,Trailschuh,"chaussure ""trail""","Line one\nline two of a note"\r\n' +
        'gift card,Geschenkkarte,,\r\n',
    );
  });

  it('Google Sheets CSV: no line break after the last row, a removed entry\'s row goes when nothing is left in it', async () => {
    const bytes = await readFile(join(TEXT, 'google-sheets.csv'));
    const after = await roundTrip('terms.csv', 'en, de', bytes, { 'en-de': { 'hiking boots': 'Wanderstiefel', 'rain cover, pack': 'Regenhülle, Rucksack' } });
    expect(after).toBe('en,de,Comment\r\nhiking boots,Wanderstiefel,\r\n"rain cover, pack","Regenhülle, Rucksack",comma inside');
    const kept = await roundTrip('terms.csv', 'en, de', bytes, { 'en-de': { 'hiking boots': 'Wanderschuhe', 'rain cover, pack': 'Regenhülle, Rucksack', 'multi-tool': 'Multiwerkzeug' } });
    expect(kept).toBe(bytes.toString('utf8').replace('multi-tool,Multitool,', 'multi-tool,Multiwerkzeug,'));
  });

  it('a semicolon CSV (found from its header row) and a TSV: the changed cell only', async () => {
    const csv = Buffer.from('Glossary export;;\r\n;;\r\nEN;DE;ID\r\ntent;Zelt;1\r\n"size; fit";Passform;2\r\n');
    expect(await roundTrip('terms.csv', 'en, de', csv, { 'en-de': { tent: 'Zelt', 'size; fit': 'Passform; Größe' } })).toBe(
      'Glossary export;;\r\n;;\r\nEN;DE;ID\r\ntent;Zelt;1\r\n"size; fit";"Passform; Größe";2\r\n',
    );
    const tsv = Buffer.from('id\ten\tde\tfr\n1\ttent\tZelt\ttente\n\n2\tstove\tKocher\tréchaud\n');
    expect(await roundTrip('terms.tsv', 'en, de, fr', tsv, { 'en-de': { tent: 'Zelt', stove: 'Campingkocher' }, 'en-fr': { tent: 'tente', stove: 'réchaud', map: 'carte' } })).toBe(
      'id\ten\tde\tfr\n1\ttent\tZelt\ttente\n\n2\tstove\tCampingkocher\tréchaud\n\tmap\t\tcarte\n',
    );
  });

  it('an added entry whose source is in exactly one row, empty in the languages added, fills that row\'s cells (quoted as needed, fields a short row lacks added); otherwise a row', async () => {
    const csv = Buffer.from('en,de,fr,Notes\r\n"invoice","",facture,paid\r\nreceipt,Quittung\r\ntax,,,first\r\ntax,,,second\r\n');
    const live = { 'en-de': { invoice: 'Rechnung', receipt: 'Quittung', tax: 'Steuer' }, 'en-fr': { invoice: 'facture', receipt: 'reçu, caisse' } };
    expect(await roundTrip('terms.csv', 'en, de, fr', csv, live)).toBe('en,de,fr,Notes\r\n"invoice","Rechnung",facture,paid\r\nreceipt,Quittung,"reçu, caisse"\r\ntax,,,first\r\ntax,,,second\r\ntax,Steuer,,\r\n');
    // Two dictionaries adding the same source: both terms in its one row, whose removed term leaves the source in place.
    const tsv = Buffer.from('en\tde\tfr\tes\ninvoice\tRechnung\t\t\nbag\tTasche\tsac\tbolsa\n');
    expect(await roundTrip('terms.tsv', 'en, de, fr, es', tsv, { 'en-de': { bag: 'Tasche' }, 'en-fr': { bag: 'sac', invoice: 'facture' }, 'en-es': { bag: 'bolsa', invoice: 'factura' } })).toBe(
      'en\tde\tfr\tes\ninvoice\t\tfacture\tfactura\nbag\tTasche\tsac\tbolsa\n',
    );
  });
});
