// A new user's first run with the files terminologists already keep: a workbook with columns en,
// de, fr and a TBX-Basic export, each pointed at by one glossary resource and nothing else.
import { mkdir, mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sheetXml, workbookBomb, workbookBytes, workbookOfParts } from '../fixtures/build-files.js';
import { createWorld, heldByService, type World } from './harness.js';

const CONFIG = `version: 1
resources: [glossaries]
rate_limit:
  requests_per_second: 1000
  concurrency: 4
targets:
  - name: default
    base_url_env: TERMSYNC_BASE_URL
    api_key_env: TERMSYNC_API_KEY
`;

const worlds: World[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((w) => w.close()));
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A repository holding the config and the given files under `glossaries/`, against a fresh emulator. */
async function repository(files: Record<string, string | Buffer>): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-multilingual-'));
  temps.push(dir);
  await mkdir(join(dir, 'config'));
  await mkdir(join(dir, 'glossaries'));
  await writeFile(join(dir, 'config', 'termsync.yaml'), CONFIG);
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, 'glossaries', name), content);
  const world = await createWorld([join(dir, 'config'), join(dir, 'glossaries')]);
  worlds.push(world);
  return world;
}

/** validate, plan, apply, plan again: the whole first run of a new user, each step checked. */
async function firstRun(world: World): Promise<void> {
  const validate = await world.cli(['validate']);
  expect(validate.stdout).toMatch(/^No problems in \d+ files\.\n$/);
  expect(validate.code).toBe(0);
  const plan = await world.cli(['plan']);
  expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  expect(plan.code).toBe(0);
  expect(world.writesSince(0)).toEqual([]);
  const apply = await world.cli(['apply']);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  expect(world.writesSince(0)).toEqual(['POST /v3/glossaries']);
  const mark = world.mark();
  const again = await world.cli(['plan', '--detailed-exitcode']);
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);
  expect(world.writesSince(mark)).toEqual([]);
}

// Written as a terminology system exports TBX-Basic: header, concepts with a subject field and a
// definition, several terms per language with usage status, notes, part of speech.
const TBX = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE-free export: TBX-Basic 2.1 -->
<martif type="TBX-Basic" xml:lang="en">
  <martifHeader>
    <fileDesc>
      <titleStmt><title>Web shop terminology</title></titleStmt>
      <sourceDesc><p>Exported from the termbase on 2024-05-02</p></sourceDesc>
    </fileDesc>
    <encodingDesc><p type="XCSURI">TBXBasicXCSV02.xcs</p></encodingDesc>
  </martifHeader>
  <text>
    <body>
      <termEntry id="c100">
        <descrip type="subjectField">e-commerce</descrip>
        <langSet xml:lang="en">
          <descrip type="definition">The list of items a customer has chosen to buy.</descrip>
          <tig>
            <term>shopping cart</term>
            <termNote type="partOfSpeech">noun</termNote>
            <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>
          </tig>
          <tig>
            <term>basket</term>
            <termNote type="administrativeStatus">admittedTerm-admn-sts</termNote>
            <note>British usage.</note>
          </tig>
        </langSet>
        <langSet xml:lang="de">
          <tig><term>Einkaufswagen</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig>
          <tig><term>Warenkorb</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig>
        </langSet>
        <langSet xml:lang="fr">
          <tig><term>panier</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig>
        </langSet>
        <langSet xml:lang="ja">
          <tig><term>ショッピングカート</term></tig>
        </langSet>
      </termEntry>
      <termEntry id="c101">
        <descrip type="subjectField">e-commerce</descrip>
        <langSet xml:lang="en"><tig><term>checkout</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></tig></langSet>
        <langSet xml:lang="de"><tig><term>Kasse</term></tig></langSet>
        <langSet xml:lang="fr"><tig><term>paiement</term></tig></langSet>
        <langSet xml:lang="ja"><tig><term>チェックアウト</term></tig></langSet>
      </termEntry>
      <termEntry id="c102">
        <langSet xml:lang="en"><tig><term>wish list</term></tig></langSet>
        <langSet xml:lang="de"><tig><term>Wunschliste</term></tig></langSet>
        <langSet xml:lang="fr"><tig><term>liste d'envies</term></tig></langSet>
        <langSet xml:lang="ja"><tig><term>ほしい物リスト</term></tig></langSet>
      </termEntry>
    </body>
  </text>
</martif>
`.replace('<!DOCTYPE-free export: TBX-Basic 2.1 -->', '<!-- TBX-Basic 2.1 export -->');

describe('a new user with a TBX export', () => {
  it('gets a glossary of every pair from en, and the emulator holds it', async () => {
    const world = await repository({ 'web-shop.yaml': 'kind: glossary\nname: Web shop\nentries_file: web-shop.tbx\nlanguages: [en, de, fr, ja]\n', 'web-shop.tbx': TBX });
    await firstRun(world);
    expect(await heldByService(world)).toEqual({
      'Web shop': {
        'en-de': { 'shopping cart': 'Warenkorb', checkout: 'Kasse', 'wish list': 'Wunschliste' },
        'en-fr': { 'shopping cart': 'panier', checkout: 'paiement', 'wish list': "liste d'envies" },
        'en-ja': { 'shopping cart': 'ショッピングカート', checkout: 'チェックアウト', 'wish list': 'ほしい物リスト' },
      },
    });
  });
});

describe('a new user with a workbook of columns en, de, fr', () => {
  it('gets a glossary of en-de and en-fr, and a changed cell is one PATCH', async () => {
    const rows = [
      ['en', 'de', 'fr'],
      ['shopping cart', 'Warenkorb', 'panier'],
      ['checkout', 'Kasse', 'paiement'],
      ['wish list', 'Wunschliste', "liste d'envies"],
    ];
    const world = await repository({ 'web-shop.yaml': 'kind: glossary\nname: Web shop\nentries_file: web-shop.xlsx\nlanguages: [en, de, fr]\n', 'web-shop.xlsx': await workbookBytes({ Sheet1: rows }) });
    await firstRun(world);
    expect(await heldByService(world)).toEqual({
      'Web shop': {
        'en-de': { 'shopping cart': 'Warenkorb', checkout: 'Kasse', 'wish list': 'Wunschliste' },
        'en-fr': { 'shopping cart': 'panier', checkout: 'paiement', 'wish list': "liste d'envies" },
      },
    });
    rows[2] = ['checkout', 'Zur Kasse', 'paiement'];
    await writeFile(join(world.dir, 'glossaries', 'web-shop.xlsx'), await workbookBytes({ Sheet1: rows }));
    const mark = world.mark();
    const apply = await world.cli(['apply']);
    expect(apply.code).toBe(0);
    expect(world.writesSince(mark)).toEqual([expect.stringMatching(/^PATCH \/v3\/glossaries\/[^/]+$/)]);
  });
});

const GLOSSARY = (file: string, extra = ''): string => `kind: glossary\nname: Web shop\nentries_file: ${file}\nlanguages: [en, de]\n${extra}`;
const CONCEPT = '<termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry>';

describe('hostile or broken files', () => {
  it.each([
    ['entity expansion', 't.tbx', `<?xml version="1.0"?>\n<!DOCTYPE martif [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<martif><text><body>${CONCEPT}</body></text></martif>`, '', /glossaries\/t\.tbx:2:1: error: \[entries\/xml-doctype\]/],
    ['an external entity', 't.tbx', `<?xml version="1.0"?>\n<!DOCTYPE martif [<!ENTITY x SYSTEM "/etc/passwd">]>\n<martif><text><body>${CONCEPT}</body></text></martif>`, '', /glossaries\/t\.tbx:2:1: error: \[entries\/xml-doctype\]/],
    ['malformed XML', 't.tbx', `<martif><text><body>\n<termEntry><langSet xml:lang="en"><tig><term>cart</tig>\n</body></text></martif>`, '', /glossaries\/t\.tbx:2:\d+: error: \[entries\/malformed-xml\]/],
    ['a zip bomb', 't.xlsx', 'bomb', '', /glossaries\/t\.xlsx:1:1: error: \[entries\/workbook-too-large\]/],
    ['entity expansion in a sheet', 't.xlsx', 'doctype', '', /glossaries\/t\.xlsx:1:1: error: \[entries\/xml-doctype\] part xl\/worksheets\/sheet1\.xml has a document type declaration/],
    ['a formula cell', 't.xlsx', 'formula', '', /glossaries\/t\.xlsx:Sheet1!B3: error: \[entries\/cell-value\] the cell holds a formula/],
    ['a sheet that does not exist', 't.xlsx', 'plain', 'sheet: Glossary\n', /glossaries\/t\.xlsx:1:1: error: \[entries\/no-such-sheet\] the workbook has no sheet "Glossary"; its sheets: "Sheet1"/],
  ])('%s: validate, plan and apply exit 3 with a located message, and no request is sent', async (_, name, content, extra, message) => {
    const rows = [['en', 'de'], ['cart', 'Wagen']];
    const bytes =
      content === 'bomb'
        ? await workbookBomb(101 * 1024 * 1024)
        : content === 'formula'
          ? await workbookBytes({ Sheet1: [...rows, ['total', { formula: 'CONCAT("Sum","me")', result: 'Summe' }]] })
          : content === 'plain'
            ? await workbookBytes({ Sheet1: rows })
            : content === 'doctype'
              ? await workbookOfParts({
                  sheets: [
                    {
                      name: 'Sheet1',
                      xml: sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>en</t></is></c><c r="B1" t="inlineStr"><is><t>de</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>&c;</t></is></c></row>').replace(
                        '\n',
                        '\n<!DOCTYPE worksheet [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>\n',
                      ),
                    },
                  ],
                })
              : content;
    const world = await repository({ 'web-shop.yaml': GLOSSARY(name, extra), [name]: bytes });
    const validate = await world.cli(['validate']);
    expect(validate.stdout).toMatch(message);
    expect(validate.code).toBe(3);
    for (const command of [['plan'], ['apply']]) {
      const run = await world.cli(command);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(message);
    }
    expect(world.emulator.requests()).toEqual([]);
  });
});

describe('import --format tbx|xlsx', () => {
  it.each(['tbx', 'xlsx'])('writes one %s file per live glossary, and plan then shows no changes', async (format) => {
    const world = await repository({
      'web-shop.yaml': 'kind: glossary\nname: Web shop\nentries_file: web-shop.tbx\nlanguages: [en, de, fr, ja]\n',
      'web-shop.tbx': TBX,
      'legacy.yaml': 'kind: glossary\nname: Legacy terms\napi: v2\ndictionaries:\n  - source_lang: en\n    target_lang: es\n    entries:\n      sign in: iniciar sesión\n      "2024": "2024"\n      "=SUM(A1)": "=SUMA(A1)"\n',
      'both-ways.yaml': 'kind: glossary\nname: Both ways\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries: { cart: Wagen }\n  - source_lang: de\n    target_lang: en\n    entries: { Karren: cart }\n',
    });
    expect((await world.cli(['apply'])).code).toBe(0);
    // A repository that declares nothing yet: everything live is imported. Text that looks like a
    // number or a formula stays text in a workbook.
    for (const name of await readdir(join(world.dir, 'glossaries'))) await unlink(join(world.dir, 'glossaries', name));
    const mark = world.mark();
    const run = await world.cli(['import', '--format', format]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('imported 3 glossaries and 0 style rule lists');
    expect(run.stderr).toContain('warning: glossary "Both ways" has dictionaries from several source languages');
    expect((await readdir(join(world.dir, 'glossaries'))).sort()).toEqual(['both-ways.de-en.tsv', 'both-ways.en-de.tsv', 'both-ways.yaml', `legacy-terms.${format}`, 'legacy-terms.yaml', `web-shop.${format}`, 'web-shop.yaml']);
    const validate = await world.cli(['validate']);
    expect(validate.stdout.match(/error/g)).toBeNull();
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
    expect(world.writesSince(mark)).toEqual([]);
  });
});
