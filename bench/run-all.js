#!/usr/bin/env node
// Runs every per-area benchmark in this folder, one after another (they compete for the same two
// cores otherwise): `npm run bench:areas [name...]`. Each prints its figures and writes them under
// bench/out/ (untracked). The side-by-side benchmark is bench/run.js (`npm run bench`). Build
// first: `npm run build`.
//
// Every script it runs runs without arguments. Those that need one (a build to compare against, a
// file or a folder another script hands them) are named as skipped, with what they need.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** Not per-area benchmarks: runners, shared modules, and helpers other scripts start with their arguments. */
export const NOT_BENCHES = new Set(['run-all.js', 'run.js', 'cpu-common.js', 'rate-analysis.js', 'targets.js', 'hostile-formats-files.js', 'baseline.js', 'floor-reader.js', 'xml-floor.js']);
/** Benchmarks run-all leaves out, each with why (said on its line of the output). */
export const SKIPPED = new Map([
  ['compare-plans.js', 'needs --before DIR, an older build to compare the plans with: node bench/compare-plans.js --before DIR [--quick]'],
  ['big-before-after.js', 'needs --before DIR, an older build to measure beside this one: node bench/big-before-after.js --before DIR'],
  ['test-suite.js', "the test suite's own cost, minutes per run: node bench/test-suite.js [--runs 3]"],
]);

/** The scripts of `names` (a folder's file names) run-all runs, in order, and those it skips; `only` filters by part of the name. */
export function areaScripts(names, only = []) {
  const wanted = names
    .filter((name) => name.endsWith('.js') && !NOT_BENCHES.has(name))
    .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
    .sort();
  return { run: wanted.filter((name) => !SKIPPED.has(name)), skipped: wanted.filter((name) => SKIPPED.has(name)).map((name) => ({ name, reason: SKIPPED.get(name) })) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { run, skipped } = areaScripts(readdirSync(here), process.argv.slice(2));
  let failed = 0;
  for (const script of run) {
    console.log(`\n=== ${script} ===`);
    const result = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit' });
    if (result.status !== 0) {
      failed += 1;
      console.log(`=== ${script}: exit ${result.status ?? result.signal} ===`);
    }
  }
  for (const { name, reason } of skipped) console.log(`\n=== ${name}: skipped (${reason}) ===`);
  // Most scripts exit 1 when they miss a target; a few only say so (MISSED) in their lines.
  console.log(`\n${run.length - failed} of ${run.length} benchmarks exited 0${failed === 0 ? '' : `, ${failed} did not (named above)`}; ${skipped.length} skipped. Their lines say which targets each met.`);
  process.exitCode = failed === 0 ? 0 : 1;
}
