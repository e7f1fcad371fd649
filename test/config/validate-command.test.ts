import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../cli/run-cli.js';
import { workbookBytes } from '../fixtures/build-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = 'test/fixtures';

describe('termsync validate', () => {
  it('finds no problem in the example repository (exit 0)', async () => {
    const run = await runCliCaptured(['validate'], { cwd: ROOT });
    expect(run.stdout).toBe('No problems in 18 files.\n');
    expect(run.code).toBe(0);
  });

  it('reads the repository on the threads TERMSYNC_LOAD_THREADS asks for, and refuses any other value (exit 3)', async () => {
    for (const threads of ['1', '2', 'auto', '']) {
      const run = await runCliCaptured(['validate'], { cwd: ROOT, env: { TERMSYNC_LOAD_THREADS: threads } });
      expect(run.stdout).toBe('No problems in 18 files.\n');
      expect(run.code).toBe(0);
    }
    const bad = await runCliCaptured(['validate'], { cwd: ROOT, env: { TERMSYNC_LOAD_THREADS: 'two' } });
    expect(bad.code).toBe(3);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('expected TERMSYNC_LOAD_THREADS to be 1 (read the repository on one thread), 2 (with a worker thread) or auto, got "two"');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const help = await runCliCaptured(['validate', '--help'], { cwd: ROOT });
    expect(help.stdout).toMatch(/TERMSYNC_LOAD_THREADS\s+threads reading the repository: 1 \(one\), 2/);
  });

  it('prints file:line:col: severity: [rule] message relative to --dir as given, then a summary (exit 3)', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/rules/entries-duplicate-source`], { cwd: ROOT });
    expect(run.stdout.split('\n')).toEqual([
      `${FIXTURES}/rules/entries-duplicate-source/glossaries/terms.tsv:4:1: error: [entries/duplicate-source] duplicate source phrase "checkout" on lines 2 and 4; the service rejects the whole dictionary`,
      `${FIXTURES}/rules/entries-duplicate-source/glossaries/terms.tsv:4:1: warning: [entries/whitespace-trimmed] source phrase "checkout": surrounding whitespace trimmed`,
      '1 error, 1 warning in 3 files.',
      '',
    ]);
    expect(run.code).toBe(3);
  });

  it('keeps the file:line:col: shape for whole-file problems (1:1)', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/rules/config-not-found`], { cwd: ROOT });
    const lines = run.stdout.split('\n').filter((line) => line !== '' && !/^\d+ errors?,/.test(line));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^[^:]+:\d+:\d+: (error|warning): \[[a-z0-9-]+\/[a-z0-9-]+\] /);
    expect(lines).toContain(`${FIXTURES}/rules/config-not-found/config/termsync.yaml:1:1: error: [config/not-found] no project config: expected config/termsync.yaml or termsync.yaml (\`termsync init\` writes one; see the contract for the format)`);
  });

  it('prints one error when --dir names a file (exit 3)', async () => {
    const run = await runCliCaptured(['validate', '--dir', 'package.json'], { cwd: ROOT });
    expect(run.stdout.split('\n')).toEqual([
      `package.json:1:1: error: [repository/not-a-folder] \`--dir\` ${path.join(ROOT, 'package.json')} is not a folder: give the folder of the repository`,
      '1 error, 0 warnings in 0 files.',
      '',
    ]);
    expect(run.code).toBe(3);
  });

  it('prints GitHub workflow annotations with --format github', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/rules/entries-wrong-separator`, '--format', 'github'], { cwd: ROOT });
    const [annotation] = run.stdout.split('\n');
    expect(annotation).toMatch(
      /^::error file=test\/fixtures\/rules\/entries-wrong-separator\/glossaries\/terms\.csv,line=1,col=5,title=entries\/wrong-separator::this CSV file separates fields with a semicolon/,
    );
    expect(run.code).toBe(3);
  });

  it('prints JSON with --format json', async () => {
    const run = await runCliCaptured(['validate', '--dir', path.join(ROOT, FIXTURES, 'rules', 'lang-thai'), '--format', 'json'], { cwd: '/' });
    const output = JSON.parse(run.stdout) as { diagnostics: { code: string; severity: string }[]; errors: number; warnings: number; files: number };
    expect(output).toMatchObject({ errors: 0, warnings: 1, files: 2 });
    expect(output.diagnostics.map((d) => d.code)).toEqual(['lang/thai']);
    expect(run.code).toBe(0);
  });

  it('resolves --config against the working directory', async () => {
    const run = await runCliCaptured(['validate', '--dir', 'rules/config-not-found', '--config', 'rules/lang-not-lowercase/termsync.yaml'], { cwd: path.join(ROOT, FIXTURES) });
    expect(run.stdout).toContain('No problems in 2 files.');
    expect(run.code).toBe(0);
  });

  it('names a missing --config by its absolute path, never relative to --dir (validate and plan alike)', async () => {
    const cwd = path.join(ROOT, FIXTURES);
    const message = `no project config: the \`--config\` file ${path.join(cwd, 'nothere.yaml')} does not exist`;
    const validate = await runCliCaptured(['validate', '--dir', 'rules/config-not-found', '--config', 'nothere.yaml'], { cwd });
    expect(validate.stdout).toContain(`nothere.yaml:1:1: error: [config/not-found] ${message}\n`);
    expect(validate.stdout).not.toContain('../');
    expect(validate.code).toBe(3);
    const plan = await runCliCaptured(['plan', '--dir', 'rules/config-not-found', '--config', 'nothere.yaml'], { cwd });
    expect(plan.stderr).toContain(`nothere.yaml:1:1: error: [config/not-found] ${message}\n`);
    expect(plan.stderr).not.toContain('../');
    expect(plan.code).toBe(3);
  });

  it('as a new user: a Windows spreadsheet export validates with warnings only', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/new-user/windows-export`], { cwd: ROOT });
    expect(run.stdout).toMatch(/outdoor\.en-de\.csv:1:1: warning: \[entries\/bom\]/);
    expect(run.stdout).toMatch(/outdoor\.en-de\.csv:1:\d+: warning: \[entries\/line-ending\] CRLF/);
    expect(run.stdout).toMatch(/outdoor\.en-de\.csv:4:1: warning: \[entries\/whitespace-trimmed\]/);
    expect(run.stdout).not.toMatch(/: error: /);
    expect(run.code).toBe(0);
  });

  it('as a new user: a CSV saved with `;` gets an error that names the separator', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/new-user/semicolon-export`], { cwd: ROOT });
    expect(run.stdout).toMatch(/outdoor\.en-de\.csv:1:11: error: \[entries\/wrong-separator\] this CSV file separates fields with a semicolon `;`/);
    expect(run.code).toBe(3);
  });

  it('never prints a stack trace for a broken repository', async () => {
    const run = await runCliCaptured(['validate', '--dir', `${FIXTURES}/rules/yaml-alias-bomb`], { cwd: ROOT });
    expect(run.stdout).toContain('[yaml/alias-bomb]');
    expect(run.stdout + run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(3);
  });

  it('names the cell of a problem in a workbook: file:Sheet!B12 in text, the cell in the message for GitHub, a `cell` field in JSON', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'termsync-validate-'));
    try {
      await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n');
      await mkdir(path.join(dir, 'glossaries'));
      await writeFile(path.join(dir, 'glossaries', 'g.yaml'), 'kind: glossary\nname: G\nentries_file: g.xlsx\nlanguages: [en, de]\n');
      await writeFile(path.join(dir, 'glossaries', 'g.xlsx'), await workbookBytes({ "Q3 terms": [['en', 'de'], ['cart', 'Wagen'], ['sum', { formula: 'A3', result: 'sum' }]] }));
      const text = await runCliCaptured(['validate', '--dir', '.'], { cwd: dir });
      expect(text.stdout.split('\n')).toEqual([
        "glossaries/g.xlsx:'Q3 terms'!A3: warning: [entries/missing-term] this row has no term in de: it is left out of the dictionary en-de",
        'glossaries/g.xlsx:\'Q3 terms\'!B3: error: [entries/cell-value] the cell holds a formula (its saved value is "sum"): formulas are never evaluated and their saved values are not used; paste the values instead (Paste Special › Values)',
        '1 error, 1 warning in 3 files.',
        '',
      ]);
      expect(text.code).toBe(3);
      const github = await runCliCaptured(['validate', '--dir', '.', '--format', 'github'], { cwd: dir });
      expect(github.stdout.split('\n')[1]).toBe("::error file=glossaries/g.xlsx,title=entries/cell-value::'Q3 terms'!B3: the cell holds a formula (its saved value is \"sum\"): formulas are never evaluated and their saved values are not used; paste the values instead (Paste Special › Values)");
      const json = JSON.parse((await runCliCaptured(['validate', '--dir', '.', '--format', 'json'], { cwd: dir })).stdout) as { diagnostics: { cell?: string; line: number; column: number }[] };
      expect(json.diagnostics[1]).toMatchObject({ cell: "'Q3 terms'!B3", line: 3, column: 2 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
