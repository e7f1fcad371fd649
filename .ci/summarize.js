#!/usr/bin/env node
// The closing line of .ci/run: `N passed, N failed`, from the checks (lint, typecheck) and the
// vitest runs, each failure named on a line of its own above it.
//
//   node .ci/summarize.js --checks PASSED FAILED \
//     --suite NAME RESULTS.json UNHANDLED.json EXIT_STATUS [--suite ...]
//
// RESULTS.json is vitest's JSON report, UNHANDLED.json what .ci/unhandled-errors-reporter.js
// wrote, EXIT_STATUS vitest's. Passed: the tests that passed. Failed, one each:
//   - a failed test;
//   - a test file that failed as a whole: it threw on import, a beforeAll or afterAll failed (its
//     tests are then skipped, not failed), or it held no test. vitest counts these in
//     numFailedTestSuites (with failed describe blocks) and gives the reason in the file's
//     `message`;
//   - an error outside any test (uncaught exception, unhandled rejection): vitest exits 1 for it
//     while its JSON report says `success: true` and counts nothing;
//   - a run that wrote no report (or one that cannot be read), or a run that ran no test at all;
//   - a run whose report says it failed (`success: false`) or that exited non-zero with nothing
//     above to show for it.
// Exits 1 when anything failed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** At most this many failures are named one by one per run (the vitest output above has them all). */
const NAMED = 50;

function usage(message) {
  console.error(`summarize: ${message}`);
  console.error('usage: node .ci/summarize.js --checks PASSED FAILED --suite NAME RESULTS.json UNHANDLED.json EXIT_STATUS [--suite ...]');
  process.exitCode = 2;
}

function parseArgs(argv) {
  const checks = { passed: 0, failed: 0 };
  const suites = [];
  for (let i = 0; i < argv.length; ) {
    const flag = argv[i];
    if (flag === '--checks') {
      const [passed, failed] = argv.slice(i + 1, i + 3).map(Number);
      if (!Number.isInteger(passed) || !Number.isInteger(failed)) return { error: `--checks needs two counts, got ${argv.slice(i + 1, i + 3).join(' ')}` };
      checks.passed = passed;
      checks.failed = failed;
      i += 3;
    } else if (flag === '--suite') {
      const [name, results, unhandled, exit] = argv.slice(i + 1, i + 5);
      if (exit === undefined || !/^\d+$/.test(exit)) return { error: `--suite needs NAME RESULTS UNHANDLED EXIT_STATUS, got ${argv.slice(i + 1, i + 5).join(' ')}` };
      suites.push({ name, results, unhandled, exit: Number(exit) });
      i += 5;
    } else return { error: `unknown argument ${flag}` };
  }
  return { checks, suites };
}

function readJson(file) {
  if (!existsSync(file) || statSync(file).size === 0) return { missing: true };
  try {
    return { value: JSON.parse(readFileSync(file, 'utf8')) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** The first line of a message, shortened. */
function firstLine(text) {
  const line = String(text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function shown(file) {
  const relative = path.relative(process.cwd(), file);
  return relative.startsWith('..') ? file : relative;
}

/** One vitest run: its passed count and the failures, each a line naming it. */
function summarizeSuite({ name, results, unhandled, exit }) {
  const failures = [];
  const report = readJson(results);
  if (report.missing) return { passed: 0, failures: [`${name}: no report (vitest exited ${exit} without writing ${shown(results)})`] };
  if (report.error !== undefined) return { passed: 0, failures: [`${name}: its report cannot be read (${report.error})`] };
  const r = report.value;
  const files = Array.isArray(r.testResults) ? r.testResults : [];
  for (const file of files) {
    const tests = Array.isArray(file.assertionResults) ? file.assertionResults : [];
    const failed = tests.filter((t) => t.status === 'failed');
    for (const t of failed) failures.push(`${name}: failed test ${shown(file.name)} > ${[...(t.ancestorTitles ?? []), t.title].join(' > ')}`);
    // The file itself failed: it threw on import, a hook failed (its tests skipped), or it held no test.
    if (file.status === 'failed' && (failed.length === 0 || firstLine(file.message) !== '')) {
      const skipped = tests.filter((t) => t.status === 'skipped' || t.status === 'pending').length;
      const why = firstLine(file.message) || 'failed';
      failures.push(`${name}: failed suite ${shown(file.name)}: ${why}${skipped > 0 ? ` (${skipped} of its tests skipped)` : tests.length === 0 ? ' (no test reported)' : ''}`);
    }
  }
  // numFailedTestSuites counts failed describe blocks as well as files: the files above are what
  // it cannot be zero without.
  if ((r.numFailedTestSuites ?? 0) > 0 && !files.some((f) => f.status === 'failed')) failures.push(`${name}: ${r.numFailedTestSuites} failed suites, none of them listed in the report`);
  const errors = readJson(unhandled);
  if (errors.missing) failures.push(`${name}: no record of errors outside tests (${shown(unhandled)} not written)`);
  else if (errors.error !== undefined) failures.push(`${name}: its record of errors outside tests cannot be read (${errors.error})`);
  else {
    for (const e of errors.value.unhandledErrors ?? []) {
      const where = e.file === undefined ? '' : ` in ${shown(e.file)}${e.test === undefined ? '' : ` > ${e.test}`}`;
      failures.push(`${name}: ${e.type ?? 'unhandled error'}${where}: ${e.name ?? 'Error'}: ${firstLine(e.message)}`);
    }
  }
  if ((r.numTotalTests ?? 0) === 0 && files.length === 0) failures.push(`${name}: ran no test`);
  if (failures.length === 0 && r.success === false) failures.push(`${name}: vitest reports the run failed (success: false) without a failed test or suite`);
  if (failures.length === 0 && exit !== 0) failures.push(`${name}: vitest exited ${exit} with no failure in its report (see its output above)`);
  return { passed: Number(r.numPassedTests ?? 0), failures };
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.error !== undefined) return usage(args.error);
  if (args.suites.length === 0) return usage('no --suite given');
  let passed = args.checks.passed;
  let failed = args.checks.failed;
  for (const suite of args.suites) {
    const result = summarizeSuite(suite);
    passed += result.passed;
    failed += result.failures.length;
    for (const line of result.failures.slice(0, NAMED)) console.log(line);
    if (result.failures.length > NAMED) console.log(`${suite.name}: and ${result.failures.length - NAMED} more failures (listed in its output above)`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main();
