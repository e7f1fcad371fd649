#!/usr/bin/env node
// What a test command costs: `npm test` (or another npm script) run N times, one after another,
// each under /usr/bin/time. Per run: wall seconds, CPU seconds (user + system of npm and every
// process it waited for: vitest, its workers, the processes the tests start), the tests vitest
// counted (its JSON report), and the load average of the machine while it ran (sampled every 5 s).
// Then min / median / max of wall and CPU.
//
//   node bench/test-suite.js [--runs 3] [--script test]
//
// The script must accept vitest's arguments after `--` (test, test:all's vitest runs do). Output:
// the table on stdout and bench/out/test-suite-<script>.json (untracked). On a shared machine wall
// time follows the load; CPU seconds are the figure to compare between two versions.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { setInterval, clearInterval } from 'node:timers';
import path from 'node:path';
import { OUT, ROOT, parseArgs, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.runs ?? 3);
const SCRIPT = String(args.script ?? 'test');
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a positive whole number, got ${args.runs}`);

/** One `npm run SCRIPT` under /usr/bin/time; resolves with its figures. */
async function runOnce(index) {
  const report = path.join(OUT, `test-suite-${SCRIPT.replace(/[^\w-]/g, '_')}-${index}.json`);
  const times = path.join(OUT, `test-suite-time-${index}.txt`);
  await rm(report, { force: true });
  const loads = [loadavg()[0]];
  const sampler = setInterval(() => loads.push(loadavg()[0]), 5000);
  const child = spawn('/usr/bin/time', ['-f', '%e %U %S', '-o', times, 'npm', 'run', '--silent', SCRIPT, '--', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  loads.push(loadavg()[0]);
  const [wall, user, system] = (await readFile(times, 'utf8')).trim().split('\n').at(-1).split(' ').map(Number);
  let passed = 0;
  let failed = 0;
  try {
    const r = JSON.parse(await readFile(report, 'utf8'));
    passed = r.numPassedTests;
    // Failed tests, and files that failed without a failed test (an import or a hook that threw).
    failed = r.numFailedTests + r.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed')).length;
  } catch {
    failed = Number.NaN;
  }
  return { exit: code, wall, cpu: user + system, passed, failed, load: loads.reduce((a, b) => a + b, 0) / loads.length, loadMax: Math.max(...loads) };
}

await mkdir(OUT, { recursive: true });
const runs = [];
for (let i = 1; i <= RUNS; i++) {
  const run = await runOnce(i);
  runs.push(run);
  console.log(`run ${i}: npm run ${SCRIPT}: wall ${run.wall.toFixed(1)} s, CPU ${run.cpu.toFixed(1)} s, ${run.passed} passed, ${run.failed} failed, exit ${run.exit}, load average ${run.load.toFixed(1)} (max ${run.loadMax.toFixed(1)})`);
}
const line = (name, s) => `${name}: min ${s.min.toFixed(1)} s, median ${s.median.toFixed(1)} s, max ${s.max.toFixed(1)} s (n=${s.n})`;
const wall = stats(runs.map((r) => r.wall));
const cpu = stats(runs.map((r) => r.cpu));
const load = stats(runs.map((r) => r.load));
console.log(line(`npm run ${SCRIPT} wall`, wall));
console.log(line(`npm run ${SCRIPT} CPU `, cpu));
console.log(`load average (1 min) during the runs: min ${load.min.toFixed(1)}, median ${load.median.toFixed(1)}, max ${load.max.toFixed(1)} on 2 cores`);
await writeFile(path.join(OUT, `test-suite-${SCRIPT.replace(/[^\w-]/g, '_')}.json`), `${JSON.stringify({ script: SCRIPT, runs, wall, cpu, load }, null, 2)}\n`);
process.exitCode = runs.every((r) => r.exit === 0) ? 0 : 1;
