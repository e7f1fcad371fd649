#!/usr/bin/env node
// The 10 MiB rows of bench/cpu-rows.js (the seeded varied dictionary of cpu-common.js generateBig)
// for two builds side by side, run by run alternately, so that both meet the same load of a shared
// machine: the first apply (empty account), the plan with no change and the plan with `--changes`
// terms changed (default 100, as bench/run.js changes). CPU seconds (user + system) and peak RSS
// per process, min/median/max of --runs runs (default 5), and the load average before and after.
//
//   node bench/big-before-after.js --before DIR [--runs 5] [--changes 100] [--only apply,plan]
//
// DIR holds another build (bin/termsync.js and a built dist/), e.g. main exported and built:
//   git archive main | tar -x -C DIR && ln -s "$PWD/node_modules" DIR/ && (cd DIR && npm run build)
// The report goes to bench/out/big-before-after.txt only.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { editBigTerms, fmt, generateBig, measure, OUT, parseArgs, resolveBuild, ROOT, startEmulatorProcess, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
if (typeof args.before !== 'string') {
  console.error('usage: node bench/big-before-after.js --before DIR [--runs 5] [--changes 100] [--only apply,plan]');
  process.exit(3);
}
const builds = { before: resolveBuild(args.before), after: ROOT };
const runs = Number(args.runs ?? 5);
const changes = Number(args.changes ?? 100);
const only = new Set(String(args.only ?? 'apply,plan').split(','));
const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

const work = await mkdtemp(path.join(tmpdir(), 'termsync-big-before-after-'));
const emulator = await startEmulatorProcess();
const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'big-before-after' };
const samples = {};
const record = (row, build, m) => {
  ((samples[row] ??= {})[build] ??= []).push(m);
  console.log(`  ${row}, ${build}: ${m.cpu.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB`);
};
try {
  log(`10 MiB dictionary, before ${builds.before} / after ${builds.after}; ${new Date().toISOString()}; load ${load()}`);
  const dir = path.join(work, 'big');
  const { entries } = await generateBig(dir);
  log(`one dictionary of ${entries} entries; ${changes} changed terms; ${runs} runs of each, alternately`);
  for (let i = 0; i < runs; i++) {
    // Alternate which build goes first, so that neither always follows the other.
    const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const build of order) {
      await emulator.reset();
      const first = measure(['apply', '--dir', dir], { build: builds[build], env });
      if (only.has('apply')) record('first apply', build, first);
      if (only.has('plan')) {
        record('plan, no change', build, measure(['plan', '--detailed-exitcode', '--dir', dir], { build: builds[build], env, expect: [0] }));
        await editBigTerms(dir, changes);
        record(`plan, ${changes} changed terms`, build, measure(['plan', '--detailed-exitcode', '--dir', dir], { build: builds[build], env, expect: [2] }));
        await editBigTerms(dir, changes, true);
      }
    }
  }
  for (const [row, byBuild] of Object.entries(samples)) {
    for (const build of ['before', 'after']) {
      const s = byBuild[build];
      log(`${row}, ${build}: CPU ${fmt(stats(s.map((m) => m.cpu)), 2, ' s')}; peak RSS ${fmt(stats(s.map((m) => m.rssMb)), 0, ' MB')}`);
    }
  }
  log(`load after: ${load()}`);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'big-before-after.txt'), `${lines.join('\n')}\n`);
