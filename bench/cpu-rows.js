#!/usr/bin/env node
// CPU and memory of termsync's heavy commands, each run as its own process as a user runs it:
// CPU seconds (user + system), peak RSS and wall time from /usr/bin/time, median of --runs runs
// (default 5) with min and max. The emulator runs in its own process (latency 20-40 ms) and is
// not measured. CPU seconds are the figure that counts on a shared machine; wall times are noisy.
//
//   node bench/cpu-rows.js [--build DIR] [--runs 5] [--only big,many,validate,startup] [--label NAME] [--glossaries 1000]
//
// --build measures another build (a folder with bin/termsync.js and a built dist/, e.g. an
// older commit exported and built elsewhere); the default is this checkout. --glossaries makes the
// many-glossaries repository smaller (its wall budgets scaled as bench/run.js --quick scales them).
// Results go to bench/out/cpu-rows-<label>.{txt,json} only.
//
// Rows, judged against the targets bench/run.js judges (bench/targets.js, where they are stated):
//   big:      first apply of one 10 MiB dictionary (175k entries); plan of it with no change and with
//             BIG_PLAN_CHANGES (100) changed terms
//   many:     plan with no change of 1,000 glossaries × 2 × 1,000 entries against the replace-all
//             script (bench/baseline.js, the baseline of bench/run.js), both 8 at once, no rate
//   validate: validate of that repository (wall; bench/load-repo.js compares with one thread)
//   startup:  --version and validate of the example repository, without and with NODE_EXTRA_CA_CERTS,
//             against a bare node started the same way (wall, absolutely and as a ratio)
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { editBigTerms, fmt, generateBig, generateMany, measure, OUT, parseArgs, resolveBuild, startEmulatorProcess, stats, HERE } from './cpu-common.js';
import {
  BIG_PLAN_CHANGES,
  STARTUP_RATIO,
  STARTUP_WALL,
  bigApplyGoal,
  bigApplyMet,
  bigPlanGoal,
  bigPlanMet,
  manyPlanGoal,
  manyPlanMet,
  validateWallBudget,
} from './targets.js';

const args = parseArgs(process.argv.slice(2));
const build = resolveBuild(args.build);
const runs = Number(args.runs ?? 5);
const only = new Set(String(args.only ?? 'startup,big,many,validate').split(','));
const label = String(args.label ?? (args.build === undefined ? 'current' : path.basename(build)));
const glossaries = Number(args.glossaries ?? 1000);
const EXTRA_CA = path.join(HERE, 'fixtures', 'extra-ca.pem');
const verdict = (met) => (met ? 'met' : 'MISSED');

const lines = [];
const results = {};
const log = (line) => {
  lines.push(line);
  console.log(line);
};

/** Runs `fn` `runs` times, logs each run and the summary; returns the stats. */
function row(name, fn, n = runs) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const m = fn(i);
    samples.push(m);
    console.log(`  ${name} run ${i + 1}: ${m.cpu.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB, ${m.wall.toFixed(2)} s wall`);
  }
  const r = { cpu: stats(samples.map((m) => m.cpu)), rssMb: stats(samples.map((m) => m.rssMb)), wall: stats(samples.map((m) => m.wall)) };
  results[name] = r;
  log(`${name}: CPU ${fmt(r.cpu, 2, ' s')}; peak RSS ${fmt(r.rssMb, 0, ' MB')}; wall ${fmt(r.wall, 2, ' s')}`);
  return r;
}

log(`termsync CPU/memory rows — build ${build} (${label}), node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`date: ${new Date().toISOString()}`);
const work = await mkdtemp(path.join(tmpdir(), 'termsync-cpu-rows-'));
const emulator = only.has('big') || only.has('many') ? await startEmulatorProcess() : undefined;
const env = emulator === undefined ? {} : { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench' };
try {
  if (only.has('startup')) {
    for (const [what, env, ratio] of [
      ['', { NODE_EXTRA_CA_CERTS: '' }, STARTUP_RATIO.plain],
      [', NODE_EXTRA_CA_CERTS', { NODE_EXTRA_CA_CERTS: EXTRA_CA }, STARTUP_RATIO.ca],
    ]) {
      const bare = row(`bare node (node -e "")${what}`, () => measure(['-e', ''], { bare: true, env }), runs * 2);
      const version = row(`termsync --version${what}`, () => measure(['--version'], { build, env }), runs * 2);
      const validate = row(`termsync validate (example repository)${what}`, () => measure(['validate', '--dir', build], { build, env }), runs * 2);
      const wallRatio = validate.wall.median / bare.wall.median;
      log(`  ratio to bare node, CPU: --version ${(version.cpu.median / bare.cpu.median).toFixed(2)}×, validate ${(validate.cpu.median / bare.cpu.median).toFixed(2)}×; wall: ${(version.wall.median / bare.wall.median).toFixed(2)}×, ${wallRatio.toFixed(2)}×`);
      log(`  goal: validate ≤ ${STARTUP_WALL} s wall: ${verdict(validate.wall.median <= STARTUP_WALL)}; ≤ ${ratio} × a bare node's wall: ${verdict(wallRatio <= ratio)} (wall on a quiet machine)`);
    }
  }
  if (only.has('big')) {
    const dir = path.join(work, 'big');
    const { entries } = await generateBig(dir);
    log(`big repository: one dictionary of ${entries} entries (10 MiB)`);
    const apply = row('first apply, 10 MiB dictionary', (i) => {
      if (i > 0) execReset();
      return measure(['apply', '--dir', dir], { build, env });
    });
    log(`  goal: ${bigApplyGoal} (CPU median, peak RSS max): ${verdict(bigApplyMet(apply))}`);
    const noChange = row('plan, 10 MiB dictionary, no change', () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [0] }));
    await editBigTerms(dir, BIG_PLAN_CHANGES);
    const changed = row(`plan, 10 MiB dictionary, ${BIG_PLAN_CHANGES} changed terms`, () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [2] }));
    await editBigTerms(dir, BIG_PLAN_CHANGES, true);
    log(`  goal: ${bigPlanGoal} (median), no change and ${BIG_PLAN_CHANGES} changed terms: ${verdict(bigPlanMet([noChange, changed]))}`);
    await emulator.reset();
  }
  if (only.has('many') || only.has('validate')) {
    const dir = path.join(work, 'many');
    await generateMany(dir, glossaries);
    const size = `${glossaries.toLocaleString('en')} × 2 × 1,000`;
    log(`many repository: ${glossaries.toLocaleString('en')} glossaries × 2 dictionaries × 1,000 entries`);
    if (only.has('many')) {
      measure(['apply', '--dir', dir], { build, env });
      const baseline = row('replace-all script (PUT every dictionary)', () => measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env }));
      const plan = row(`plan, ${size}, no change`, () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [0] }));
      log(`  goal: ${manyPlanGoal} (CPU median, peak RSS max): ${(plan.cpu.median / baseline.cpu.median).toFixed(2)} × the script's ${baseline.cpu.median.toFixed(2)} s, ${plan.rssMb.max.toFixed(0)} MB: ${verdict(manyPlanMet(plan, baseline))}`);
      await emulator.reset();
    }
    if (only.has('validate')) {
      const validate = row(`validate, ${size}`, () => measure(['validate', '--dir', dir], { build }));
      const budget = validateWallBudget(glossaries);
      log(`  goal: < ${budget.toFixed(2)} s wall (median): ${verdict(validate.wall.median < budget)}`);
    }
  }
} finally {
  await emulator?.close();
  await rm(work, { recursive: true, force: true });
}

function execReset() {
  // The first apply creates everything: empty the emulator's account first (synchronously, between runs).
  measure(['--input-type=module', '-e', `await fetch(${JSON.stringify(`${emulator.url}/__emulator/reset`)}, { method: 'POST' })`], { bare: true });
}

log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, `cpu-rows-${label}.txt`), `${lines.join('\n')}\n`);
await writeFile(path.join(OUT, `cpu-rows-${label}.json`), `${JSON.stringify({ build, label, date: new Date().toISOString(), results }, null, 2)}\n`);
