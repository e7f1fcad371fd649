#!/usr/bin/env node
// Runs every per-area benchmark in this folder, one after another (they compete for the same two
// cores otherwise): `npm run bench:areas [name...]`. Each prints its figures and writes them under
// bench/out/ (untracked). The side-by-side benchmark is bench/run.js (`npm run bench`). Build
// first: `npm run build`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// Not per-area benchmarks: this runner, the side-by-side runner and its baseline, shared helpers and scripts,
// the test suite's cost (test-suite.js: minutes per run), and the comparison of two builds (big-before-after.js: needs --before).
const NOT_BENCHES = new Set(['run-all.js', 'run.js', 'baseline.js', 'cpu-common.js', 'hostile-formats-files.js', 'test-suite.js', 'big-before-after.js']);
const only = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((name) => name.endsWith('.js') && !NOT_BENCHES.has(name))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort();

let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const run = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exitCode = failed === 0 ? 0 : 1;
