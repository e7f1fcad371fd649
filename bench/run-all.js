#!/usr/bin/env node
// Runs every benchmark in this folder, one after another (they compete for the same two cores
// otherwise). Each prints its figures and writes them under bench/results/. Build first:
// `npm run build`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = readdirSync(here)
  .filter((name) => name.endsWith('.js') && name !== 'run-all.js')
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort();

let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const run = spawnSync(process.execPath, [join(here, script)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exitCode = failed === 0 ? 0 : 1;
