#!/usr/bin/env node
// Many accounts in one daemon: 200 targets (each its own key on one emulator, which runs in its own
// process with 20-40 ms latency and is not measured) × 50 glossaries × 2 dictionaries × 200 entries.
// After the first reconcile has created everything, a full reconcile of every target (every target
// reads and compares all its dictionaries) is started with SIGHUP: the target work of a scheduled
// run (which would not re-read the files; SIGHUP does, about a second here). A schedule is not used
// to start it: at this size a run can outlast any short cron period, and a long one would leave the
// bench waiting. Figures of that run: its wall (first target start → last target end), the slowest
// single target's own duration in it and the sum of all targets' durations, the daemon's peak
// memory during it (VmHWM, reset before the run) and over its whole life (the first reconcile, which
// creates every glossary, included), and its CPU seconds.
// Two daemons, one after the other: one at the default parallel_targets (8 at once; the config sets
// none) and one with every target at once (--parallel-targets N).
// Targets: at the default, peak memory over the daemon's whole life < 500 MB (1 MB = 10^6 bytes);
// with every target at once, wall ≤ 1.5 × the slowest target (close to it, not the sum). The other
// figures (the memory of every target at once, the wall at 8 at once) are stated beside them.
//
//   node bench/many-targets.js [--quick] [--targets N] [--glossaries N] [--entries N] [--parallel N|default|all]
//                              [--heap-mb N]   (the daemon's --max-old-space-size)
//
// --quick: 40 targets × 10 glossaries (stated in the output). --parallel: only that configuration.
// Build first (`npm run build`). Writes bench/out/many-targets.txt and many-targets.json (untracked;
// bench/run.js reads the JSON).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { OUT, ROOT, getJson, parseArgs, startEmulatorProcess } from './cpu-common.js';
import { manyTargetsRepository, settled, startWatch, usage } from './daemon-idle.js';

const args = parseArgs(process.argv.slice(2));
const QUICK = args.quick === true;
const TARGETS = Number(args.targets ?? (QUICK ? 40 : 200));
const GLOSSARIES = Number(args.glossaries ?? (QUICK ? 10 : 50));
const ENTRIES = Number(args.entries ?? 200);
const { DEFAULT_PARALLEL_TARGETS: DEFAULT_PARALLEL } = await import(pathToFileURL(path.join(ROOT, 'dist', 'daemon', 'target-runs.js')).href);
/** Each configuration measured: `parallel` undefined is the daemon's default (no --parallel-targets). */
const CONFIGURATIONS = (() => {
  const chosen = args.parallel === undefined ? ['default', 'all'] : [String(args.parallel)];
  return chosen.map((p) => (p === 'default' ? { name: 'default', parallel: undefined } : { name: p === 'all' ? 'all' : p, parallel: p === 'all' ? TARGETS : Number(p) }));
})();
const WALL_RATIO_TARGET = 1.5;
const MEMORY_TARGET_MB = 500;

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

async function peakMemory(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(text)[1]) * 1024;
}

/** Every target's first run with trigger `reload` (SIGHUP) that started after `afterMs`. */
async function firstScheduledRun(endpoint, names, afterMs, timeoutMs = 1_800_000) {
  const seen = new Map();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await getJson(`${endpoint}/status`);
    for (const name of names) {
      const t = status.targets[name];
      if (!seen.has(name) && t?.last?.trigger === 'reload' && Date.parse(t.last.at) - t.last.durationMs >= afterMs) seen.set(name, t.last);
    }
    if (seen.size === names.length) return seen;
    if (Date.now() > deadline) throw new Error(`timed out: ${seen.size} of ${names.length} targets ran the full reconcile`);
    await sleep(250);
  }
}


/**
 * One daemon at `parallel` targets at once (undefined: its default): its first reconcile (which
 * creates every glossary), then a full reconcile of every target started with SIGHUP.
 */
async function measure(repo, { name, parallel }) {
  const emulator = await startEmulatorProcess({ latency: '20-40' });
  const nodeOptions = args['heap-mb'] === undefined ? {} : { NODE_OPTIONS: `--max-old-space-size=${Number(args['heap-mb'])}` };
  const extra = parallel === undefined ? [] : ['--parallel-targets', String(parallel)];
  const atOnce = parallel ?? DEFAULT_PARALLEL;
  log(`${name === 'default' ? `parallel_targets: the default (${DEFAULT_PARALLEL} at once)` : `--parallel-targets ${parallel}${parallel === TARGETS ? ' (every target at once)' : ''}`}`);
  const watch = await startWatch(repo.dir, { ...repo.env, ...nodeOptions, TERMSYNC_BASE_URL: emulator.url }, extra);
  try {
    const first = await settled(watch.endpoint, 3_600_000);
    const created = Object.values(first.targets).filter((t) => t.last.result === 'changed').length;
    log(`  first reconcile: ${created} of ${TARGETS} targets created their glossaries`);
    const lifePeak = await peakMemory(watch.child.pid);
    // Resets VmHWM (proc(5), clear_refs): the peak that follows is the full reconcile's.
    await writeFile(`/proc/${watch.child.pid}/clear_refs`, '5');
    const startedAt = Date.now();
    const cpuBefore = (await usage(watch.child.pid)).cpu;
    watch.child.kill('SIGHUP');
    const runs = await firstScheduledRun(watch.endpoint, repo.names, startedAt - 1000);
    const cpuAfter = (await usage(watch.child.pid)).cpu;
    const starts = [...runs.values()].map((r) => Date.parse(r.at) - r.durationMs);
    const ends = [...runs.values()].map((r) => Date.parse(r.at));
    const durations = [...runs.values()].map((r) => r.durationMs);
    const results = [...new Set([...runs.values()].map((r) => r.result))];
    const wall = (Math.max(...ends) - Math.min(...starts)) / 1000;
    const slowest = Math.max(...durations) / 1000;
    const sum = durations.reduce((a, b) => a + b, 0) / 1000;
    const runPeakMb = (await peakMemory(watch.child.pid)) / 1e6;
    const lifePeakMb = Math.max(runPeakMb, lifePeak / 1e6);
    const m = { name, parallel: atOnce, wall, slowest, sum, cpu: cpuAfter - cpuBefore, runPeakMb, lifePeakMb, results, converged: results.length === 1 && results[0] === 'converged' };
    log(`  full reconcile of every target (SIGHUP): results ${results.join(', ')}`);
    log(
      `  wall ${wall.toFixed(1)} s; slowest target ${slowest.toFixed(1)} s; sum of all targets ${sum.toFixed(1)} s; ` +
        `wall / slowest ${(wall / slowest).toFixed(2)}; wall / (sum ÷ ${atOnce} at once) ${(wall / (sum / atOnce)).toFixed(2)}`,
    );
    log(`  daemon CPU during the run ${m.cpu.toFixed(1)} s; daemon peak memory during the run ${runPeakMb.toFixed(0)} MB; over its whole life, the first reconcile included ${lifePeakMb.toFixed(0)} MB`);
    return m;
  } catch (error) {
    log(`  failed: ${error.message}; the daemon ${watch.child.exitCode === null ? 'still runs' : `exited ${watch.child.exitCode}`}; its last words:\n${watch.stderr().slice(-2000)}`);
    return { name, parallel: atOnce, failed: error.message };
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
    await emulator.close();
  }
}

/** The targets each configuration is judged by: memory at the default, the wall with every target at once. */
function judge(m) {
  if (m.failed !== undefined) return [{ row: `${m.name}: the run`, on: 'the run', measured: `failed: ${m.failed}`, goal: 'converged', met: false }];
  const targets = [{ row: `${m.name}: every target converged`, on: 'the result of each target\'s run', measured: m.results.join(', '), goal: 'converged', met: m.converged }];
  if (m.name === 'default') targets.push({ row: 'peak memory, default parallel_targets', on: 'peak RSS of the daemon over its whole life (VmHWM), first reconcile included', measured: `${m.lifePeakMb.toFixed(0)} MB`, goal: `< ${MEMORY_TARGET_MB} MB`, met: m.lifePeakMb < MEMORY_TARGET_MB });
  if (m.parallel === TARGETS) targets.push({ row: 'wall ÷ slowest target, every target at once', on: 'wall of the full reconcile (first start → last end) ÷ the slowest target\'s duration', measured: `${(m.wall / m.slowest).toFixed(2)} ×`, goal: `≤ ${WALL_RATIO_TARGET} ×`, met: m.wall / m.slowest <= WALL_RATIO_TARGET });
  return targets;
}

log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`${TARGETS} targets × ${GLOSSARIES} glossaries × 2 dictionaries × ${ENTRIES} entries${QUICK ? ' (--quick)' : ''}; emulator latency 20-40 ms`);
if (args['heap-mb'] !== undefined) log(`daemon NODE_OPTIONS: --max-old-space-size=${Number(args['heap-mb'])}`);
const repo = await manyTargetsRepository(TARGETS, { glossaries: GLOSSARIES, entries: ENTRIES });
const measured = [];
try {
  for (const configuration of CONFIGURATIONS) measured.push(await measure(repo, configuration));
} finally {
  await rm(repo.dir, { recursive: true, force: true });
}
const targets = measured.flatMap(judge);
for (const t of targets) log(`${t.row}: ${t.measured} (target ${t.goal}) ${t.met ? 'met' : 'MISSED'}`);
log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'many-targets.txt'), `${out.join('\n')}\n`);
await writeFile(path.join(OUT, 'many-targets.json'), `${JSON.stringify({ targets: TARGETS, glossaries: GLOSSARIES, entries: ENTRIES, quick: QUICK, measured, judged: targets }, null, 2)}\n`);
process.exitCode = targets.every((t) => t.met) ? 0 : 1;
