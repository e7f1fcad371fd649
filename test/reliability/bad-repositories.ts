// Broken and malicious repositories written by the suite (the validator's own fixtures are used as
// they are): the formats' rules, sizes, and what an attacker could commit.
import type { workbookBomb, workbookBytes, zipBytes } from '../fixtures/build-files.js';
import { amplifiedWorkbook } from '../../bench/hostile-formats-files.js';
import type { RepoFiles } from './harness.js';

export interface BadRepo {
  readonly name: string;
  /** Set once the repository is written. */
  readonly dir?: string;
  readonly code: string;
  /** The file the located message names (relative to the repository). */
  readonly file: string;
  /** `line:col` or `Sheet!A1`; absent: any place in `file`. */
  readonly at?: string;
  /** Must end sooner than this (hostile sizes whose parse could run away). */
  readonly withinMs?: number;
  /** `--dir` as given, relative to the repository's folder (default `.`). */
  readonly dirArg?: string;
}

interface Builders {
  workbookBytes: typeof workbookBytes;
  workbookBomb: typeof workbookBomb;
  zipBytes: typeof zipBytes;
}

export interface GeneratedCase extends BadRepo {
  readonly files: RepoFiles | ((b: Builders) => Promise<RepoFiles>);
  /** Files made sparse at this size (their content is never meant to be read). */
  readonly sparse?: Record<string, number>;
}

export const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const TBX_GLOSSARY = 'kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\n';
const XLSX_GLOSSARY = 'kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de]\n';
const CONCEPT = '<termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry>';
const ROWS = [
  ['en', 'de'],
  ['shopping cart', 'Warenkorb'],
  ['checkout', 'Kasse'],
];

function tbx(name: string, body: string | Buffer, code: string, at?: string): GeneratedCase {
  return { name, code, file: 'glossaries/t.tbx', ...(at === undefined ? {} : { at }), files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': TBX_GLOSSARY, 'glossaries/t.tbx': body } };
}

function glossary(name: string, resource: string | Buffer, code: string, at?: string, extra: RepoFiles = {}): GeneratedCase {
  return { name, code, file: 'glossaries/x.yaml', ...(at === undefined ? {} : { at }), files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': resource, ...extra } };
}

function lines(n: number, make: (i: number) => string): string {
  return Array.from({ length: n }, (_, i) => make(i)).join('\n');
}

export const GENERATED_CASES: readonly GeneratedCase[] = [
  // TBX: entity tricks, broken XML, other vocabularies
  tbx('tbx-entity-expansion', `<?xml version="1.0"?>\n<!DOCTYPE martif [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<martif><text><body>${CONCEPT}</body></text></martif>`, 'entries/xml-doctype', '2:1'),
  tbx('tbx-external-entity', `<?xml version="1.0"?>\n<!DOCTYPE martif [ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>\n<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>&secret;</term></tig></langSet></termEntry></body></text></martif>`, 'entries/xml-doctype', '2:1'),
  tbx('tbx-undeclared-entity', '<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>&secret;</term></tig></langSet></termEntry></body></text></martif>', 'entries/malformed-xml'),
  tbx('tbx-malformed', '<martif>\n<text><body>\n<termEntry><langSet xml:lang="en"><tig><term>cart</tig></langSet></termEntry>\n</body></text></martif>', 'entries/malformed-xml'),
  tbx('tbx-another-vocabulary', '<?xml version="1.0"?>\n<xliff version="1.2"></xliff>', 'entries/not-tbx', '2:1'),
  tbx('tbx-language-section-without-language', '<martif><text><body><termEntry><langSet><tig><term>cart</term></tig></langSet></termEntry></body></text></martif>', 'entries/tbx-language', '1:32'),
  tbx('tbx-not-utf8', Buffer.from([...Buffer.from('<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>'), 0xff, 0xfe, 0x41, ...Buffer.from('</term></tig></langSet></termEntry></body></text></martif>')]), 'entries/invalid-encoding'),
  tbx('tbx-duplicate-source', `<martif><text><body>\n${CONCEPT}\n${CONCEPT}\n</body></text></martif>`, 'entries/duplicate-source', '3:40'),
  // TBX as tools write it, gone wrong: a status termsync cannot read, two variants of one language, nesting without end
  tbx(
    'tbx-unknown-usage-status',
    '<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term><termNote type="administrativeStatus">proposed</termNote></tig></langSet></termEntry></body></text></martif>',
    'entries/tbx-status',
    '1:139',
  ),
  tbx(
    'tbx-two-variants-of-a-language',
    '<martif><text><body>\n<termEntry><langSet xml:lang="en-US"><tig><term>color</term></tig></langSet><langSet xml:lang="de"><tig><term>Farbe</term></tig></langSet></termEntry>\n<termEntry><langSet xml:lang="en-GB"><tig><term>colour</term></tig></langSet><langSet xml:lang="de"><tig><term>Farbton</term></tig></langSet></termEntry>\n</body></text></martif>',
    'entries/mixed-variants',
    '3:12',
  ),
  tbx('tbx-nested-without-end', `<martif>${'<a>'.repeat(100_000)}`, 'entries/xml-too-deep', '1:198'),
  // spreadsheets: an encoding declared wrong, a workbook that expands to more text than any entries file holds
  {
    name: 'entries-file-encoding-declared-wrong',
    code: 'entries-file/encoding',
    file: 'glossaries/t.tsv',
    at: '1:8',
    files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: t.tsv\n    encoding: windows-1252\n', 'glossaries/t.tsv': 'size\tGröße\n' },
  },
  { name: 'workbook-expanding-past-10-mib-of-text', code: 'entries/too-much-text', file: 'glossaries/t.xlsx', at: 'Terms!A7', files: async () => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': await amplifiedWorkbook(20, 1024 * 1024) }) },
  // glossary-level entries files: the resource's fields
  glossary('glossary-missing-languages', 'kind: glossary\nname: T\nentries_file: t.tbx\n', 'glossary/missing-languages', undefined, { 'glossaries/t.tbx': `<martif><text><body>${CONCEPT}</body></text></martif>` }),
  glossary('glossary-pairs-from-undeclared', 'kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\npairs: from fr\n', 'glossary/pairs', undefined, { 'glossaries/t.tbx': `<martif><text><body>${CONCEPT}</body></text></martif>` }),
  glossary('glossary-pairs-undeclared-language', 'kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de]\npairs: [en-de, en-it]\n', 'glossary/pairs', undefined, { 'glossaries/t.tbx': `<martif><text><body>${CONCEPT}</body></text></martif>` }),
  glossary('glossary-missing-entries-file', 'kind: glossary\nname: T\nlanguages: [en, de]\ndictionaries: []\n', 'glossary/missing-entries-file'),
  glossary('glossary-duplicate-language', 'kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de, en]\n', 'glossary/duplicate-language', undefined, { 'glossaries/t.tbx': `<martif><text><body>${CONCEPT}</body></text></martif>` }),
  // workbooks and language columns
  { name: 'workbook-zip-bomb', code: 'entries/workbook-too-large', file: 'glossaries/t.xlsx', at: '1:1', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': await b.workbookBomb(101 * 1024 * 1024) }) },
  { name: 'workbook-not-a-workbook', code: 'entries/malformed-workbook', file: 'glossaries/t.xlsx', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': 'en,de\ncart,Wagen\n' } },
  { name: 'workbook-zip-of-something-else', code: 'entries/malformed-workbook', file: 'glossaries/t.xlsx', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': await b.zipBytes({ 'readme.txt': 'hello' }) }) },
  { name: 'workbook-formula', code: 'entries/cell-value', file: 'glossaries/t.xlsx', at: 'Terms!B3', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': await b.workbookBytes({ Terms: [['en', 'de'], ['cart', 'Wagen'], ['total', { formula: 'UPPER("summe")', result: 'SUMME' }]] }) }) },
  { name: 'workbook-no-such-sheet', code: 'entries/no-such-sheet', file: 'glossaries/t.xlsx', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': `${XLSX_GLOSSARY}sheet: Termz\n`, 'glossaries/t.xlsx': await b.workbookBytes({ Terms: ROWS }) }) },
  { name: 'workbook-missing-language-column', code: 'entries/missing-language-column', file: 'glossaries/t.xlsx', at: 'Terms!A1', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\nentries_file: t.xlsx\nlanguages: [en, de, ja]\n', 'glossaries/t.xlsx': await b.workbookBytes({ Terms: ROWS }) }) },
  { name: 'workbook-header-row-past-the-end', code: 'entries/header-row', file: 'glossaries/t.xlsx', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': `${XLSX_GLOSSARY}header_row: 9\n`, 'glossaries/t.xlsx': await b.workbookBytes({ Terms: ROWS }) }) },
  { name: 'columns-no-header-row', code: 'entries/no-header-row', file: 'glossaries/t.csv', at: '1:1', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\nentries_file: t.csv\nlanguages: [en, de]\n', 'glossaries/t.csv': 'cart,Wagen\n' } },
  { name: 'columns-language-twice', code: 'entries/duplicate-language-column', file: 'glossaries/t.csv', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\nentries_file: t.csv\nlanguages: [en, de]\n', 'glossaries/t.csv': 'en,de,de\ncart,Wagen,Korb\n' } },
  // sizes
  { name: 'entries-file-over-10-mib', code: 'entries-file/too-large', file: 'glossaries/x.yaml', at: '6:19', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: Shop terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: huge.en-de.tsv\n' }, sparse: { 'glossaries/huge.en-de.tsv': 10 * 1024 * 1024 + 1 } },
  {
    name: 'glossary-over-10-mib-across-dictionaries',
    code: 'glossary/too-large',
    file: 'glossaries/big.yaml',
    at: '3:1',
    files: {
      'termsync.yaml': CONFIG,
      'glossaries/big.yaml': '# the whole catalogue\nkind: glossary\nname: Catalogue\ndictionaries:\n  - {source_lang: en, target_lang: de, entries_file: de.tsv}\n  - {source_lang: en, target_lang: fr, entries_file: fr.tsv}\n',
      'glossaries/de.tsv': lines(120_000, (i) => `catalogue term number ${i}\tde Katalogbegriff Nummer ${i}`),
      'glossaries/fr.tsv': lines(120_000, (i) => `catalogue term number ${i}\tfr terme du catalogue ${i}`),
    },
  },
  {
    name: 'more-glossaries-than-an-account-holds',
    code: 'glossary/too-many',
    file: 'glossaries/g1000.yaml',
    at: '2:1',
    files: Object.fromEntries([
      ['termsync.yaml', CONFIG],
      ...Array.from({ length: 1001 }, (_, i) => [`glossaries/g${String(i).padStart(4, '0')}.yaml`, `kind: glossary\nname: G${i}\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n`]),
    ]) as RepoFiles,
  },
  glossary('name-of-a-megabyte', `kind: glossary\nname: ${'n'.repeat(1024 * 1024)}\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n`, 'glossary/name-too-long', '2:7'),
  // what an attacker could commit
  glossary('entries-file-dev-zero', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: /dev/zero\n', 'entries-file/outside-repo', '6:19'),
  glossary('entries-file-link-to-dev-zero', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: zero.tsv\n', 'entries-file/outside-repo', '6:19', { 'glossaries/zero.tsv': { symlink: '/dev/zero' } }),
  glossary('entries-file-link-to-passwd', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: p.tsv\n', 'entries-file/outside-repo', '6:19', { 'glossaries/p.tsv': { symlink: '/etc/passwd' } }),
  glossary('entries-file-a-folder', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: sub.tsv\n', 'entries-file/not-a-file', '6:19', { 'glossaries/sub.tsv/keep': '' }),
  { name: 'resource-file-a-folder-link', code: 'file/not-a-file', file: 'glossaries/linked.yaml', at: '1:1', files: { 'termsync.yaml': CONFIG, 'glossaries/keep.yaml': 'kind: glossary\nname: K\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n', 'other/keep': '', 'glossaries/linked.yaml': { symlink: '../other' } } },
  glossary('entries-file-a-named-pipe', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: pipe.tsv\n', 'entries-file/not-a-file', '6:19', { 'glossaries/pipe.tsv': { fifo: true } }),
  // (A named pipe itself called `*.yaml` is not a file and is passed over, as a folder would be.)
  { name: 'resource-file-a-link-to-a-named-pipe', code: 'file/not-a-file', file: 'glossaries/linked.yaml', at: '1:1', files: { 'termsync.yaml': CONFIG, pipe: { fifo: true }, 'glossaries/linked.yaml': { symlink: '../pipe' } } },
  { name: 'config-resources-escape', code: 'config/resource-folder-outside', file: 'termsync.yaml', files: { 'termsync.yaml': `${CONFIG}resources: [../../..]\n` } },
  glossary('yaml-anchor-fan-out', `kind: glossary\nname: T\nx0: &a0 [a, a, a, a, a, a, a, a, a, a]\n${Array.from({ length: 9 }, (_, i) => `x${i + 1}: &a${i + 1} [*a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}, *a${i}]`).join('\n')}\ndictionaries: []\n`, 'yaml/alias-bomb'),
  glossary('yaml-deep-flow', `kind: glossary\nname: T\ndictionaries: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, 'yaml/too-deep'),
  glossary('yaml-binary-garbage', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), 'yaml/invalid-utf8'),
  glossary('style-list-prompt-of-a-megabyte', `kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: long\n    prompt: ${'p'.repeat(1024 * 1024)}\n`, 'style/prompt-too-long', '6:13'),
  { name: 'dir-does-not-exist', code: 'repository/not-found', file: 'missing', at: '1:1', dirArg: 'missing', files: {} },
  { name: 'dir-is-a-file', code: 'repository/not-a-folder', file: 'a-file', at: '1:1', dirArg: 'a-file', files: { 'a-file': 'kind: glossary\n' } },
  { name: 'config-a-list', code: 'yaml/not-a-mapping', file: 'termsync.yaml', at: '1:1', files: { 'termsync.yaml': '- version: 1\n' } },
  { name: 'config-empty', code: 'yaml/empty', file: 'termsync.yaml', at: '1:1', files: { 'termsync.yaml': '' } },
  // A pull request that chooses which secret of the job goes where.
  ...(
    [
      ['api_key_env', 'AWS_SECRET_ACCESS_KEY'],
      ['api_key_env', 'GITHUB_TOKEN'],
      ['api_key_env', 'HOME'],
      ['base_url_env', 'ATTACKER_URL'],
      ['base_url_env', 'CI_SERVER_URL'],
    ] as const
  ).map(
    ([field, variable]): GeneratedCase => ({
      name: `config-${field}-${variable.toLowerCase()}`,
      code: 'config/env-name-not-allowed',
      file: 'termsync.yaml',
      at: field === 'api_key_env' ? '5:18' : '4:19',
      files: { 'termsync.yaml': CONFIG.replace(field === 'api_key_env' ? 'api_key_env: TERMSYNC_API_KEY' : 'base_url_env: TERMSYNC_BASE_URL', `${field}: ${variable}`) },
    }),
  ),
  // Credentials committed where they would be uploaded: entries cells, names, labels, prompts, comments, TBX, workbooks.
  { name: 'secret-service-key-in-tsv-cell', code: 'config/api-key-in-repo', file: 'glossaries/t.tsv', at: '2:7', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: t.tsv\n', 'glossaries/t.tsv': 'cart\tWagen\ntoken\t0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865:fx\n' } },
  { name: 'secret-github-token-in-csv-cell', code: 'config/api-key-in-repo', file: 'glossaries/t.csv', files: { 'termsync.yaml': CONFIG, 'glossaries/x.yaml': 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: t.csv\n', 'glossaries/t.csv': 'cart,Wagen\nrelease,ghp_R8tY4uK6nB1cD5eF0gQw3Xz7LmP2vR8tY4uK\n' } },
  glossary('secret-aws-key-in-name', 'kind: glossary\nname: AKIAQW3XZ7LMP2VR8TY4\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n', 'config/api-key-in-repo', '2:7'),
  glossary('secret-openai-key-in-prompt', 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: Formal\n    prompt: "use sk-Qw3Xz7LmP2vR8tY4uK6nB1cD5eF0gQw3Xz7LmP2vR8 for this"\n', 'config/api-key-in-repo'),
  glossary('secret-service-key-in-label', 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: 0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865\n    prompt: Be formal.\n', 'config/api-key-in-repo'),
  glossary('secret-in-a-comment', '# deploy key: 0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865:fx\nkind: glossary\nname: T\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n', 'config/api-key-in-repo', '1:15'),
  glossary('secret-in-inline-entries', 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      token: ghp_R8tY4uK6nB1cD5eF0gQw3Xz7LmP2vR8tY4uK\n', 'config/api-key-in-repo'),
  tbx('secret-in-a-tbx-term', `<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>AKIAQW3XZ7LMP2VR8TY4</term></tig></langSet></termEntry></body></text></martif>`, 'config/api-key-in-repo'),
  { name: 'secret-in-a-workbook-cell', code: 'config/api-key-in-repo', file: 'glossaries/t.xlsx', files: async (b) => ({ 'termsync.yaml': CONFIG, 'glossaries/x.yaml': XLSX_GLOSSARY, 'glossaries/t.xlsx': await b.workbookBytes({ Terms: [['en', 'de'], ['cart', 'Wagen'], ['token', 'sk-Qw3Xz7LmP2vR8tY4uK6nB1cD5eF0gQw3Xz7LmP2vR8']] }) }) },
  // Hostile sizes and characters in YAML.
  glossary(
    'yaml-80000-inline-entries-one-duplicate',
    `kind: glossary\nname: Big\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n${Array.from({ length: 80_000 }, (_, i) => `      term ${i === 40_000 ? 7 : i}: Begriff ${i}\n`).join('')}`,
    'yaml/duplicate-key',
    '40007:7',
  ),
  { name: 'yaml-resource-over-10-mib', code: 'yaml/too-large', file: 'glossaries/big.yaml', at: '1:1', files: { 'termsync.yaml': CONFIG }, sparse: { 'glossaries/big.yaml': 10 * 1024 * 1024 + 1 } },
  { name: 'yaml-config-over-10-mib', code: 'yaml/too-large', file: 'termsync.yaml', at: '1:1', files: {}, sparse: { 'termsync.yaml': 10 * 1024 * 1024 + 1 } },
  glossary('name-with-a-nul', 'kind: glossary\nname: "Shop\\0terms"\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n', 'resource/control-character', '2:7'),
  glossary('renamed-from-with-a-bell', 'kind: glossary\nname: Shop\nrenamed_from: old\u0007name\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n', 'resource/control-character', '3:15'),
  glossary('label-with-an-escape', 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: "esc\\e[31m"\n    prompt: Be formal.\n', 'resource/control-character', '5:12'),
  glossary('prompt-with-a-next-line', 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: formal\n    prompt: "Use the formal\\u0085address"\n', 'resource/control-character', '6:13'),
  { name: 'config-a-link-to-passwd', code: 'config/outside-repo', file: 'termsync.yaml', at: '1:1', files: { 'termsync.yaml': { symlink: '/etc/passwd' }, 'glossaries/x.yaml': 'kind: glossary\nname: G\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n' } },
  { name: 'config-key-as-literal', code: 'config/api-key-in-repo', file: 'termsync.yaml', files: { 'termsync.yaml': 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: 0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865:fx\n' } },
];
