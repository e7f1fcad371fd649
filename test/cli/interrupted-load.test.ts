/**
 * SIGTERM while the bundled CLI (bin/termsync.js) reads a large repository: `validate` and `plan`
 * stop, say so and exit 130, whichever file of the bundle the modules involved were built into.
 * The error of an interrupted load is made by the loader (in plain-validate.cjs, which the ES
 * module chunks take it from) and classified by the CLI's exit-code table: once, both held a copy
 * of the error classes, the error was no instance of the table's class and the run exited 1
 * "Internal error". `test/reliability/bad-input.test.ts` sends the signal after a CPU budget; here
 * the process sends it to itself when it opens the fifth glossary (a preloaded module wraps
 * fs.openSync), so the signal always lands while most of the repository is still to be read.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'termsync.js');
const GLOSSARIES = 400;
/** Glossaries opened before the signal: the rest (nearly all) are still to be read. */
const SIGNAL_AT = 5;

let work: string;
let repo: string;
let preload: string;
let opened: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'termsync-interrupted-load-'));
  repo = path.join(work, 'repo');
  await mkdir(path.join(repo, 'glossaries'), { recursive: true });
  await writeFile(path.join(repo, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n');
  const rows = Array.from({ length: 50 }, (_, i) => `term ${i}\tBegriff ${i}`).join('\n');
  await Promise.all(
    Array.from({ length: GLOSSARIES }, async (_, g) => {
      await writeFile(path.join(repo, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: G${g}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: g${g}.tsv\n`);
      await writeFile(path.join(repo, 'glossaries', `g${g}.tsv`), `${rows}\n`);
    }),
  );
  // Counts the glossary files the process opens (to the file TERMSYNC_TEST_OPENED) and sends the
  // process SIGTERM when it opens the SIGNAL_AT-th. Both the CommonJS bundle (fs.openSync read at
  // each call) and ES modules (builtin exports synchronised) see the wrapper.
  preload = path.join(work, 'signal-while-reading.cjs');
  await writeFile(
    preload,
    [
      "'use strict';",
      "const fs = require('node:fs');",
      "const { syncBuiltinESMExports } = require('node:module');",
      'const openSync = fs.openSync;',
      'let count = 0;',
      'fs.openSync = function (file, ...rest) {',
      "  if (typeof file === 'string' && /[\\\\/]glossaries[\\\\/]g\\d+\\.yaml$/.test(file)) {",
      '    count += 1;',
      "    fs.appendFileSync(process.env.TERMSYNC_TEST_OPENED, file + '\\n');",
      `    if (count === ${SIGNAL_AT}) process.kill(process.pid, 'SIGTERM');`,
      '  }',
      '  return openSync.call(this, file, ...rest);',
      '};',
      'syncBuiltinESMExports();',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runInterrupted(args: readonly string[], name: string): Promise<Run> {
  opened = path.join(work, `opened-${name}.txt`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--require', preload, BIN, ...args],
      {
        cwd: repo,
        // One thread reads (the preload wraps the main thread's fs); the service is never reached (nothing listens there).
        env: { PATH: process.env['PATH'] ?? '', TERMSYNC_LOAD_THREADS: '1', TERMSYNC_TEST_OPENED: opened, TERMSYNC_BASE_URL: 'http://127.0.0.1:9', TERMSYNC_API_KEY: 'interrupted-load-test-key' },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, signal: error?.signal ?? null, stdout, stderr });
      },
    );
  });
}

async function glossariesOpened(): Promise<number> {
  return (await readFile(opened, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
}

describe('SIGTERM while the bundled CLI reads a large repository', () => {
  it.each([
    ['validate (the CommonJS plain validate)', ['validate', '--dir', '.'], 'validate'],
    ['validate --format json (the ES module bundle)', ['validate', '--dir', '.', '--format', 'json'], 'validate-json'],
    ['plan (the ES module chunks, with the loader taken from plain-validate.cjs)', ['plan', '--dir', '.'], 'plan'],
  ])('%s: exit 130, "interrupted while reading the repository", no stack trace', async (_, args, name) => {
    const run = await runInterrupted(args, name);
    const read = await glossariesOpened();
    expect(read, 'the signal came while the glossaries were being read').toBeGreaterThanOrEqual(SIGNAL_AT);
    expect(read, 'the load stopped well before the end').toBeLessThan(GLOSSARIES);
    expect(run.stderr).not.toContain('Internal error');
    expect(run.stderr).toContain('interrupted while reading the repository (received SIGTERM): nothing was sent');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect({ code: run.code, signal: run.signal }).toEqual({ code: 130, signal: null });
  });
});
