import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, mkdir, realpath, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadRepository, resourcesForFiles } from '../../src/config/index.js';
import { packBatch, unpackBatch } from '../../src/config/entries-wire.js';
import { readEntriesBatch, type EntriesJob } from '../../src/config/read-entries.js';
import { TermsyncError } from '../../src/lib/errors.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { readingOf } from '../live/deferred-of.js';
import { PackedEntries } from '../../src/model/packed-entries.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const RULES = path.join(HERE, '..', 'fixtures', 'rules');
const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
async function tempRepo(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-load-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  return dir;
}
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('loadRepository on the example repository', () => {
  it('reads it without a single diagnostic', async () => {
    const result = await loadRepository({ dir: ROOT });
    expect(result.diagnostics).toEqual([]);
    const desired = result.desired;
    expect(desired?.configFile).toBe('config/termsync.yaml');
    expect(desired?.glossaries.map((g) => [g.name, g.api, g.dictionaries.length])).toEqual([
      ['Northwind Brand terminology', 'v3', 3],
      ['Northwind Checkout and payments', 'v3', 3],
      ['Northwind Help centre terms', 'v3', 2],
      ['Northwind Product catalogue', 'v3', 2],
      ['Northwind Storefront UI', 'v3', 3],
      ['Northwind Support macros (legacy)', 'v2', 1],
    ]);
    expect(desired?.styleRules.map((s) => [s.name, s.language, s.customInstructions.length])).toEqual([
      ['Northwind Help centre (English)', 'en', 2],
      ['Northwind Marketing (German)', 'de', 2],
    ]);
    expect(desired?.config).toMatchObject({ prune: 'owned', ownedNames: 'Northwind *', schedule: '*/15 * * * *' });
    expect(desired?.config.targets).toEqual([{ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY', authScheme: 'Service-Auth-Key', capabilities: { deleteCustomInstruction: 'auto' } }]);
    expect(result.files).toHaveLength(18);
  });

  it('derives the dictionaries of the TBX and workbook examples from their one file each', async () => {
    const { desired } = await loadRepository({ dir: ROOT });
    const entries = (name: string) => Object.fromEntries((desired?.glossaries.find((g) => g.name === name)?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
    const brand = entries('Northwind Brand terminology');
    expect(Object.keys(brand)).toEqual(['en-de', 'en-fr', 'en-ja']);
    // Preferred over admitted, deprecated never, the preferred one even when it comes second.
    expect(brand['en-de']).toEqual({ 'Northwind Rewards': 'Northwind Rewards', 'click and collect': 'Click & Collect', 'pay in instalments': 'Ratenzahlung', 'order tracking': 'Sendungsverfolgung' });
    expect(brand['en-fr']?.['pay in instalments']).toBe('paiement en plusieurs fois');
    const help = entries('Northwind Help centre terms');
    expect(Object.keys(help)).toEqual(['en-de', 'en-fr']);
    expect(Object.keys(help['en-de'] ?? {})).toHaveLength(6);
    expect(help['en-fr']?.['return label']).toBe('étiquette de retour');
  });

  it('points origins at the resource\'s `name:` line and dictionary items, and keeps entries files repository-relative', async () => {
    const { desired } = await loadRepository({ dir: ROOT });
    const ui = desired?.glossaries.find((g) => g.name === 'Northwind Storefront UI');
    expect(ui?.origin).toEqual({ file: 'glossaries/storefront-ui.yaml', line: 4, column: 1 });
    expect(ui?.dictionaries.map((d) => [d.sourceLang, d.targetLang, d.origin.line, d.entriesFile])).toEqual([
      ['en', 'de', 8, 'glossaries/entries/storefront-ui.en-de.tsv'],
      ['en', 'fr', 11, 'glossaries/entries/storefront-ui.en-fr.tsv'],
      ['en', 'es', 14, undefined],
    ]);
    const catalogue = desired?.glossaries.find((g) => g.name === 'Northwind Product catalogue');
    const de = catalogue?.dictionaries[0]?.entries;
    expect(de?.get('waterproof, breathable')).toBe('wasserdicht und atmungsaktiv');
    expect(de?.get('3-layer "Storm" shell')).toBe('dreilagige „Storm“-Hardshell');
  });

  it('maps changed files to the resources they affect', async () => {
    const { desired } = await loadRepository({ dir: ROOT });
    if (!desired) throw new Error('example repository did not load');
    const names = (files: string[]): string[] => resourcesForFiles(desired, files).map((r) => r.name);
    expect(names(['glossaries/entries/storefront-ui.en-fr.tsv'])).toEqual(['Northwind Storefront UI']);
    expect(names([path.join(ROOT, 'glossaries', 'style-rules', 'marketing-de.yaml')])).toEqual(['Northwind Marketing (German)']);
    expect(names(['glossaries/support-macros-legacy.yaml', 'glossaries/entries/checkout-payments.en-nl.tsv'])).toEqual([
      'Northwind Checkout and payments',
      'Northwind Support macros (legacy)',
    ]);
    expect(names(['glossaries/entries/brand-terminology.tbx'])).toEqual(['Northwind Brand terminology']);
    expect(names(['glossaries/entries/help-centre-terms.xlsx'])).toEqual(['Northwind Help centre terms']);
    expect(names(['config/termsync.yaml'])).toHaveLength(8);
    expect(names(['README.md'])).toEqual([]);
  });
});

describe('loadRepository', () => {
  it('applies the config defaults', async () => {
    const { desired } = await loadRepository({ dir: path.join(RULES, 'lang-not-lowercase') });
    expect(desired?.config).toEqual({
      version: 1,
      resources: ['glossaries'],
      prune: 'off',
      guards: { maxDeletes: 10, maxRemovedEntriesPercent: 50, allowEmpty: false },
      rateLimit: { requestsPerSecond: 5, concurrency: 4 },
      verify: { maxCharacters: 5000, sample: 0, seed: 1 },
      targets: [{ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY', authScheme: 'Service-Auth-Key', capabilities: { deleteCustomInstruction: 'auto' } }],
    });
    expect(desired?.glossaries[0]?.dictionaries[0]?.sourceLang).toBe('en');
  });

  it('has no desired state without a usable config, yet still checks the resources', async () => {
    const missing = await loadRepository({ dir: path.join(RULES, 'config-not-found') });
    expect(missing.desired).toBeUndefined();
    const broken = await loadRepository({ dir: path.join(RULES, 'config-unknown-prune-mode') });
    expect(broken.desired).toBeUndefined();
    const dir = await tempRepo();
    await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\nprune: sometimes\n');
    await writeFile(path.join(dir, 'glossaries', 'x.yaml'), 'kind: glosary\n');
    const both = await loadRepository({ dir });
    expect(both.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['config/unknown-prune-mode', 'schema/missing-field', 'resource/unknown-kind']));
  });

  it('takes --config relative to the working directory or absolute', async () => {
    const configPath = path.join(RULES, 'lang-thai', 'termsync.yaml');
    const result = await loadRepository({ dir: path.join(RULES, 'config-not-found'), configPath });
    expect(result.desired?.configFile).toBe('../lang-thai/termsync.yaml');
    expect(result.diagnostics).toEqual([]);
  });

  it('says that --config names a folder when it does', async () => {
    const dir = await tempRepo();
    const { diagnostics } = await loadRepository({ dir, configPath: path.join(dir, 'glossaries') });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'file/not-a-file', file: 'glossaries', line: 1, column: 1, message: 'a folder, not a file' })]);
  });

  it('reports a missing repository folder as a diagnostic, never an exception', async () => {
    const result = await loadRepository({ dir: path.join(RULES, 'no-such-repository') });
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['repository/not-found']);
  });

  it('says that --dir is not a folder when it names a file, and nothing else', async () => {
    const dir = await tempRepo();
    const result = await loadRepository({ dir: path.join(dir, 'termsync.yaml') });
    expect(result.desired).toBeUndefined();
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'repository/not-a-folder', file: '.', line: 1, column: 1 })]);
    expect(result.diagnostics[0]?.message).toBe(`\`--dir\` ${path.join(dir, 'termsync.yaml')} is not a folder: give the folder of the repository`);
  });

  it('never returns a key-shaped value in any message, whatever rule quotes it', async () => {
    const dir = await tempRepo();
    const key = '3f9a2c71-5b0e-4d8a-9c1f-7e2b6a4d0c95:fx';
    const glossary = `kind: glossary\nname: ${key}\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {term: Begriff}}\n`;
    await writeFile(path.join(dir, 'glossaries', 'a.yaml'), glossary);
    await writeFile(path.join(dir, 'glossaries', 'b.yaml'), glossary);
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics.map((d) => d.code)).toEqual(['config/api-key-in-repo', 'resource/duplicate-name', 'config/api-key-in-repo']);
    expect(JSON.stringify(diagnostics)).not.toContain('3f9a2c71');
  });

  it('reports a list used as an inline source phrase without a process warning on stderr', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning');
    try {
      const { diagnostics } = await loadRepository({ dir: path.join(RULES, 'entries-not-a-string-key') });
      expect(diagnostics.map((d) => d.code)).toEqual(['entries/not-a-string']);
      expect(emitWarning).not.toHaveBeenCalled();
    } finally {
      emitWarning.mockRestore();
    }
  });

  it('says "a mapping" (not zod\'s "record") for inline entries of the wrong type', async () => {
    const dir = await tempRepo();
    await writeFile(path.join(dir, 'glossaries', 'x.yaml'), 'kind: glossary\nname: Shop terms\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: ~}\n');
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'schema/invalid-type', message: '`dictionaries.0.entries`: expected a mapping, got null' })]);
  });

  it('names YAML !!set, !!omap and !!binary values instead of calling them mappings', async () => {
    const dir = await tempRepo();
    const dictionary = (entries: string): string => `kind: glossary\nname: G\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries: ${entries}\n`;
    await writeFile(path.join(dir, 'glossaries', 'a.yaml'), dictionary('!!set {a, b}'));
    await writeFile(path.join(dir, 'glossaries', 'b.yaml'), 'kind: glossary\nname: B\ndictionaries: !!binary aGVsbG8=\n');
    await writeFile(path.join(dir, 'glossaries', 'c.yaml'), dictionary('!!omap [a: b]').replace('name: G', 'name: C'));
    await writeFile(path.join(dir, 'glossaries', 's.yaml'), 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions: !!set {a}\n');
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics.map((d) => `${d.file}:${d.line}: [${d.code}] ${d.message}`)).toEqual([
      'glossaries/a.yaml:6: [schema/invalid-type] `dictionaries.0.entries`: expected a mapping, got a YAML !!set (a set of keys without values)',
      'glossaries/b.yaml:3: [schema/invalid-type] `dictionaries`: expected a list, got YAML !!binary data',
      'glossaries/c.yaml:6: [schema/invalid-type] `dictionaries.0.entries`: expected a mapping, got a YAML !!omap or !!pairs (write a plain mapping)',
      'glossaries/s.yaml:4: [schema/invalid-type] `custom_instructions`: expected a list, got a YAML !!set (a set of keys without values)',
    ]);
  });

  it('never echoes a key found in a file that is not valid YAML, nor a key-like `kind`', async () => {
    for (const [fixture, secret] of [['config-api-key-in-broken-yaml', '3f9a2c71'], ['resource-unknown-kind-secret', '5f0c8a1e']] as const) {
      const { diagnostics } = await loadRepository({ dir: path.join(RULES, fixture) });
      expect(diagnostics.length).toBeGreaterThan(0);
      expect(JSON.stringify(diagnostics)).not.toContain(secret);
    }
  });

  it('refuses an entries file over 10 MiB from its size alone', async () => {
    const dir = await tempRepo();
    await cp(path.join(RULES, 'entries-file-too-large'), dir, { recursive: true });
    // A sparse file: its content (NUL bytes) would be a pile of errors if it were ever read.
    const huge = path.join(dir, 'glossaries', 'huge.en-de.tsv');
    await writeFile(huge, '');
    await truncate(huge, 10 * 1024 * 1024 + 1);
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'entries-file/too-large', file: 'glossaries/x.yaml', line: 6, column: 19 })]);
    expect(diagnostics[0]?.message).toBe(
      '`entries_file` "huge.en-de.tsv" is 10485761 bytes, so it is not read: the 10 MiB limit (10485760 bytes) applies to the glossary\'s entries as uploaded (TSV, all dictionaries together), and a larger file may hold fewer bytes of entries because of CRLF line breaks, CSV quoting, language columns or padding: save it as TSV with LF line breaks and no padding, or split the entries over several glossaries',
    );
  });

  it('keeps configured-rules categories and rules named __proto__ or constructor', async () => {
    const dir = await tempRepo();
    await writeFile(
      path.join(dir, 'glossaries', 's.yaml'),
      'kind: style_rules\nname: Help centre\nlanguage: en\nconfigured_rules:\n  __proto__: {constructor: keep_it}\n  constructor: {__proto__: also_kept}\n',
    );
    const { diagnostics, desired } = await loadRepository({ dir });
    expect(diagnostics).toEqual([]);
    const rules = desired?.styleRules[0]?.configuredRules ?? {};
    expect(Object.keys(rules)).toEqual(['__proto__', 'constructor']);
    expect(Object.keys(rules['__proto__'] ?? {})).toEqual(['constructor']);
    expect(rules['__proto__']?.['constructor']).toBe('keep_it');
    expect(rules['constructor']?.['__proto__']).toBe('also_kept');
  });

  it('refuses a FIFO named like an entries file or a resource file, without waiting for a writer', async () => {
    const dir = await tempRepo();
    await writeFile(path.join(dir, 'glossaries', 'x.yaml'), 'kind: glossary\nname: Shop terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: pipe.tsv\n');
    execFileSync('mkfifo', [path.join(dir, 'glossaries', 'pipe.tsv'), path.join(dir, 'pipe')]);
    await symlink(path.join(dir, 'pipe'), path.join(dir, 'glossaries', 'linked.yaml'));
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'file/not-a-file', file: 'glossaries/linked.yaml', line: 1, column: 1 }),
      expect.objectContaining({ code: 'entries-file/not-a-file', file: 'glossaries/x.yaml', line: 6, column: 19 }),
    ]);
  });

  it('finds a glossary over 10 MiB across its dictionaries', async () => {
    const dir = await tempRepo();
    const six = (lang: string): string => Array.from({ length: 120_000 }, (_, i) => `catalogue term number ${i}\t${lang} Katalogbegriff Nummer ${i}`).join('\n');
    await writeFile(path.join(dir, 'glossaries', 'de.tsv'), six('de'));
    await writeFile(path.join(dir, 'glossaries', 'fr.tsv'), six('fr'));
    await writeFile(
      path.join(dir, 'glossaries', 'big.yaml'),
      '# the whole catalogue\nkind: glossary\nname: Catalogue\ndictionaries:\n  - {source_lang: en, target_lang: de, entries_file: de.tsv}\n  - {source_lang: en, target_lang: fr, entries_file: fr.tsv}\n',
    );
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'glossary/too-large', file: 'glossaries/big.yaml', line: 3, column: 1 })]);
  });

  it('refuses more than 1000 glossaries for a target', async () => {
    const dir = await tempRepo();
    await Promise.all(
      Array.from({ length: 1001 }, (_, i) => {
        const id = String(i).padStart(4, '0');
        return writeFile(path.join(dir, 'glossaries', `g${id}.yaml`), `kind: glossary\nname: Catalogue ${id}\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {term: Begriff}}\n`);
      }),
    );
    const { diagnostics, desired } = await loadRepository({ dir });
    expect(desired?.glossaries).toHaveLength(1001);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'glossary/too-many', file: 'glossaries/g1000.yaml', line: 2, column: 1 })]);
  });
});

describe('a spreadsheet export from Windows, as a new user would bring it', () => {
  it('loads with warnings only and the right canonical entries', async () => {
    const result = await loadRepository({ dir: path.join(HERE, '..', 'fixtures', 'new-user', 'windows-export') });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['entries/bom', 'entries/line-ending', 'entries/whitespace-trimmed']);
    const entries = result.desired?.glossaries[0]?.dictionaries[0]?.entries;
    expect([...(entries ?? [])]).toEqual([
      ['waterproof, breathable', 'wasserdicht, atmungsaktiv'],
      ['3-layer "Storm" shell', 'dreilagige "Storm"-Hardshell'],
      ['size guide', 'Größentabelle'],
      ['down jacket', 'Daunenjacke'],
      ['merino wool', 'Merinowolle'],
    ]);
  });
});

describe('deferred entries (plan and apply)', () => {
  const glossary = (file: string): string => `kind: glossary\nname: Deferred\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: ${file}\n`;

  async function load(dir: string, deferEntries: boolean) {
    const result = await loadRepository({ dir, deferEntries, parallel: false });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const entries = result.desired?.glossaries[0]?.dictionaries[0]?.entries;
    if (!(entries instanceof PackedEntries)) throw new Error('expected packed entries');
    return entries;
  }

  it('keeps of a file whose entries are its very text only its check, and reads the same text again; any other file as before', async () => {
    const dir = await tempRepo();
    const files: [string, string, boolean][] = [
      ['sorted.tsv', 'account\tKonto\nbilling\tAbrechnung\n', true],
      ['unsorted.tsv', 'zebra\tZebra\naccount\tKonto\nGröße\tSize 日本\n', true],
      ['no-final-lf.tsv', 'account\tKonto\nbilling\tAbrechnung', true],
      ['crlf.tsv', 'account\tKonto\r\nbilling\tAbrechnung\r\n', false],
      ['padded.tsv', ' account \tKonto\nbilling\tAbrechnung\n', false],
      ['blank-line.tsv', 'account\tKonto\n\nbilling\tAbrechnung\n', false],
      ['entries.csv', 'account,Konto\nbilling,Abrechnung\n', false],
    ];
    for (const [file, text, deferrable] of files) {
      await writeFile(path.join(dir, 'glossaries', file), text);
      await writeFile(path.join(dir, 'glossaries', 'g.yaml'), glossary(file));
      const plain = await load(dir, false);
      const deferred = await load(dir, true);
      expect(plain.deferredText).toBeUndefined();
      expect(deferred.deferredText !== undefined).toBe(deferrable);
      expect(deferred.size).toBe(plain.size);
      expect(deferred.utf8Bytes()).toBe(plain.utf8Bytes());
      expect(deferred.textLength).toBe(plain.text.length);
      expect(deferred.text).toBe(plain.text);
      expect([...deferred]).toEqual([...plain]);
      if (deferred.deferredText !== undefined) {
        // The literals of the entries as uploaded (in the order read, and sorted): JSON.stringify's bytes, as the service's answer holds them.
        const literal = (t: string): Buffer => Buffer.from(JSON.stringify(t), 'utf8');
        const asRead = plain.text.slice(0, -1);
        const sorted = plain.sortedBody();
        expect(deferred.deferredText.digest).toBe(createHash('sha256').update(literal(asRead)).digest('hex'));
        expect(deferred.deferredText.literalBytes).toBe(literal(asRead).length);
        // Sorted by source, made only when asked, from the file read again.
        expect(readingOf(deferred).sortedDigest()).toBe(sorted === asRead ? undefined : createHash('sha256').update(literal(sorted)).digest('hex'));
      }
    }
  });

  it('never gives the entries of a file changed since it was checked: reading it again is an error (exit 3) naming the file', async () => {
    const dir = await tempRepo();
    const tsv = path.join(dir, 'glossaries', 'e.tsv');
    await writeFile(path.join(dir, 'glossaries', 'g.yaml'), glossary('e.tsv'));
    const text = 'account\tKonto\nbilling\tAbrechnung\n';
    const changes = [
      'account\tKonto\nbilling\tRechnung!!\n', // same size
      'account\tKonto\nbilling\tAbrechnung', // last LF dropped
      'account\tKonto\nbilling\tAbrechnung\n\n',
      'account\tKonto\ncart\tWarenkorb\n',
      undefined, // removed
    ];
    for (const change of changes) {
      await writeFile(tsv, text);
      const entries = await load(dir, true);
      if (change === undefined) await rm(tsv);
      else await writeFile(tsv, change);
      let caught: unknown;
      try {
        void entries.text;
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TermsyncError);
      expect((caught as TermsyncError).code).toBe('entries_file_changed');
      expect(exitCodeOfError(caught)).toBe(ExitCode.invalidInput);
      expect((caught as TermsyncError).message).toContain('glossaries/e.tsv');
      expect(() => entries.readAgain()).toThrow(/changed while termsync ran/);
    }
    // Written again with the same bytes: the same entries.
    await writeFile(tsv, text);
    const entries = await load(dir, true);
    await writeFile(tsv, 'other\tAndere\n');
    await writeFile(tsv, text);
    expect(entries.text).toBe(text);
  });

  it('cross threads as their check, and are read again on the thread that receives them', async () => {
    const dir = await tempRepo();
    const text = 'zebra\tZebra\naccount\tKonto\n';
    await writeFile(path.join(dir, 'glossaries', 'e.tsv'), text);
    const root = await realpath(dir);
    const job: EntriesJob = {
      root,
      rootReal: root,
      resourceFile: 'glossaries/g.yaml',
      declared: 'e.tsv',
      at: { file: 'glossaries/g.yaml', line: 6, column: 19 },
      pairs: [{ sourceLang: 'en', targetLang: 'de' }],
      glossaryLevel: false,
      languages: ['en', 'de'],
      options: { terms: 'preferred' },
    };
    const outcomes = await readEntriesBatch([job], new Map(), { defer: true });
    const wire = packBatch(outcomes);
    expect(JSON.stringify(wire)).not.toContain('Zebra');
    const [back] = unpackBatch(structuredClone(wire), [job]);
    expect(back?.entries?.deferredText).toBeDefined();
    expect(back?.entries?.text).toBe(text);
    expect(back?.entries?.size).toBe(2);
  });
});
