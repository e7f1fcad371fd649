#!/usr/bin/env node
// CPU and memory of termsync's heavy commands, each run as its own process as a user runs it:
// CPU seconds (user + system), peak RSS and wall time from /usr/bin/time, median of --runs runs
// (default 5) with min and max. The emulator runs in its own process (latency 20-40 ms) and is
// not measured. CPU seconds are the figure that counts on a shared machine; wall times are noisy.
//
//   node bench/cpu-rows.js [--build DIR] [--runs 5] [--only big,many,validate,startup] [--label NAME]
//
// --build measures another build (a folder with bin/termsync.js and a built dist/, e.g. an
// older commit exported and built elsewhere); the default is this checkout. Results go to
// bench/out/cpu-rows-<label>.{txt,json} only.
//
// Rows (targets of the performance issue):
//   big:      plan of one 10 MiB dictionary (175k entries), no change and one changed term (< 1.5 s CPU);
//             first apply of it (< 2 s CPU, < 200 MB)
//   many:     plan with no change of 1,000 glossaries × 2 × 1,000 entries (≤ replace-all CPU, < 300 MB),
//             next to the replace-all script (bench/baseline.js, the baseline of bench/run.js)
//   validate: validate of that repository (< 3 s wall; bench/load-repo.js compares with one thread)
//   startup:  --version and validate of the example repository (≤ 2 × a bare node)
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { editBig, fmt, generateBig, generateMany, measure, OUT, parseArgs, resolveBuild, startEmulatorProcess, stats, HERE } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const build = resolveBuild(args.build);
const runs = Number(args.runs ?? 5);
const only = new Set(String(args.only ?? 'startup,big,many,validate').split(','));
const label = String(args.label ?? (args.build === undefined ? 'current' : path.basename(build)));

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
    const bare = row('bare node (node -e "")', () => measure(['-e', ''], { bare: true }), runs * 2);
    const version = row('termsync --version', () => measure(['--version'], { build }), runs * 2);
    const validate = row('termsync validate (example repository)', () => measure(['validate', '--dir', build], { build }), runs * 2);
    log(`  ratio to bare node, CPU: --version ${(version.cpu.median / bare.cpu.median).toFixed(2)}×, validate ${(validate.cpu.median / bare.cpu.median).toFixed(2)}×; wall: ${(version.wall.median / bare.wall.median).toFixed(2)}×, ${(validate.wall.median / bare.wall.median).toFixed(2)}× (goal ≤ 2×)`);
  }
  if (only.has('big')) {
    const dir = path.join(work, 'big');
    const { entries } = await generateBig(dir);
    log(`big repository: one dictionary of ${entries} entries (10 MiB)`);
    const apply = row('first apply, 10 MiB dictionary', (i) => {
      if (i > 0) execReset();
      return measure(['apply', '--dir', dir], { build, env });
    });
    log(`  goal: < 2 s CPU, < 200 MB: ${apply.cpu.median < 2 && apply.rssMb.max < 200 ? 'met' : 'MISSED'}`);
    const noChange = row('plan, 10 MiB dictionary, no change', () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [0] }));
    await editBig(dir);
    const oneChange = row('plan, 10 MiB dictionary, one changed term', () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [2] }));
    await editBig(dir, true);
    log(`  goal: < 1.5 s CPU: ${noChange.cpu.median < 1.5 && oneChange.cpu.median < 1.5 ? 'met' : 'MISSED'}`);
    await emulator.reset();
  }
  if (only.has('many') || only.has('validate')) {
    const dir = path.join(work, 'many');
    await generateMany(dir);
    log('many repository: 1,000 glossaries × 2 dictionaries × 1,000 entries');
    if (only.has('many')) {
      measure(['apply', '--dir', dir], { build, env });
      const baseline = row('replace-all script (PUT every dictionary)', () => measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env }));
      const plan = row('plan, 1,000 × 2 × 1,000, no change', () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [0] }));
      log(`  goal: CPU ≤ replace-all (${baseline.cpu.median.toFixed(2)} s), < 300 MB: ${plan.cpu.median <= baseline.cpu.median && plan.rssMb.max < 300 ? 'met' : 'MISSED'}`);
      await emulator.reset();
    }
    if (only.has('validate')) {
      row('validate, 1,000 × 2 × 1,000', () => measure(['validate', '--dir', dir], { build }));
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
