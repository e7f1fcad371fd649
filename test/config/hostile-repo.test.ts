import { mkdtemp, mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';
import type * as ParallelLoadModule from '../../src/config/parallel-load.js';
import type * as ExitCodeOfModule from '../../src/cli/exit-code-of.js';
import { MAX_YAML_FILE_BYTES } from '../../src/config/load-resources.js';
import type { Diagnostic } from '../../src/lib/diagnostics.js';
import { runCliCaptured } from '../cli/run-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function repository(files: Record<string, string | Buffer>, config = CONFIG): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-hostile-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), config);
  await mkdir(path.join(dir, 'glossaries'));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, 'glossaries', name)), { recursive: true });
    await writeFile(path.join(dir, 'glossaries', name), content);
  }
  return dir;
}

function shown(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`);
}

const HEAD = 'kind: glossary\nname: Big\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n';

describe('resource YAML with many inline entries', () => {
  // 26.5 s before (the YAML library compared each key with every earlier one): bench/hostile-repo.js
  // measures the time (inline-80k rows). Bounded by its work, not by time: 7 s at a load of 10 on
  // two cores, over 20 s at 25; the timeout only catches a hang.
  it('80,000 inline entries load, and duplicate keys among them are still reported at their lines', async () => {
    const lines = Array.from({ length: 80_000 }, (_, i) => `      term ${i}: Begriff ${i}\n`);
    lines[40_000] = '      term 7: wieder\n';
    lines[79_999] = '      "term 12": noch einmal\n';
    const dir = await repository({ 'big.yaml': HEAD + lines.join('') });
    const result = await loadRepository({ dir, parallel: false });
    expect(shown(result.diagnostics)).toEqual(['glossaries/big.yaml:40007:7 error yaml/duplicate-key', 'glossaries/big.yaml:80006:7 error yaml/duplicate-key']);
    expect(result.diagnostics[0]?.message).toBe('duplicate key "term 7": it is already on line 14 of the same mapping, and each key may appear once');
  }, 120_000);

  it('duplicates anywhere in a file: keys compared by value (1 and "1" differ), merge keys may repeat, at most 20 listed', async () => {
    const dir = await repository({
      'a.yaml': 'kind: glossary\nname: A\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    source_lang: en\n    entries: { 1: a, "1": b }\n',
      'b.yaml': `${HEAD}${Array.from({ length: 30 }, () => '      same: x\n').join('')}`,
    });
    const result = await loadRepository({ dir, parallel: false });
    const a = result.diagnostics.filter((d) => d.file === 'glossaries/a.yaml');
    expect(shown(a)).toEqual(['glossaries/a.yaml:6:5 error yaml/duplicate-key']);
    const b = result.diagnostics.filter((d) => d.file === 'glossaries/b.yaml');
    expect(b).toHaveLength(20);
    expect(b[19]?.message).toMatch(/\(and 9 more duplicate keys after this one\)$/);
  });

  it('a YAML file over the size limit is refused before it is read, with a located error', async () => {
    const big = Buffer.alloc(MAX_YAML_FILE_BYTES + 1, '#');
    const dir = await repository({ 'big.yaml': big });
    const result = await loadRepository({ dir, parallel: false });
    expect(shown(result.diagnostics)).toEqual(['glossaries/big.yaml:1:1 error yaml/too-large']);
    expect(result.diagnostics[0]?.message).toMatch(/^the file is 10485761 bytes, so it is not read: a YAML file may be at most 10485760 bytes \(10 MiB\)/);
    await writeFile(path.join(dir, 'termsync.yaml'), big);
    expect(shown((await loadRepository({ dir, parallel: false })).diagnostics)).toContain('termsync.yaml:1:1 error yaml/too-large');
  });
});

describe('names, labels and prompts', () => {
  it('a raw NUL or another control character is an error at the value', async () => {
    const dir = await repository({
      'g.yaml': 'kind: glossary\nname: "Shop\\0terms"\nrenamed_from: old\u0007name\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries: { a: b }\n',
      's.yaml': `kind: style_rules\nname: House\u0000style\nlanguage: de\ncustom_instructions:\n  - label: "tab\\there"\n    prompt: "Use the formal\\u0085address"\n  - label: fine\n    prompt: |\n      Several lines\n      are fine.\n`,
    });
    const result = await loadRepository({ dir, parallel: false });
    expect(shown(result.diagnostics)).toEqual([
      'glossaries/g.yaml:2:7 error resource/control-character',
      'glossaries/g.yaml:3:15 error resource/control-character',
      'glossaries/s.yaml:2:7 error resource/control-character',
      'glossaries/s.yaml:5:12 error resource/control-character',
      'glossaries/s.yaml:6:13 error resource/control-character',
    ]);
    expect(result.diagnostics[0]?.message).toBe('glossary `name` contains the control character U+0000 at character 5; it must be one line of plain text');
    expect(result.diagnostics[4]?.message).toBe('custom instruction `prompt` contains the control character U+0085 at character 15; a prompt is text (tabs and line breaks allowed)');
  });
});

describe('the project config', () => {
  it('is refused when it is a symbolic link that points outside the repository', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'termsync-outside-'));
    temps.push(outside);
    await writeFile(path.join(outside, 'termsync.yaml'), CONFIG);
    const dir = await repository({ 'g.yaml': 'kind: glossary\nname: G\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries: { a: b }\n' });
    await rm(path.join(dir, 'termsync.yaml'));
    await symlink(path.join(outside, 'termsync.yaml'), path.join(dir, 'termsync.yaml'));
    const result = await loadRepository({ dir, parallel: false });
    expect(shown(result.diagnostics)).toEqual(['termsync.yaml:1:1 error config/outside-repo']);
    expect(result.desired).toBeUndefined();
    expect(result.files).not.toContain('termsync.yaml');

    // A link inside the repository is fine, and so is a --config path the caller chose outside it.
    await mkdir(path.join(dir, 'config'));
    await writeFile(path.join(dir, 'config', 'real.yaml'), CONFIG);
    await rm(path.join(dir, 'termsync.yaml'));
    await symlink(path.join(dir, 'config', 'real.yaml'), path.join(dir, 'termsync.yaml'));
    expect((await loadRepository({ dir, parallel: false })).diagnostics).toEqual([]);
    expect((await loadRepository({ dir, parallel: false, configPath: path.join(outside, 'termsync.yaml') })).diagnostics).toEqual([]);
  });
});

describe('SIGTERM/SIGINT while the repository is read', () => {
  async function manyFiles(count: number): Promise<{ dir: string; files: string[] }> {
    const files: Record<string, string> = {};
    for (let g = 0; g < count; g++) {
      files[`g${g}.yaml`] = `kind: glossary\nname: G${g}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: g${g}.tsv\n`;
      files[`g${g}.tsv`] = Array.from({ length: 200 }, (_, i) => `term ${i}\tBegriff ${i}\n`).join('');
    }
    const dir = await repository(files);
    return { dir, files: Object.keys(files).filter((f) => f.endsWith('.yaml')).map((f) => `glossaries/${f}`) };
  }

  it('stops the load between two batches and ends the run with exit 130, nothing sent', async () => {
    const { dir } = await manyFiles(60);
    const controller = new AbortController();
    const loading = loadRepository({ dir, parallel: false, signal: controller.signal });
    setImmediate(() => controller.abort(new Error('received SIGTERM')));
    await expect(loading).rejects.toMatchObject({ code: 'interrupted', message: 'interrupted while reading the repository (received SIGTERM): nothing was sent' });
    expect(exitCodeOfError(await loading.catch((e: unknown) => e))).toBe(130);

    const aborted = AbortSignal.abort(new Error('received SIGINT'));
    for (const command of ['validate', 'plan', 'apply']) {
      const run = await runCliCaptured([command, '--dir', dir], { signal: aborted, env: { TERMSYNC_BASE_URL: 'http://127.0.0.1:9', TERMSYNC_API_KEY: 'k' } });
      expect(run.code, command).toBe(130);
      expect(run.stderr).toBe('Error: interrupted while reading the repository (received SIGINT): nothing was sent\n');
    }
  });

  it('stops the worker-thread loader too: no batch is started after the signal, the worker is terminated', async () => {
    const { loadResources } = (await import(pathToFileURL(path.join(ROOT, 'dist', 'config', 'parallel-load.js')).href)) as typeof ParallelLoadModule;
    const { dir, files } = await manyFiles(80);
    const controller = new AbortController();
    const batches: string[] = [];
    let afterAbort = 0;
    const loading = loadResources({ root: dir, rootReal: await realpath(dir) }, files, new Map(), {
      parallel: true,
      signal: controller.signal,
      yieldToEventLoop: () => new Promise((resolve) => setImmediate(resolve)),
      onBatch: (thread, kind) => {
        if (controller.signal.aborted) afterAbort++;
        batches.push(`${thread} ${kind}`);
        if (batches.length === 2) controller.abort(new Error('received SIGTERM'));
      },
    });
    await expect(loading).rejects.toMatchObject({ code: 'interrupted' });
    // The error is the build's (dist/), so is the table that maps it.
    const { exitCodeOfError: exitCodeOfBuiltError } = (await import(pathToFileURL(path.join(ROOT, 'dist', 'cli', 'exit-code-of.js')).href)) as typeof ExitCodeOfModule;
    expect(exitCodeOfBuiltError(await loading.catch((e: unknown) => e))).toBe(130);
    // 8 resource batches and 8 entries batches in all; the main thread finishes the one in hand at most.
    expect(afterAbort).toBeLessThanOrEqual(1);
    expect(batches.length).toBeLessThan(16);
  });
});
