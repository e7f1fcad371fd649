#!/usr/bin/env node
// `npm run test:all`: every test of the project, as three vitest runs one after another (each runs
// even when one before it failed), after one build:
//   npm test     vitest.config.ts              unit and integration tests, in process
//   slow         vitest.slow.config.ts         the suites that start processes (e2e, CI examples,
//                                              the container install, the release, ...)
//   reliability  vitest.reliability.config.ts  fault storms, kill points, hostile input, the key hunt
// It ends with one line, `N passed, N failed`, over the three runs (.ci/summarize.js: every failed
// test, failed file, error outside a test and run that reported nothing counts, each named on a
// line above it). Exits 1 when anything failed.
//
//   node scripts/test-all.js [--checks PASSED FAILED]
//
// --checks: checks run before it, counted into the line (.ci/run passes lint's and typecheck's).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

/** The runs, in order. `reporters`: the config's own reporters besides `default` (the command line replaces the config's list). */
const SUITES = [
  { name: 'npm test', config: 'vitest.config.ts', reporters: [] },
  { name: 'slow', config: 'vitest.slow.config.ts', reporters: [] },
  { name: 'reliability', config: 'vitest.reliability.config.ts', reporters: ['./test/reliability/counts-reporter.ts'] },
];

function parseChecks(argv) {
  if (argv.length === 0) return { passed: 0, failed: 0 };
  const [flag, passed, failed] = argv;
  if (flag !== '--checks' || argv.length !== 3 || !/^\d+$/.test(passed ?? '') || !/^\d+$/.test(failed ?? '')) {
    throw new Error(`usage: node scripts/test-all.js [--checks PASSED FAILED] (got ${argv.join(' ')})`);
  }
  return { passed: Number(passed), failed: Number(failed) };
}

function main() {
  const checks = parseChecks(process.argv.slice(2));
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) {
    // Every suite runs the build (bin/termsync.js, the worker thread): nothing to test without it.
    console.log('npm run build failed: no test ran');
    console.log(`${checks.passed} passed, ${checks.failed + 1} failed`);
    return 1;
  }
  const out = mkdtempSync(path.join(tmpdir(), 'termsync-test-all-'));
  try {
    const summary = ['--checks', String(checks.passed), String(checks.failed)];
    for (const [index, suite] of SUITES.entries()) {
      const results = path.join(out, `${index}-results.json`);
      const unhandled = path.join(out, `${index}-unhandled.json`);
      console.log(`\n=== ${suite.name} (${suite.config}) ===`);
      const run = spawnSync(
        process.execPath,
        [
          VITEST,
          'run',
          '--config',
          suite.config,
          '--reporter=default',
          ...suite.reporters.map((r) => `--reporter=${r}`),
          '--reporter=json',
          `--outputFile.json=${results}`,
          '--reporter=./.ci/unhandled-errors-reporter.js',
        ],
        { cwd: ROOT, stdio: 'inherit', env: { ...process.env, TERMSYNC_CI_UNHANDLED: unhandled } },
      );
      // A run killed by a signal has no status: count it as failed (summarize names it).
      summary.push('--suite', suite.name, results, unhandled, String(run.status ?? 1));
    }
    console.log('');
    return spawnSync(process.execPath, [path.join(ROOT, '.ci', 'summarize.js'), ...summary], { cwd: ROOT, stdio: 'inherit' }).status ?? 1;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

process.exitCode = main();
