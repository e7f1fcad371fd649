/**
 * .ci/run's closing line, made by .ci/summarize.js from vitest's own reports: real vitest runs of
 * scratch suites in a temporary folder (a file that throws on import, a failing beforeAll, an
 * error thrown outside any test, a failed test, a snapshot that is missing), each of which makes
 * vitest exit 1, and each of which the line must count as a failure and name.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../e2e/harness.js';

const VITEST = join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const SUMMARIZE = join(PROJECT_ROOT, '.ci', 'summarize.js');
const REPORTER = join(PROJECT_ROOT, '.ci', 'unhandled-errors-reporter.js');

interface Exit {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function exec(file: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Exit> {
  return new Promise((resolve) => {
    // A clean environment: none of the outer vitest's variables, and CI only where a case sets it.
    execFile(file, [...args], { cwd, env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...env }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

// Scratch suites without imports (vitest globals): the temporary folder has no node_modules.
const SUITES: Record<string, string> = {
  'passing.test.js': "it('passes', () => { expect(1).toBe(1); });\nit('passes too', () => { expect(2).toBe(2); });\n",
  'import-throws.test.js': "throw new Error('boom on import');\n",
  'before-all.test.js': "beforeAll(() => { throw new Error('setup failed'); });\nit('never runs', () => { expect(1).toBe(1); });\nit('never runs either', () => { expect(1).toBe(1); });\n",
  'uncaught.test.js':
    "it('passes but leaves an error behind', async () => {\n  setTimeout(() => { throw new Error('uncaught later'); }, 0);\n  await new Promise((resolve) => setTimeout(resolve, 50));\n});\n",
  'failing.test.js': "describe('group', () => { it('fails', () => { expect(1).toBe(2); }); });\n",
  'snapshot.test.js': "it('matches its snapshot', async () => { await expect('reviewed text\\n').toMatchFileSnapshot('./__snapshots__/reviewed.txt'); });\n",
};

let scratch: string;
let runs = 0;

/** Runs vitest on the named scratch suites as .ci/run does (JSON report, unhandled-errors reporter). */
async function vitest(files: readonly string[], env: Record<string, string> = {}): Promise<{ results: string; unhandled: string; exit: Exit }> {
  runs += 1;
  const results = join(scratch, `results-${runs}.json`);
  const unhandled = join(scratch, `unhandled-${runs}.json`);
  const exit = await exec(
    process.execPath,
    [VITEST, 'run', '--root', scratch, '--config', join(scratch, 'vitest.config.mjs'), '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, `--reporter=${REPORTER}`, ...files],
    scratch,
    { TERMSYNC_CI_UNHANDLED: unhandled, ...env },
  );
  return { results, unhandled, exit };
}

function summarize(checks: readonly [number, number], suites: readonly (readonly [string, string, string, number])[]): Promise<Exit> {
  return exec(process.execPath, [SUMMARIZE, '--checks', String(checks[0]), String(checks[1]), ...suites.flatMap((s) => ['--suite', s[0], s[1], s[2], String(s[3])])], scratch);
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'termsync-ci-summary-'));
  await writeFile(join(scratch, 'vitest.config.mjs'), "export default { test: { globals: true, include: ['*.test.js'] } };\n");
  for (const [name, text] of Object.entries(SUITES)) await writeFile(join(scratch, name), text);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('.ci/summarize.js on real vitest reports', () => {
  it('counts a file that throws on import, a failing beforeAll, an error outside any test and a failed test, and names each', async () => {
    const { results, unhandled, exit } = await vitest(['passing', 'import-throws', 'before-all', 'uncaught', 'failing']);
    expect(exit.code).toBe(1);
    const report = JSON.parse(await readFile(results, 'utf8')) as { numPassedTests: number; numFailedTests: number; numFailedTestSuites: number };
    // What the old line added up: passed tests, failed tests (and a field vitest does not write).
    expect({ passed: report.numPassedTests, failed: report.numFailedTests }).toEqual({ passed: 3, failed: 1 });
    // Suites failed (the three files and the describe block of the failed test): the old line ignored them.
    expect(report.numFailedTestSuites).toBe(4);
    const summary = await summarize([2, 0], [['scratch', results, unhandled, exit.code]]);
    expect(summary.code).toBe(1);
    expect(lines(summary.stdout).sort()).toEqual(
      [
        'scratch: failed test failing.test.js > group > fails',
        'scratch: failed suite import-throws.test.js: boom on import (no test reported)',
        'scratch: failed suite before-all.test.js: setup failed (2 of its tests skipped)',
        'scratch: Uncaught Exception in uncaught.test.js > passes but leaves an error behind: Error: uncaught later',
        '5 passed, 4 failed',
      ].sort(),
    );
    // The last line is the count, alone.
    expect(lines(summary.stdout).at(-1)).toBe('5 passed, 4 failed');
  });

  it('an error outside any test fails the line although the report says success', async () => {
    const { results, unhandled, exit } = await vitest(['passing', 'uncaught']);
    expect(exit.code).toBe(1);
    const report = JSON.parse(await readFile(results, 'utf8')) as { success: boolean; numFailedTests: number; numFailedTestSuites: number };
    expect(report).toMatchObject({ success: true, numFailedTests: 0, numFailedTestSuites: 0 });
    const summary = await summarize([0, 0], [['scratch', results, unhandled, exit.code]]);
    expect(lines(summary.stdout)).toEqual(['scratch: Uncaught Exception in uncaught.test.js > passes but leaves an error behind: Error: uncaught later', '3 passed, 1 failed']);
    expect(summary.code).toBe(1);
    // Without the reporter's record, the exit status alone still fails the line.
    await rm(unhandled);
    const blind = await summarize([0, 0], [['scratch', results, join(scratch, 'unhandled-none.json'), exit.code]]);
    expect(lines(blind.stdout).at(-1)).toBe('3 passed, 1 failed');
  });

  it('a run that wrote no report, and a report that cannot be read, each count as a failure', async () => {
    const { results, unhandled, exit } = await vitest(['passing']);
    expect(exit.code).toBe(0);
    const garbled = join(scratch, 'garbled.json');
    await writeFile(garbled, '{"numPassedTests": 2,');
    const summary = await summarize(
      [2, 0],
      [
        ['unit', results, unhandled, 0],
        ['reliability', join(scratch, 'never-written.json'), join(scratch, 'never-written-either.json'), 1],
        ['other', garbled, unhandled, 0],
      ],
    );
    const out = lines(summary.stdout);
    expect(out.at(-1)).toBe('4 passed, 2 failed');
    expect(out[0]).toMatch(/^reliability: no report \(vitest exited 1 without writing .*never-written\.json\)$/);
    expect(out[1]).toMatch(/^other: its report cannot be read \(/);
    expect(summary.code).toBe(1);
  });

  it('a green run is counted as green: passed tests and checks, 0 failed, exit 0', async () => {
    const { results, unhandled, exit } = await vitest(['passing']);
    expect(exit.code).toBe(0);
    const summary = await summarize([2, 0], [['unit', results, unhandled, exit.code]]);
    expect(summary).toEqual({ code: 0, stdout: '4 passed, 0 failed\n', stderr: '' });
    // A failed check (lint, typecheck) counts too.
    expect((await summarize([1, 1], [['unit', results, unhandled, exit.code]])).stdout).toBe('3 passed, 1 failed\n');
  });

  it('a missing snapshot is written and passes without CI, and fails with CI=true, which .ci/run sets', async () => {
    const snapshot = join(scratch, '__snapshots__', 'reviewed.txt');
    await rm(join(scratch, '__snapshots__'), { recursive: true, force: true });
    const written = await vitest(['snapshot']);
    expect(written.exit.code).toBe(0);
    expect(existsSync(snapshot)).toBe(true);

    await rm(snapshot);
    const refused = await vitest(['snapshot'], { CI: 'true' });
    expect(refused.exit.code).toBe(1);
    expect(existsSync(snapshot)).toBe(false);
    const summary = await summarize([0, 0], [['scratch', refused.results, refused.unhandled, refused.exit.code]]);
    expect(lines(summary.stdout)).toEqual(['scratch: failed test snapshot.test.js > matches its snapshot', '0 passed, 1 failed']);

    expect(await readFile(join(PROJECT_ROOT, '.ci', 'run'), 'utf8')).toMatch(/^export CI=true$/m);
    await mkdir(join(scratch, '__snapshots__'), { recursive: true });
  });
});
