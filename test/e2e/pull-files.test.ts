// pull writes the service's edits into the files of record — a TBX export, a workbook, a
// glossary-level CSV with language columns — through the CLI against the emulator: the byte diff
// of each file is the smallest (only the changed term, the removed group, the appended entry),
// and `validate` and `plan` are clean right after. An entry that cannot be written faithfully is
// named and left as it is.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inflatePart, listEntries, localHeader, openZip } from '../../src/formats/xlsx/zip-parts.js';
import { toolWorkbook } from '../fixtures/tool-workbooks.js';
import { changedLinesIn, createWorld, FIXTURES, gitIn, type World } from './harness.js';

const CORPUS = join(FIXTURES, '..', '..', 'fixtures', 'real-files');
const CONFIG = 'version: 1\nresources: [glossaries]\nrate_limit:\n  requests_per_second: 1000\n  concurrency: 4\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

let world: World;

const git = (...args: string[]): string => gitIn(world.dir, ...args);
const changedLines = (file: string): string[] => changedLinesIn(world.dir, file);

async function editOnService(glossary: string, sourceLang: string, targetLang: string, tsv: string): Promise<void> {
  const id = (JSON.parse(await world.read('ids.json')) as { glossaries: Record<string, string> }).glossaries[glossary] ?? '';
  const res = await fetch(`${world.emulator.url}/v3/glossaries/${id}/dictionaries`, {
    method: 'PUT',
    headers: { authorization: `Service-Auth-Key ${world.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_lang: sourceLang, target_lang: targetLang, entries: tsv, entries_format: 'tsv' }),
  });
  expect(res.status).toBeLessThan(300);
}

async function expectClean(): Promise<void> {
  const validate = await world.cli(['validate']);
  expect(validate.stdout).toMatch(/0 errors|No problems/);
  expect(validate.code).toBe(0);
  const mark = world.mark();
  const plan = await world.cli(['plan', '--detailed-exitcode']);
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
  expect((await world.cli(['pull', '--check'])).code).toBe(0);
  expect(world.writesSince(mark)).toEqual([]);
}

/** The content of each part of a workbook, by name, in container order. */
async function zipParts(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await openZip(bytes);
  try {
    const parts = new Map<string, string>();
    for (const entry of await listEntries(zip)) parts.set(entry.fileName, inflatePart(bytes, (await localHeader(zip, entry)).fileDataStart, entry).toString('utf8'));
    return parts;
  } finally {
    zip.close();
  }
}

beforeEach(async () => {
  world = await createWorld([]);
  await mkdir(join(world.dir, 'config'));
  await mkdir(join(world.dir, 'glossaries'));
  await world.write('config/termsync.yaml', CONFIG);
  await world.write('glossaries/outdoor.yaml', 'kind: glossary\nname: Outdoor\nentries_file: outdoor.tbx\nlanguages: [en, de]\n');
  await writeFile(join(world.dir, 'glossaries', 'outdoor.tbx'), await readFile(join(CORPUS, 'tbx', 'memoq.tbx')));
  await world.write('glossaries/clothing.yaml', 'kind: glossary\nname: Clothing\nentries_file: clothing.csv\nlanguages: [en, de, fr]\n');
  await writeFile(join(world.dir, 'glossaries', 'clothing.csv'), await readFile(join(CORPUS, 'text', 'excel-csv-utf8.csv')));
  await world.write('glossaries/camping.yaml', 'kind: glossary\nname: Camping\nentries_file: camping.tbx\nlanguages: [en, de]\n');
  await writeFile(join(world.dir, 'glossaries', 'camping.tbx'), await readFile(join(CORPUS, 'tbx', 'lokalize.tbx')));
  await world.write('glossaries/gear.yaml', 'kind: glossary\nname: Gear\nentries_file: gear.xlsx\nlanguages: [en, de]\n');
  await writeFile(
    join(world.dir, 'glossaries', 'gear.xlsx'),
    await toolWorkbook('libreoffice', [
      { name: 'README', rows: [['How to use this glossary']] },
      { name: 'Terms', rows: [['en', 'de', 'Notes'], ['tent peg', 'Hering', 'metal'], ['compass', 'Kompass'], ['stove', 'Kocher']] },
    ]),
  );
  await world.write('.gitignore', '.termsync.lock\nids.json\n');
  git('init', '--quiet');
  git('add', '.');
  git('commit', '--quiet', '-m', 'terms');
  const apply = await world.cli(['apply', '--ids-out', 'ids.json']);
  expect(apply.code).toBe(0);
});

afterEach(async () => {
  await world.close();
});

describe('pull into the files of record', () => {
  it('writes a changed, a removed and an added term into a TBX file and a CSV with language columns with the smallest diff; validate and plan are clean', async () => {
    await editOnService('Outdoor', 'en', 'de', 'hiking boot\tWanderschuh\nsleeping bag\tSchlafsack');
    await editOnService('Clothing', 'en', 'de', 'sleeping bag\tSchlafsack\n"Storm" shell jacket\t„Storm“-Hardshelljacke\ndown jacket, hooded\tDaunenjacke\ntrail runner\tTrailschuh');
    await editOnService('Clothing', 'en', 'fr', 'sleeping bag\tsac de couchage\n"Storm" shell jacket\tveste « Storm »\ndown jacket, hooded\tdoudoune à capuche\ntrail runner\tchaussure de trail\ngift card\tcarte cadeau');
    const pull = await world.cli(['pull']);
    expect(pull.stderr).not.toMatch(/error|Warning: pull/);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain('Wrote 2 files:');
    expect(pull.stdout).toContain('Pull complete');
    expect(changedLines('glossaries/outdoor.tbx')).toEqual([
      '-            <term>Wanderstiefel</term>',
      '+            <term>Wanderschuh</term>',
      '-          <tig>',
      '-            <term>Regenjacke</term>',
      '-          </tig>',
      '+      <termEntry id="4">',
      '+        <langSet xml:lang="en-gb">',
      '+          <tig>',
      '+            <term>sleeping bag</term>',
      '+          </tig>',
      '+        </langSet>',
      '+        <langSet xml:lang="de-de">',
      '+          <tig>',
      '+            <term>Schlafsack</term>',
      '+          </tig>',
      '+        </langSet>',
      '+      </termEntry>',
    ]);
    expect(changedLines('glossaries/clothing.csv')).toEqual([
      '-"down jacket, hooded",Daunenjacke mit Kapuze,doudoune à capuche,\r',
      '+"down jacket, hooded",Daunenjacke,doudoune à capuche,\r',
      '+gift card,,carte cadeau,\r',
    ]);
    await expectClean();
  });

  it('writes into a workbook: the changed cell, the removed row, an appended row; every other part of the package has the same content', async () => {
    await editOnService('Gear', 'en', 'de', 'tent peg\tZelthering\nstove\tKocher\nmap\tKarte');
    const before = await readFile(join(world.dir, 'glossaries', 'gear.xlsx'));
    const pull = await world.cli(['pull']);
    expect(pull.code).toBe(0);
    expect(pull.stdout).toContain('Wrote 1 file:\n  glossaries/gear.xlsx');
    const after = await readFile(join(world.dir, 'glossaries', 'gear.xlsx'));
    const [old, now] = [await zipParts(before), await zipParts(after)];
    expect([...now.keys()]).toEqual([...old.keys()]);
    for (const [name, content] of old) if (name !== 'xl/worksheets/sheet2.xml') expect(now.get(name), name).toBe(content);
    const sheet = now.get('xl/worksheets/sheet2.xml') as string;
    expect(sheet).toContain('<c r="B2" s="1" t="inlineStr"><is><t xml:space="preserve">Zelthering</t></is></c>');
    expect(sheet).not.toContain('<row r="3"');
    expect(sheet).toContain('<row r="5"><c r="A5" s="1" t="inlineStr"><is><t xml:space="preserve">map</t></is></c><c r="B5" s="1" t="inlineStr"><is><t xml:space="preserve">Karte</t></is></c></row></sheetData>');
    await expectClean();
  });

  it('with `pull.tbx_removed: deprecate`, marks the removed term deprecated instead; an entry of a concept with two terms of equal status is named and left as it is', async () => {
    await world.write('config/termsync.yaml', `${CONFIG}pull:\n  tbx_removed: deprecate\n`);
    git('commit', '--quiet', '-am', 'deprecate');
    await editOnService('Camping', 'en', 'de', 'water bottle\tFeldflasche');
    const pull = await world.cli(['pull']);
    expect(pull.stdout).toContain(
      'pull cannot write the entry "water bottle" of en-de into glossaries/camping.tbx faithfully: concept "lokalize-2" has several de terms of equal status, and which one the service changed cannot be told; left as it is',
    );
    expect(pull.stderr).toContain('Warning: pull could not write everything back; a plan would still change: glossary "Camping"');
    // head lamp, removed on the service, is kept and marked; water bottle is left as it was.
    expect(changedLines('glossaries/camping.tbx')).toEqual(['+       <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>']);
    expect(await world.read('glossaries/camping.tbx')).toContain('<term>head lamp</term>');
    const check = await world.cli(['pull', '--check']);
    expect(check.code).toBe(2);
    expect(check.stdout).toContain('~ "water bottle": "Trinkflasche" → "Feldflasche"');
  });

  it('an entry added to a dictionary goes into the one concept or row that has its source term and nothing in its language: language sections in the declared order, a filled cell', async () => {
    const tbx = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<martif type="TBX" xml:lang="en">',
      '  <text>',
      '    <body>',
      '      <termEntry id="c1">',
      '        <langSet xml:lang="en">',
      '          <tig>',
      '            <term>invoice</term>',
      '          </tig>',
      '        </langSet>',
      '        <langSet xml:lang="de">',
      '          <tig>',
      '            <term>Rechnung</term>',
      '          </tig>',
      '        </langSet>',
      '      </termEntry>',
      '      <termEntry id="c2">',
      '        <langSet xml:lang="en">',
      '          <tig>',
      '            <term>receipt</term>',
      '          </tig>',
      '        </langSet>',
      '        <langSet xml:lang="de">',
      '          <tig>',
      '            <term>Quittung</term>',
      '          </tig>',
      '        </langSet>',
      '        <langSet xml:lang="fr">',
      '          <tig>',
      '            <term>reçu</term>',
      '          </tig>',
      '        </langSet>',
      '      </termEntry>',
      '    </body>',
      '  </text>',
      '</martif>',
      '',
    ];
    await world.write('glossaries/billing.yaml', 'kind: glossary\nname: Billing\nentries_file: billing.tbx\nlanguages: [en, de, fr, es]\n');
    await world.write('glossaries/billing.tbx', tbx.join('\n').replace('<term>reçu</term>', '<term>reçu</term>\n          </tig>\n        </langSet>\n        <langSet xml:lang="es">\n          <tig>\n            <term>recibo</term>'));
    await world.write('glossaries/ledger.yaml', 'kind: glossary\nname: Ledger\nentries_file: ledger.csv\nlanguages: [en, de, fr]\n');
    await world.write('glossaries/ledger.csv', 'en,de,fr,Notes\ninvoice,Rechnung,,\nreceipt,Quittung,reçu,paper\n');
    await world.write('glossaries/accounts.yaml', 'kind: glossary\nname: Accounts\nentries_file: accounts.xlsx\nlanguages: [en, de, fr]\n');
    await writeFile(join(world.dir, 'glossaries', 'accounts.xlsx'), await toolWorkbook('libreoffice', [{ name: 'Terms', rows: [['en', 'de', 'fr'], ['invoice', 'Rechnung'], ['receipt', 'Quittung', 'reçu']] }]));
    git('add', '.');
    git('commit', '--quiet', '-m', 'billing');
    expect((await world.cli(['apply', '--ids-out', 'ids.json'])).code).toBe(0);
    await editOnService('Billing', 'en', 'fr', 'receipt\treçu\ninvoice\tfacture');
    await editOnService('Billing', 'en', 'es', 'receipt\trecibo\ninvoice\tfactura');
    await editOnService('Ledger', 'en', 'fr', 'receipt\treçu\ninvoice\tfacture, payée');
    await editOnService('Accounts', 'en', 'fr', 'receipt\treçu\ninvoice\tfacture');
    const pull = await world.cli(['pull']);
    expect(pull.stderr).not.toMatch(/error|Warning: pull/);
    expect(pull.code).toBe(0);
    expect(changedLines('glossaries/billing.tbx')).toEqual([
      '+        <langSet xml:lang="fr">',
      '+          <tig>',
      '+            <term>facture</term>',
      '+          </tig>',
      '+        </langSet>',
      '+        <langSet xml:lang="es">',
      '+          <tig>',
      '+            <term>factura</term>',
      '+          </tig>',
      '+        </langSet>',
    ]);
    expect(await world.read('glossaries/billing.tbx')).toContain(['            <term>Rechnung</term>', '          </tig>', '        </langSet>', '        <langSet xml:lang="fr">'].join('\n'));
    expect(changedLines('glossaries/ledger.csv')).toEqual(['-invoice,Rechnung,,', '+invoice,Rechnung,"facture, payée",']);
    const sheet = (await zipParts(await readFile(join(world.dir, 'glossaries', 'accounts.xlsx')))).get('xl/worksheets/sheet1.xml') as string;
    expect(sheet).toContain('<c r="B2" s="1" t="s"><v>4</v></c><c r="C2" s="1" t="inlineStr"><is><t xml:space="preserve">facture</t></is></c></row>');
    expect(sheet).not.toContain('<row r="4"');
    await expectClean();
  });
});
