// The files terminologists really have: TBX exports of the common tools and the TBX standard's own
// shapes, spreadsheets saved as text by Excel (in several locales) and Google Sheets, and workbooks
// as Excel, openpyxl and LibreOffice write them (test/fixtures/README.md says which tool writes
// which shape). Each one, as a new user's repository: `validate` gives exactly the expected
// problems, then `apply` against the emulator leaves exactly the expected entries on the service
// (forbidden terms absent, admitted ones where no preferred one is, variants read as the service's
// codes) and a second plan has nothing to do; a file that is refused is refused by plan and apply
// too, with the same located message, and nothing is sent.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolWorkbook } from '../fixtures/tool-workbooks.js';
import { createWorld, FIXTURES, heldByService, type World } from './harness.js';

const CORPUS = join(FIXTURES, '..', '..', 'fixtures', 'real-files');
const CONFIG = 'version: 1\nresources: [glossaries]\nrate_limit:\n  requests_per_second: 1000\n  concurrency: 4\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const worlds: World[] = [];
const temps: string[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((w) => w.close()));
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

type Entries = Record<string, string>;

interface RealFile {
  /** The tool whose output this is (test/fixtures/README.md). */
  readonly name: string;
  /** The glossary resource (its name is `Terms`). */
  readonly resource: string;
  /** Files under glossaries/: a file of the corpus (test/fixtures/real-files/…), or bytes. */
  readonly files: Record<string, string | (() => Promise<Buffer>)>;
  /** `validate`: each problem as `file:place: severity: [rule]`, in order (none: "No problems"). */
  readonly problems: readonly string[];
  /** Said in the problems' messages. */
  readonly says?: readonly RegExp[];
  /** What the service holds after `apply`, by pair; absent when the file is refused (exit 3). */
  readonly live?: Record<string, Entries>;
}

const glossary = (file: string, languages: string, extra = ''): string => `kind: glossary\nname: Terms\nentries_file: ${file}\nlanguages: [${languages}]\n${extra}`;
const dictionary = (file: string, pair: string, extra = ''): string =>
  `kind: glossary\nname: Terms\ndictionaries:\n  - source_lang: ${pair.split('-')[0] as string}\n    target_lang: ${pair.split('-')[1] as string}\n    entries_file: ${file}\n${extra.replace(/^/gm, '    ')}`;
const corpus = (path: string): string => join(CORPUS, path);

const TBX: readonly RealFile[] = [
  {
    name: 'Translate Toolkit (Weblate, Pootle): DOCTYPE with a public id, tig without status',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/translate-toolkit.tbx') },
    problems: [],
    live: { 'en-de': { 'sleeping bag': 'Schlafsack', 'tent pole': 'Zeltstange', 'ground sheet': 'Zeltunterlage' } },
  },
  {
    name: 'Lokalize: DOCTYPE, ntig/termGrp, en_US and de_DE',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/lokalize.tbx') },
    problems: ['glossaries/terms.tbx:21:5: warning: [entries/language-variant]'],
    says: [/xml:lang "en_US" and "de_DE" are read as the glossary languages en and de/],
    live: { 'en-de': { 'head lamp': 'Stirnlampe', 'water bottle': 'Trinkflasche' } },
  },
  {
    name: 'memoQ: administrativeStatus, forbidden terms as deprecatedTerm-admn-sts, en-gb and de-de',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/memoq.tbx') },
    problems: ['glossaries/terms.tbx:17:9: warning: [entries/language-variant]', 'glossaries/terms.tbx:58:7: warning: [entries/missing-term]'],
    says: [/concept "3" has no term in de \(only deprecated terms\): it is left out of the dictionary en-de/],
    live: { 'en-de': { 'hiking boot': 'Wanderstiefel', 'rain jacket': 'Regenjacke' } },
  },
  {
    name: 'Trados MultiTerm: the termbase\'s own fields (Usage: Preferred, Forbidden, Not recommended; Status: Approved), EN-US and DE-DE',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/multiterm.tbx') },
    problems: ['glossaries/terms.tbx:15:9: warning: [entries/language-variant]', 'glossaries/terms.tbx:19:13: warning: [entries/tbx-status-ignored]'],
    says: [/the field <descrip type="Status"> holds "Approved", which is no usage status termsync knows/],
    live: { 'en-de': { tent: 'Zelt', 'camping stove': 'Campingkocher' } },
  },
  {
    name: 'Microsoft Terminology Collection: DOCTYPE with a system id, ntig/termGrp, en-US and de-de',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/microsoft-terminology.tbx') },
    problems: ['glossaries/terms.tbx:23:9: warning: [entries/language-variant]'],
    live: { 'en-de': { 'shopping cart': 'Warenkorb', 'sign in': 'anmelden' } },
  },
  {
    name: 'TBX-Basic v2 sample: DOCTYPE, preferred, admitted, superseded and deprecated terms',
    resource: glossary('terms.tbx', 'en, fr'),
    files: { 'terms.tbx': corpus('tbx/tbx-basic-v2.tbx') },
    problems: [],
    live: { 'en-fr': { tent: 'tente', 'sleeping mat': 'tapis de sol' } },
  },
  {
    name: 'TBX-Core v3 (DCA): conceptEntry, langSec, termSec, no status',
    resource: glossary('terms.tbx', 'en, ja'),
    files: { 'terms.tbx': corpus('tbx/tbx-core-v3-dca.tbx') },
    problems: [],
    live: { 'en-ja': { compass: 'コンパス', 'map case': 'マップケース' } },
  },
  {
    name: 'TBX-Basic v3 (DCA): termNote administrativeStatus, a concept with only a deprecated term',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/tbx-basic-v3-dca.tbx') },
    problems: ['glossaries/terms.tbx:42:7: warning: [entries/missing-term]'],
    says: [/concept "c11" has no term in de \(only deprecated terms\)/],
    live: { 'en-de': { carabiner: 'Karabinerhaken' } },
  },
  {
    name: 'TBX-Basic v3 (DCT): basic:administrativeStatus elements',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/tbx-basic-v3-dct.tbx') },
    problems: [],
    live: { 'en-de': { 'belay device': 'Sicherungsgerät', 'rope bag': 'Seilsack' } },
  },
  {
    name: 'TBX-Min v3 (DCT): min:administrativeStatus, notRecommended and obsolete terms',
    resource: glossary('terms.tbx', 'en, fr'),
    files: { 'terms.tbx': corpus('tbx/tbx-min-v3-dct.tbx') },
    problems: [],
    live: { 'en-fr': { 'trekking pole': 'bâton de randonnée', gaiters: 'guêtres' } },
  },
  {
    name: 'TBX-Min 1.0: <TBX dialect="TBX-Min">, entry, langGroup, termGroup, termStatus',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/tbx-min-1.0.tbx') },
    problems: ['glossaries/terms.tbx:57:5: warning: [entries/missing-term]'],
    says: [/concept "C003" has no term in de \(only not recommended terms\)/],
    live: { 'en-de': { flashlight: 'Taschenlampe', backpack: 'Rucksack' } },
  },
  {
    name: 'a DOCTYPE with an internal subset (entities declared): refused',
    resource: glossary('terms.tbx', 'en, de'),
    files: { 'terms.tbx': corpus('tbx/internal-subset.tbx') },
    problems: ['glossaries/terms.tbx:2:1: error: [entries/xml-doctype]'],
  },
  {
    name: 'zh-Hans and zh-Hant in one file: refused, not mixed',
    resource: glossary('terms.tbx', 'en, zh'),
    files: { 'terms.tbx': corpus('tbx/mixed-chinese.tbx') },
    problems: ['glossaries/terms.tbx:12:9: error: [entries/mixed-variants]'],
    says: [/xml:lang "zh-Hant" and "zh-Hans" \(line 7\) are both the glossary language zh/],
  },
];

const TEXT: readonly RealFile[] = [
  {
    name: 'Excel "CSV UTF-8": byte order mark, CRLF, quoted fields with quotes, commas and line breaks, a notes column',
    resource: glossary('terms.csv', 'en, de, fr'),
    files: { 'terms.csv': corpus('text/excel-csv-utf8.csv') },
    problems: [],
    live: {
      'en-de': { 'sleeping bag': 'Schlafsack', '"Storm" shell jacket': '„Storm“-Hardshelljacke', 'down jacket, hooded': 'Daunenjacke mit Kapuze', 'trail runner': 'Trailschuh' },
      'en-fr': { 'sleeping bag': 'sac de couchage', '"Storm" shell jacket': 'veste « Storm »', 'down jacket, hooded': 'doudoune à capuche', 'trail runner': 'chaussure de trail' },
    },
  },
  {
    name: 'Excel "CSV" in a German locale: `;`, Windows-1252, a title row, declared with `encoding`',
    resource: glossary('terms.csv', 'en, de', 'encoding: windows-1252\n'),
    files: { 'terms.csv': corpus('text/excel-semicolon-1252.csv') },
    problems: [],
    live: { 'en-de': { waterproof: 'wasserdicht', 'size guide': 'Größentabelle', 'price: €49': 'Preis: 49 €', '“Storm” shell': '„Storm“-Hülle', 'footbed; removable': 'Fußbett; herausnehmbar' } },
  },
  {
    name: 'Excel "CSV" in a German locale, without `encoding`: refused, naming Windows-1252',
    resource: glossary('terms.csv', 'en, de'),
    files: { 'terms.csv': corpus('text/excel-semicolon-1252.csv') },
    problems: ['glossaries/terms.csv:5:14: error: [entries-file/invalid-utf8]'],
    says: [/not valid UTF-8 \(byte \d+\): it looks like Windows-1252 .*set `encoding: windows-1252` next to `entries_file`/],
  },
  {
    name: 'Excel "CSV" in a German locale, one dictionary, with `delimiter` and `encoding`',
    resource: dictionary('terms.en-de.csv', 'en-de', 'delimiter: ";"\nencoding: windows-1252\n'),
    files: { 'terms.en-de.csv': corpus('text/excel-semicolon-1252.en-de.csv') },
    problems: ['glossaries/terms.en-de.csv:1:23: warning: [entries/line-ending]'],
    live: { 'en-de': { waterproof: 'wasserdicht', 'size guide': 'Größentabelle', 'price: €49': 'Preis: 49 €', 'footbed; removable': 'Fußbett; herausnehmbar' } },
  },
  {
    name: 'Excel "CSV" in a German locale, one dictionary, without `delimiter`: refused, naming the setting',
    resource: dictionary('terms.en-de.csv', 'en-de', 'encoding: windows-1252\n'),
    files: { 'terms.en-de.csv': corpus('text/excel-semicolon-1252.en-de.csv') },
    problems: ['glossaries/terms.en-de.csv:1:11: error: [entries/wrong-separator]', 'glossaries/terms.en-de.csv:1:23: warning: [entries/line-ending]'],
    says: [/separates fields with a semicolon `;`, termsync reads CSV with a comma `,` unless told otherwise: set `delimiter: ";"` next to `entries_file`/],
  },
  {
    name: 'Excel "Unicode Text": UTF-16 with a byte order mark, tab-separated, declared with `encoding`',
    resource: glossary('terms.tsv', 'en, de, ja', 'encoding: utf-16\n'),
    files: { 'terms.tsv': corpus('text/excel-unicode-text.tsv') },
    problems: [],
    live: { 'en-de': { compass: 'Kompass', 'tent peg': 'Hering', 'first-aid kit': 'Erste-Hilfe-Set' }, 'en-ja': { compass: 'コンパス', 'tent peg': 'ペグ', 'first-aid kit': '救急セット' } },
  },
  {
    name: 'Excel "Unicode Text" without `encoding`: refused, naming UTF-16 and the setting',
    resource: glossary('terms.tsv', 'en, de, ja'),
    files: { 'terms.tsv': corpus('text/excel-unicode-text.tsv') },
    problems: ['glossaries/terms.tsv:1:1: error: [entries-file/invalid-utf8]'],
    says: [/saved as UTF-16 \(little-endian, it starts with a UTF-16 byte order mark\): set `encoding: utf-16` next to `entries_file`/],
  },
  {
    name: 'Google Sheets CSV: no byte order mark, CRLF, no final line break, a comment column',
    resource: glossary('terms.csv', 'en, de'),
    files: { 'terms.csv': corpus('text/google-sheets.csv') },
    problems: [],
    live: { 'en-de': { 'hiking boots': 'Wanderschuhe', 'rain cover, pack': 'Regenhülle, Rucksack', 'multi-tool': 'Multitool' } },
  },
  {
    name: 'a spreadsheet saved as tab-delimited text, one dictionary, the pair\'s codes as column titles',
    resource: dictionary('terms.en-de.tsv', 'en-de'),
    files: { 'terms.en-de.tsv': corpus('text/spreadsheet-tab.en-de.tsv') },
    problems: ['glossaries/terms.en-de.tsv:1:1: warning: [entries/tsv-header]'],
    live: { 'en-de': { rope: 'Seil', harness: 'Klettergurt' } },
  },
];

const WORKBOOKS: readonly RealFile[] = [
  {
    name: 'openpyxl: a merged title row, the header on row 3, an integer cell',
    resource: glossary('terms.xlsx', 'en, de, fr'),
    files: {
      'terms.xlsx': () =>
        toolWorkbook('openpyxl', [
          {
            name: 'Glossary',
            merges: ['A1:C1'],
            rows: [['Outdoor glossary 2024'], [], ['en', 'de', 'fr'], ['tent', 'Zelt', 'tente'], [{ number: 4000 }, { number: 4000 }, '4000'], ['stove', 'Kocher', 'réchaud']],
          },
        ]),
    },
    problems: [],
    live: { 'en-de': { tent: 'Zelt', '4000': '4000', stove: 'Kocher' }, 'en-fr': { tent: 'tente', '4000': '4000', stove: 'réchaud' } },
  },
  {
    name: 'LibreOffice Calc: a README sheet first, every cell styled (custom General format)',
    resource: glossary('terms.xlsx', 'en, de'),
    files: {
      'terms.xlsx': () =>
        toolWorkbook('libreoffice', [
          { name: 'README', rows: [['How to use this glossary'], ['The terms are on the sheet "Terms".']] },
          { name: 'Terms', rows: [['en', 'de'], ['tent peg', 'Hering'], [{ number: 8848 }, { number: 8848 }], ['compass', 'Kompass']] },
        ]),
    },
    problems: ['glossaries/terms.xlsx:Terms!A1: warning: [entries/sheet-chosen]'],
    says: [/read the sheet "Terms", the first worksheet that names a declared language in its first 10 rows \("README" does not\)/],
    live: { 'en-de': { 'tent peg': 'Hering', '8848': '8848', compass: 'Kompass' } },
  },
  {
    name: 'Excel: terms it made a date (d-mmm, m/d/yy, a custom yyyy-mm-dd) and a time (h:mm, [h]:mm:ss), a boolean, an error value, a formula',
    resource: glossary('terms.xlsx', 'en, de'),
    files: {
      'terms.xlsx': () =>
        toolWorkbook('excel', [
          {
            name: 'Terms',
            rows: [
              ['en', 'de'],
              ['tent', 'Zelt'],
              ['1-2 person tent', { number: 45293, format: 16 }],
              ['season start', { number: 45413, format: 14 }],
              ['release', { number: 45413, format: 'yyyy-mm-dd' }],
              ['departure', { number: 0.5, format: 20 }],
              ['duration', { number: 1.25, format: 46 }],
              ['true north', { boolean: true }],
              ['size', { error: '#N/A' }],
              ['total', { formula: 'UPPER(A10)', cached: 'TOTAL' }],
            ],
          },
        ]),
    },
    problems: [3, 4, 5, 6, 7, 8, 9, 10].flatMap((row) => [`glossaries/terms.xlsx:Terms!A${row}: warning: [entries/missing-term]`, `glossaries/terms.xlsx:Terms!B${row}: error: [entries/cell-value]`]),
    says: [
      /Terms!B3: error: \[entries\/cell-value\] the cell holds a date or time \(2024-01-02\), not text: Excel stores it as the number 45293 with the format "d-mmm", and turns a term that looks like a date into one; format the column as Text/,
      /Terms!B5: error: \[entries\/cell-value\] the cell holds a date or time \(2024-05-01\), not text: Excel stores it as the number 45413 with the format "yyyy-mm-dd"/,
      /Terms!B6: error: \[entries\/cell-value\] the cell holds a date or time \(12:00\)/,
      /Terms!B8: error: \[entries\/cell-value\] the cell holds the boolean TRUE, not text/,
    ],
  },
  {
    name: 'openpyxl: a datetime cell (yyyy-mm-dd h:mm:ss), a decimal and a large number in General',
    resource: glossary('terms.xlsx', 'en, de'),
    files: {
      'terms.xlsx': () =>
        toolWorkbook('openpyxl', [
          {
            name: 'Sheet',
            rows: [['en', 'de'], ['launch', { number: 45413.375, format: 'yyyy-mm-dd h:mm:ss' }], ['version', { number: 2.5 }], ['article', { number: 400012345678 }], ['tent', 'Zelt']],
          },
        ]),
    },
    problems: [2, 3, 4].flatMap((row) => [`glossaries/terms.xlsx:Sheet!A${row}: warning: [entries/missing-term]`, `glossaries/terms.xlsx:Sheet!B${row}: error: [entries/cell-value]`]),
    says: [/Sheet!B2: error: \[entries\/cell-value\] the cell holds a date or time \(2024-05-01 09:00\)/, /Sheet!B3: error: \[entries\/cell-value\] the cell holds the number 2\.5, which Excel shows with the decimal separator of the reader's locale/, /Sheet!B4: .* scientific notation/],
  },
  {
    name: 'LibreOffice Calc: a percentage, a date (DD/MM/YY) and leading zeros (00000)',
    resource: glossary('terms.xlsx', 'en, de'),
    files: {
      'terms.xlsx': () =>
        toolWorkbook('libreoffice', [
          { name: 'Terms', rows: [['en', 'de'], ['discount', { number: 0.2, format: 9 }], ['delivery', { number: 45413, format: 'DD/MM/YY' }], ['postcode', { number: 1234, format: '00000' }], ['tent', 'Zelt']] },
        ]),
    },
    problems: [2, 3, 4].flatMap((row) => [`glossaries/terms.xlsx:Terms!A${row}: warning: [entries/missing-term]`, `glossaries/terms.xlsx:Terms!B${row}: error: [entries/cell-value]`]),
    says: [/Terms!B2: .*the number 0\.2 shown with the number format "0%"/, /Terms!B4: .*the number 1234 shown with the number format "00000"/],
  },
];

/** A new user's repository holding the resource and the files, against a fresh emulator. */
async function repository(file: RealFile): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-real-files-'));
  temps.push(dir);
  await mkdir(join(dir, 'config'));
  await mkdir(join(dir, 'glossaries'));
  await writeFile(join(dir, 'config', 'termsync.yaml'), CONFIG);
  await writeFile(join(dir, 'glossaries', 'terms.yaml'), file.resource);
  for (const [name, content] of Object.entries(file.files)) await writeFile(join(dir, 'glossaries', name), typeof content === 'string' ? await readFile(content) : await content());
  const world = await createWorld([join(dir, 'config'), join(dir, 'glossaries')]);
  worlds.push(world);
  return world;
}

/** The problems `validate` printed, as `file:place: severity: [rule]`, files relative to the repository. */
function problemsOf(stdout: string, dir: string): string[] {
  return stdout
    .split('\n')
    .map((line) => /^(\S+: (?:error|warning): \[[^\]]+\])/.exec(line.replace(`${dir}/`, ''))?.[1])
    .filter((line): line is string => line !== undefined);
}

for (const [group, files] of [['TBX exports', TBX], ['spreadsheets saved as text', TEXT], ['workbooks', WORKBOOKS]] as const) {
  describe(`the files terminologists have: ${group}`, () => {
    it.each(files.map((f) => [f.name, f] as const))('%s', async (_, file) => {
      const world = await repository(file);
      const validate = await world.cli(['validate']);
      expect(problemsOf(validate.stdout, world.dir)).toEqual(file.problems);
      for (const said of file.says ?? []) expect(validate.stdout).toMatch(said);
      expect(validate.stderr).toBe('');
      if (file.live === undefined) {
        expect(validate.code).toBe(3);
        for (const command of ['plan', 'apply']) {
          const run = await world.cli([command]);
          expect(run.code).toBe(3);
          const firstError = file.problems.find((p) => p.includes(': error: '));
          expect(run.stderr).toContain(firstError);
        }
        expect(world.emulator.requests()).toEqual([]);
        return;
      }
      expect(validate.stdout).toMatch(file.problems.length === 0 ? /^No problems in \d+ files\.\n$/ : /\n0 errors, \d+ warnings? in \d+ files\.\n$/);
      expect(validate.code).toBe(0);
      const apply = await world.cli(['apply']);
      expect(apply.code).toBe(0);
      expect(world.writesSince(0)).toEqual(['POST /v3/glossaries']);
      expect(await heldByService(world)).toEqual({ Terms: file.live });
      const mark = world.mark();
      const again = await world.cli(['plan', '--detailed-exitcode']);
      expect(again.stdout).toContain('No changes.');
      expect(again.code).toBe(0);
      expect(world.writesSince(mark)).toEqual([]);
    });
  });
}
