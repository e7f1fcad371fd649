import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';
import type { Diagnostic } from '../../src/lib/diagnostics.js';
import { asExcelLaysOut, workbookBomb, workbookBytes, zipBytes } from '../fixtures/build-files.js';

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A repository with one glossary resource (`glossaries/g.yaml`) and the given files under `glossaries/`. */
async function load(resource: string, files: Record<string, string | Buffer>) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-multi-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), resource);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, 'glossaries', name), content);
  const result = await loadRepository({ dir, parallel: false });
  const glossary = result.desired?.glossaries[0];
  const dictionaries = Object.fromEntries((glossary?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
  return { result, glossary, dictionaries };
}

function shown(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file}:${d.cell ?? `${d.line}:${d.column}`} ${d.severity} ${d.code}`);
}

const TBX_BASIC = `<?xml version="1.0" encoding="UTF-8"?>
<!-- exported by a terminology management system -->
<martif type="TBX-Basic" xml:lang="en-US">
  <martifHeader><fileDesc><sourceDesc><p>Export</p></sourceDesc></fileDesc></martifHeader>
  <text>
    <body>
      <termEntry id="c1">
        <descrip type="subjectField">retail</descrip>
        <langSet xml:lang="en-US">
          <descrip type="definition">A container for the items a customer intends to buy.</descrip>
          <tig>
            <term>basket</term>
            <termNote type="administrativeStatus">admittedTerm-admn-sts</termNote>
          </tig>
          <tig>
            <term>shopping cart</term>
            <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>
            <note>Use in the web shop.</note>
          </tig>
        </langSet>
        <langSet xml:lang="de-DE">
          <tig><term>Einkaufswagen</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig>
          <tig><term>Warenkorb</term></tig>
        </langSet>
        <langSet xml:lang="fr"><tig><term>panier</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig></langSet>
        <langSet xml:lang="ja"><tig><term>ショッピングカート</term></tig></langSet>
      </termEntry>
      <termEntry id="c2">
        <langSet xml:lang="en"><ntig><termGrp><term>checkout</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></termGrp></ntig></langSet>
        <langSet xml:lang="de"><tig><term>Kasse</term></tig></langSet>
        <langSet xml:lang="fr"><tig><term>paiement</term></tig></langSet>
        <langSet xml:lang="ja"><tig><term>チェックアウト</term></tig></langSet>
      </termEntry>
    </body>
  </text>
</martif>
`;

/** What TBX_BASIC's `en-US` and `de-DE` sections are read as: said once for the file, where the first is. */
const VARIANTS = {
  severity: 'warning',
  code: 'entries/language-variant',
  message: 'xml:lang "en-US" and "de-DE" are read as the glossary languages en and de (the service\'s glossaries have one dictionary per language, for all its variants)',
  file: 'glossaries/terms.tbx',
  line: 9,
  column: 9,
};

const GLOSSARY_TBX = 'kind: glossary\nname: Terms\nentries_file: terms.tbx\nlanguages: [en, de, fr, ja]\n';

describe('a glossary-level TBX file', () => {
  it('derives every dictionary from the first language, choosing terms by usage status', async () => {
    const { result, dictionaries, glossary } = await load(GLOSSARY_TBX, { 'terms.tbx': TBX_BASIC });
    expect(result.diagnostics).toEqual([VARIANTS]);
    expect(dictionaries).toEqual({
      'en-de': { 'shopping cart': 'Warenkorb', checkout: 'Kasse' },
      'en-fr': { 'shopping cart': 'panier', checkout: 'paiement' },
      'en-ja': { 'shopping cart': 'ショッピングカート', checkout: 'チェックアウト' },
    });
    expect(glossary?.dictionaries.map((d) => d.entriesFile)).toEqual(['glossaries/terms.tbx', 'glossaries/terms.tbx', 'glossaries/terms.tbx']);
    expect(result.files).toContain('glossaries/terms.tbx');
  });

  it('takes the first usable term with `terms: first`, and an explicit list of pairs', async () => {
    const { result, dictionaries } = await load(`${GLOSSARY_TBX}pairs: [de-en, en-fr]\nterms: first\n`, { 'terms.tbx': TBX_BASIC });
    expect(result.diagnostics).toEqual([VARIANTS]);
    expect(dictionaries).toEqual({
      'de-en': { Warenkorb: 'basket', Kasse: 'checkout' },
      'en-fr': { basket: 'panier', checkout: 'paiement' },
    });
  });

  it('reads TBX 3 (tbx root, conceptEntry, langSec, termSec, DCT status elements)', async () => {
    const tbx = `<?xml version="1.0"?>
<tbx type="TBX-Core" style="dct" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2" xmlns:basic="http://www.tbxinfo.net/ns/basic">
  <tbxHeader><fileDesc><sourceDesc><p>x</p></sourceDesc></fileDesc></tbxHeader>
  <text><body>
    <conceptEntry id="1">
      <langSec xml:lang="en"><termSec><term>invoice</term></termSec></langSec>
      <langSec xml:lang="de">
        <termSec><term>Faktura</term><basic:administrativeStatus>supersededTerm-admn-sts</basic:administrativeStatus></termSec>
        <termSec><term>Rechnung</term><basic:administrativeStatus>preferredTerm-admn-sts</basic:administrativeStatus></termSec>
      </langSec>
    </conceptEntry>
  </body></text>
</tbx>`;
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\n', { 't.tbx': tbx });
    expect(result.diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { invoice: 'Rechnung' } });
  });

  it('reports a concept without a term in a declared language, a term over 1024 bytes and duplicates after canonicalisation, each at its line and column', async () => {
    const long = 'x'.repeat(1025);
    const tbx = `<martif type="TBX-Basic"><text><body>
<termEntry id="a"><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Korb</term></tig></langSet></termEntry>
<termEntry id="b"><langSet xml:lang="en"><tig><term>  cart </term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry>
<termEntry id="c"><langSet xml:lang="en"><tig><term>${long}</term></tig></langSet><langSet xml:lang="de"><tig><term>lang</term></tig></langSet></termEntry>
<termEntry id="d"><langSet xml:lang="en"><tig><term>only English</term></tig></langSet>
  <langSet xml:lang="de"><tig><term>veraltet</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig></langSet></termEntry>
</body></text></martif>`;
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\n', { 't.tbx': tbx });
    expect(shown(result.diagnostics)).toEqual([
      'glossaries/t.tbx:3:47 error entries/duplicate-source',
      'glossaries/t.tbx:3:47 warning entries/whitespace-trimmed',
      'glossaries/t.tbx:4:47 error entries/phrase-too-long',
      'glossaries/t.tbx:5:1 warning entries/missing-term',
    ]);
    const messages = result.diagnostics.map((d) => d.message);
    expect(messages[0]).toBe('duplicate source phrase "cart" on lines 2 and 3; the service rejects the whole dictionary');
    expect(messages[3]).toBe('concept "d" has no term in de (only deprecated terms): it is left out of the dictionary en-de');
  });

  it.each([
    ['entity expansion', '<?xml version="1.0"?>\n<!DOCTYPE martif [\n <!ENTITY a "aaaaaaaaaa">\n <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>&b;</term></tig></langSet></termEntry></body></text></martif>', 'entries/xml-doctype', '2:1'],
    ['an external entity', '<?xml version="1.0"?>\n<!DOCTYPE martif [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>\n<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>&secret;</term></tig></langSet></termEntry></body></text></martif>', 'entries/xml-doctype', '2:1'],
    ['an undeclared entity', '<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>&secret;</term></tig></langSet></termEntry></body></text></martif>', 'entries/malformed-xml', '1:'],
    ['malformed XML', '<martif>\n<text><body>\n<termEntry><langSet xml:lang="en"><tig><term>cart</tig></langSet></termEntry>\n</body></text></martif>', 'entries/malformed-xml', '3:'],
    ['another XML vocabulary', '<?xml version="1.0"?>\n<xliff version="1.2"></xliff>', 'entries/not-tbx', '2:1'],
    ['a language section without a language', '<martif><text><body><termEntry><langSet><tig><term>cart</term></tig></langSet></termEntry></body></text></martif>', 'entries/tbx-language', '1:32'],
    ['bytes that are not UTF-8', Buffer.from([...Buffer.from('<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>'), 0xff, 0xfe, 0x41, ...Buffer.from('</term></tig></langSet></termEntry></body></text></martif>')]), 'entries/invalid-encoding', '1:'],
  ])('refuses %s with a located error and no entries', async (_, tbx, code, at) => {
    const { result, glossary } = await load('kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\n', { 't.tbx': tbx });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual([code]);
    expect(`${errors[0]?.line}:${errors[0]?.column}`).toMatch(new RegExp(`^${at}`));
    expect(errors[0]?.file).toBe('glossaries/t.tbx');
    expect(glossary?.dictionaries.every((d) => d.entries.size === 0)).toBe(true);
  });

  it('reads a UTF-16 export', async () => {
    const text = `\uFEFF<?xml version="1.0" encoding="UTF-16"?>\n<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry></body></text></martif>`;
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\n', { 't.tbx': Buffer.from(text, 'utf16le') });
    expect(result.diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
  });

  it('feeds one dictionary of the per-dictionary form', async () => {
    const { result, dictionaries } = await load('kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: fr\n    entries_file: terms.tbx\n', { 'terms.tbx': TBX_BASIC });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(dictionaries).toEqual({ 'en-fr': { 'shopping cart': 'panier', checkout: 'paiement' } });
  });
});

describe('the resource fields of a glossary-level entries_file', () => {
  it.each([
    ['kind: glossary\nname: T\nentries_file: t.tbx\n', 'glossary/missing-languages'],
    ['kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\npairs: from fr\n', 'glossary/pairs'],
    ['kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\npairs: [en-de, en-it]\n', 'glossary/pairs'],
    ['kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\npairs: [en-de, en-de]\n', 'glossary/duplicate-pair'],
    ['kind: glossary\nname: T\nlanguages: [en, de]\ndictionaries: []\n', 'glossary/missing-entries-file'],
    ['kind: glossary\nname: T\napi: v2\nentries_file: t.tbx\nlanguages: [en, de, fr]\n', 'glossary/v2-dictionary-count'],
    ['kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\ndictionaries:\n  - source_lang: en\n    target_lang: fr\n    entries: { a: b }\n', 'glossary/entries-source'],
  ])('%s → %s', async (resource, code) => {
    const { result } = await load(resource, { 't.tbx': TBX_BASIC });
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toContain(code);
  });

  it('accepts "all" pairs', async () => {
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: terms.tbx\nlanguages: [en, de]\npairs: all\n', { 'terms.tbx': TBX_BASIC });
    expect(result.diagnostics).toEqual([VARIANTS]);
    expect(Object.keys(dictionaries)).toEqual(['en-de', 'de-en']);
  });
});

describe('a glossary-level workbook', () => {
  const rows = [
    ['en', 'de', 'fr', 'note'],
    ['shopping cart', 'Warenkorb', 'panier', 'web shop'],
    ['checkout', 'Kasse', 'paiement', null],
    ['wishlist', 'Wunschliste', null, null],
  ];

  it('reads one concept per row from the first sheet, ignoring columns that are not languages', async () => {
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de, fr]\n', { 't.xlsx': await workbookBytes({ Terms: rows, Other: [['en', 'de'], ['x', 'y']] }) });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A4 warning entries/missing-term']);
    expect(dictionaries).toEqual({
      'en-de': { 'shopping cart': 'Warenkorb', checkout: 'Kasse', wishlist: 'Wunschliste' },
      'en-fr': { 'shopping cart': 'panier', checkout: 'paiement' },
    });
  });

  it('reads a workbook of thousands of rows whole and in order, a duplicate far down named by its cells', async () => {
    // More rows than the readers gather into one block (of shared strings, of packed entries).
    const many: (string | null)[][] = [['en', 'de', 'fr']];
    for (let i = 0; i < 6000; i++) many.push([`term ${i}`, `Begriff ${i}`, i % 1000 === 999 ? null : `terme ${i}`]);
    many.push(['term 17', 'noch einmal', 'encore']);
    const { result, glossary } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de, fr]\n', { 't.xlsx': await workbookBytes({ Terms: many }) });
    expect(shown(result.diagnostics)).toEqual([
      ...[1001, 2001, 3001, 4001, 5001, 6001].map((row) => `glossaries/t.xlsx:Terms!A${row} warning entries/missing-term`),
      'glossaries/t.xlsx:Terms!A6002 error entries/duplicate-source',
    ]);
    const [de, fr] = glossary?.dictionaries ?? [];
    expect([...(de?.entries ?? [])]).toEqual(many.slice(1, 6001).map((row) => [row[0], row[1]]));
    expect([...(fr?.entries ?? [])]).toEqual(many.slice(1, 6001).filter((row) => row[2] !== null).map((row) => [row[0], row[2]]));
  });

  it('reads a workbook laid out as Excel writes it (sizes in local headers, sheets before shared strings)', async () => {
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de, fr]\n', { 't.xlsx': await asExcelLaysOut(await workbookBytes({ Terms: rows })) });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A4 warning entries/missing-term']);
    expect(dictionaries['en-fr']).toEqual({ 'shopping cart': 'panier', checkout: 'paiement' });
  });

  it('reads the sheet named by `sheet` (name or position) and finds the header row below a title', async () => {
    const book = await workbookBytes({ Notes: [['read me']], 'Product terms': [['Product terms, 2024'], [], ...rows] });
    for (const sheet of ['"Product terms"', '2']) {
      const { result, dictionaries } = await load(`kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\nsheet: ${sheet}\n`, { 't.xlsx': book });
      expect(result.diagnostics).toEqual([]);
      expect(dictionaries['en-de']).toEqual({ 'shopping cart': 'Warenkorb', checkout: 'Kasse', wishlist: 'Wunschliste' });
    }
    const explicit = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\nsheet: Product terms\nheader_row: 3\n', { 't.xlsx': book });
    expect(explicit.dictionaries['en-de']).toEqual({ 'shopping cart': 'Warenkorb', checkout: 'Kasse', wishlist: 'Wunschliste' });
  });

  it('names the cells of duplicates, long terms and formula cells; a formula is never evaluated nor its saved value used', async () => {
    const book = await workbookBytes({
      Terms: [
        ['en', 'de'],
        ['cart', 'Wagen'],
        ['Cart ', 'Korb'],
        ['cart', 'Karren'],
        ['x'.repeat(1025), 'lang'],
        ['total', { formula: 'UPPER("summe")', result: 'SUMME' }],
      ],
    });
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n', { 't.xlsx': book });
    expect(shown(result.diagnostics)).toEqual([
      'glossaries/t.xlsx:Terms!A3 warning entries/case-twin',
      'glossaries/t.xlsx:Terms!A3 warning entries/whitespace-trimmed',
      'glossaries/t.xlsx:Terms!A4 error entries/duplicate-source',
      'glossaries/t.xlsx:Terms!A5 error entries/phrase-too-long',
      'glossaries/t.xlsx:Terms!A6 warning entries/missing-term',
      'glossaries/t.xlsx:Terms!B6 error entries/cell-value',
    ]);
    expect(result.diagnostics[2]?.message).toBe('duplicate source phrase "cart" on rows 2 and 4; the service rejects the whole dictionary');
    expect(result.diagnostics[5]?.message).toContain('formula (its saved value is "SUMME")');
  });

  it.each([
    ['a sheet that does not exist', { sheet: 'Termz' }, 'entries/no-such-sheet', 'the workbook has no sheet "Termz"; its sheets: "Terms"'],
    ['a sheet name in another case', { sheet: 'terms' }, 'entries/no-such-sheet', 'the workbook has no sheet "terms" (did you mean "Terms"? sheet names are matched exactly); its sheets: "Terms"'],
    ['a sheet position past the last', { sheet: 3 }, 'entries/no-such-sheet', 'the workbook has no sheet 3; its sheets: "Terms"'],
    ['a header row without a language', { header_row: 2 }, 'entries/missing-language-column', undefined],
  ])('refuses %s', async (_, options, code, message) => {
    const extra = Object.entries(options).map(([k, v]) => `${k}: ${v}\n`).join('');
    const { result } = await load(`kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n${extra}`, { 't.xlsx': await workbookBytes({ Terms: rows }) });
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual([code]);
    if (message !== undefined) expect(errors[0]?.message).toBe(message);
  });

  it('refuses a missing language column at the header row', async () => {
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de, ja]\n', { 't.xlsx': await workbookBytes({ Terms: rows }) });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.xlsx:Terms!A1 error entries/missing-language-column']);
    expect(result.diagnostics[0]?.message).toBe('the header row has no column for ja, which the glossary declares in `languages` (found: en, de)');
  });

  it('refuses a zip bomb by its declared size before inflating it', async () => {
    const bomb = await workbookBomb(101 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n', { 't.xlsx': bomb });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.xlsx:1:1 error entries/workbook-too-large']);
    expect(result.diagnostics[0]?.message).toMatch(/^the workbook's sheets and strings inflate to 105906\d+ bytes, over the 104857600-byte limit/);
  });

  it('refuses a part that inflates to more than it declares', async () => {
    const book = await workbookBytes({ Terms: rows });
    // Lower the declared size of the sheet in the zip directory and its local header alike:
    // inflating it must stop there.
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    const central = book.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), book.lastIndexOf(name));
    const local = book.lastIndexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]), book.indexOf(name));
    const tampered = Buffer.from(book);
    tampered.writeUInt32LE(10, central + 24);
    if (tampered.readUInt32LE(local + 22) !== 0) tampered.writeUInt32LE(10, local + 22);
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n', { 't.xlsx': tampered });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['entries/workbook-too-large']);
    expect(result.diagnostics[0]?.message).toBe('part xl/worksheets/sheet1.xml inflates to more than the 10 bytes it declares (a zip bomb, or a tampered file): refused');
  });

  it('refuses a file that is not a workbook', async () => {
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n', { 't.xlsx': 'en,de\ncart,Wagen\n' });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['entries/malformed-workbook']);
    const zip = await load('kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n', { 't.xlsx': await zipBytes({ 'readme.txt': 'hello' }) });
    expect(zip.result.diagnostics.map((d) => d.message)).toEqual([expect.stringContaining('not an .xlsx workbook')]);
  });
});

describe('a glossary-level CSV or TSV with language columns', () => {
  it('reads the header row of language codes, ignoring other columns', async () => {
    const csv = 'id,en,de-DE,fr,comment\r\n1,shopping cart,Warenkorb,panier,"web, shop"\r\n2,checkout,Kasse,,\r\n';
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.csv\nlanguages: [en, de, fr]\npairs: [en-de, de-en, en-fr]\n', { 't.csv': csv });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.csv:1:3 warning entries/language-column-variant', 'glossaries/t.csv:3:1 warning entries/missing-term']);
    expect(dictionaries).toEqual({
      'en-de': { 'shopping cart': 'Warenkorb', checkout: 'Kasse' },
      'de-en': { Warenkorb: 'shopping cart', Kasse: 'checkout' },
      'en-fr': { 'shopping cart': 'panier' },
    });
  });

  it('takes a pair written with an arrow (en→de, en>de, en->de) as en-de', async () => {
    for (const arrow of ['→', '>', '->', ' → ']) {
      const { result, dictionaries } = await load(`kind: glossary\nname: T\nentries_file: t.tsv\nlanguages: [en, de]\npairs: ["en${arrow}de"]\n`, { 't.tsv': 'en\tde\ncart\tWagen\n' });
      expect(result.diagnostics).toEqual([]);
      expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
    }
  });

  it('reads TSV the same way', async () => {
    const { result, dictionaries } = await load('kind: glossary\nname: T\nentries_file: t.tsv\nlanguages: [en, de]\n', { 't.tsv': 'en\tde\ncart\tWagen\n' });
    expect(result.diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
  });

  it('refuses a file without a header row of languages', async () => {
    const { result } = await load('kind: glossary\nname: T\nentries_file: t.csv\nlanguages: [en, de]\n', { 't.csv': 'cart,Wagen\n' });
    expect(shown(result.diagnostics)).toEqual(['glossaries/t.csv:1:1 error entries/no-header-row']);
  });
});
