#!/usr/bin/env node
// Why `termsync plan` with no change (1,000 glossaries × 2 × 1,000 entries) runs full garbage
// collections while it receives the dictionaries, and what changes their number. Each run is a
// process of its own (`node --trace-gc --trace-incremental-marking [flags] bin/termsync.js plan`)
// against the emulator in its own process (latency 20-40 ms), the service in the state
// bench/floor-many.js measures (termsync applied, then the replace-all script rewrote every
// dictionary). Variants (sets of node flags, e.g. `--max-semi-space-size=4`; `none` is Node's
// defaults) alternate run by run, every other round in reverse order; for each: CPU seconds (user +
// system, every thread), the number of mark-compacts and of scavenges, the main thread's time in
// each kind as --trace-gc reports it (pauses, and for mark-compacts the incremental steps before
// them), and why V8 began each incremental marking (its reason and its old-generation size / limit
// / slack) as V8 prints them. The replace-all script (bench/baseline.js, Node's defaults) runs in
// the same rounds, first, for the ratio the many-glossaries row's target is about.
//
//   node bench/plan-gc.js [--runs 5] [--build DIR] [--variants 'none;--max-semi-space-size=4'] [--corpus big]
//
// --corpus big: the 10 MiB dictionary of bench/big-before-after.js (cpu-common.js generateBig)
// instead of the 1,000 glossaries, applied by termsync (no script between rounds).
//
// Results go to bench/out/plan-gc.{txt,json} (plan-gc-big.* with --corpus big) only.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, generateBig, generateMany, HERE, measure, OUT, resolveBuild, startEmulatorProcess, stats, usageIfAsked } from './cpu-common.js';
import { isMarkCompact } from './gc-trace.js';

const argv = process.argv.slice(2);
// Its own reading of the options: a --variants value may begin with "--" (parseArgs would take it for a flag).
usageIfAsked(argv);
const arg = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(arg('--runs') ?? 5);
const build = resolveBuild(arg('--build'));
const variants = (arg('--variants') ?? 'none;--max-semi-space-size=8;--max-semi-space-size=4').split(';').map((v) => v.trim());
const big = arg('--corpus') === 'big';
const flagsOf = (variant) => (variant === 'none' ? [] : variant.split(/\s+/));

const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};
log(`full collections of the ${big ? '10 MiB' : 'many-glossaries'} plan — build ${build}, node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`date: ${new Date().toISOString()}; ${big ? 'one 10 MiB dictionary' : '1000 glossaries × 2 × 1,000 entries'}; ${runs} rounds; variants: ${variants.join(' | ')}`);

const work = await mkdtemp(path.join(tmpdir(), 'termsync-plan-gc-'));
const dir = path.join(work, big ? 'big' : 'many');
const emulator = await startEmulatorProcess();
const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench' };
try {
  if (big) await generateBig(dir);
  else await generateMany(dir);
  measure(['apply', '--dir', dir], { build, env });
  if (!big) measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env });
  const samples = variants.map(() => []);
  const starts = variants.map(() => new Map());
  const script = [];
  for (let round = 0; round < runs; round++) {
    if (!big) {
      const s = measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env });
      script.push(s.cpu);
      console.log(`  round ${round + 1}, replace-all script: ${s.cpu.toFixed(2)} s CPU (load ${loadavg()[0].toFixed(2)})`);
    }
    // Every other round in reverse order: no variant always follows another (a load that falls or
    // rises through a round).
    const order = [...variants.entries()];
    if (round % 2 === 1) order.reverse();
    for (const [i, variant] of order) {
      const m = measure(['--trace-gc', '--trace-incremental-marking', ...flagsOf(variant), path.join(build, 'bin', 'termsync.js'), 'plan', '--detailed-exitcode', '--dir', dir], { bare: true, env, expect: [0] });
      const out = m.stdout.split('\n');
      const markCompacts = out.filter(isMarkCompact).length;
      const scavenges = out.filter((l) => / Scavenge /.test(l)).length;
      // `... Mark-Compact 22.2 (54.1) -> 18.9 (54.1) MB, 2.78 / 0.23 ms  (+ 12.5 ms in 57 steps ...`
      const msOf = (kind) =>
        out.reduce((sum, l) => {
          const m = new RegExp(` ${kind} .* MB, ([\\d.]+) / [\\d.]+ ms(?:  \\(\\+ ([\\d.]+) ms in)?`).exec(l);
          return m === null ? sum : sum + Number(m[1]) + Number(m[2] ?? 0);
        }, 0);
      const markCompactMs = msOf('Mark-Compact');
      const scavengeMs = msOf('Scavenge');
      // `[IncrementalMarking] Start (task): (size/limit/slack) v8: 19MB / 42MB / 23MB ...`
      for (const l of out) {
        const start = /\[IncrementalMarking\] Start \(([^)]*)\): \(size\/limit\/slack\) v8: (\d+)MB \/ (\d+)MB \/ (\d+)MB/.exec(l);
        if (start === null) continue;
        const key = `${start[1]}, slack ≤ ${Math.ceil(Number(start[4]) / 8) * 8} MB`;
        starts[i].set(key, (starts[i].get(key) ?? 0) + 1);
      }
      samples[i].push({ cpu: m.cpu, rssMb: m.rssMb, markCompacts, scavenges, markCompactMs, scavengeMs });
      console.log(`  round ${round + 1}, ${variant}: ${m.cpu.toFixed(2)} s CPU, ${markCompacts} mark-compacts (${markCompactMs.toFixed(0)} ms), ${scavenges} scavenges (${scavengeMs.toFixed(0)} ms), ${m.rssMb.toFixed(0)} MB (load ${loadavg()[0].toFixed(2)})`);
    }
  }
  const results = {};
  log('');
  const scriptCpu = big ? undefined : stats(script);
  if (scriptCpu !== undefined) log(`replace-all script: ${fmt(scriptCpu)} s CPU`);
  log('');
  log('| node flags | CPU s | × script | mark-compacts | their main-thread ms | scavenges | their ms | peak RSS MB | incremental marking began (reason, old-generation slack): count |');
  log('|---|---|---|---|---|---|---|---|---|');
  for (const [i, variant] of variants.entries()) {
    const s = samples[i];
    const row = {
      cpu: stats(s.map((m) => m.cpu)),
      markCompacts: stats(s.map((m) => m.markCompacts)),
      markCompactMs: stats(s.map((m) => m.markCompactMs)),
      scavenges: stats(s.map((m) => m.scavenges)),
      scavengeMs: stats(s.map((m) => m.scavengeMs)), rssMb: stats(s.map((m) => m.rssMb)), starts: Object.fromEntries(starts[i]) };
    results[variant] = row;
    const began = [...starts[i]].map(([k, n]) => `${k}: ${n}`).join('; ');
    log(`| ${variant} | ${fmt(row.cpu)} | ${scriptCpu === undefined ? '–' : (row.cpu.median / scriptCpu.median).toFixed(2)} | ${fmt(row.markCompacts, 0)} | ${fmt(row.markCompactMs, 0)} | ${fmt(row.scavenges, 0)} | ${fmt(row.scavengeMs, 0)} | ${fmt(row.rssMb, 0)} | ${began} |`);
  }
  log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, `plan-gc${big ? '-big' : ''}.txt`), `${lines.join('\n')}\n`);
  await writeFile(path.join(OUT, `plan-gc${big ? '-big' : ''}.json`), `${JSON.stringify({ build, variants, date: new Date().toISOString(), runs, corpus: big ? 'big' : 'many', script: scriptCpu, results }, null, 2)}\n`);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
