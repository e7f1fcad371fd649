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
// Targets: wall ≤ 1.5 × the slowest target (close to it, not the sum); peak memory < 500 MB.
//
//   node bench/many-targets.js [--quick] [--targets N] [--glossaries N] [--entries N] [--parallel N]
//                              [--heap-mb N]   (the daemon's --max-old-space-size)
//
// --quick: 40 targets × 10 glossaries (stated in the output). --parallel: parallel_targets
// (default: every target at once). Build first (`npm run build`). Writes bench/out/many-targets.txt.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OUT, getJson, parseArgs, startEmulatorProcess } from './cpu-common.js';
import { manyTargetsRepository, settled, startWatch, usage } from './daemon-idle.js';

const args = parseArgs(process.argv.slice(2));
const QUICK = args.quick === true;
const TARGETS = Number(args.targets ?? (QUICK ? 40 : 200));
const GLOSSARIES = Number(args.glossaries ?? (QUICK ? 10 : 50));
const ENTRIES = Number(args.entries ?? 200);
const PARALLEL = Number(args.parallel ?? TARGETS);
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

log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`${TARGETS} targets × ${GLOSSARIES} glossaries × 2 dictionaries × ${ENTRIES} entries${QUICK ? ' (--quick)' : ''}; parallel_targets ${PARALLEL}; emulator latency 20-40 ms`);
const repo = await manyTargetsRepository(TARGETS, { glossaries: GLOSSARIES, entries: ENTRIES });
const emulator = await startEmulatorProcess({ latency: '20-40' });
const nodeOptions = args['heap-mb'] === undefined ? {} : { NODE_OPTIONS: `--max-old-space-size=${Number(args['heap-mb'])}` };
if (nodeOptions.NODE_OPTIONS !== undefined) log(`daemon NODE_OPTIONS: ${nodeOptions.NODE_OPTIONS}`);
const watch = await startWatch(repo.dir, { ...repo.env, ...nodeOptions, TERMSYNC_BASE_URL: emulator.url }, ['--parallel-targets', String(PARALLEL)]);
let met = false;
try {
  const first = await settled(watch.endpoint, 3_600_000);
  const created = Object.values(first.targets).filter((t) => t.last.result === 'changed').length;
  log(`first reconcile: ${created} of ${TARGETS} targets created their glossaries`);
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
  const results = new Set([...runs.values()].map((r) => r.result));
  const wall = Math.max(...ends) - Math.min(...starts);
  const slowest = Math.max(...durations);
  const sum = durations.reduce((a, b) => a + b, 0);
  const peak = await peakMemory(watch.child.pid);
  const ratio = wall / slowest;
  met = ratio <= WALL_RATIO_TARGET && peak < MEMORY_TARGET_MB * 1048576 && results.size === 1 && results.has('converged');
  log(`full reconcile of every target (SIGHUP): results ${[...results].join(', ')}`);
  log(
    `  wall ${(wall / 1000).toFixed(1)} s; slowest target ${(slowest / 1000).toFixed(1)} s; sum of all targets ${(sum / 1000).toFixed(1)} s; ` +
      `wall / slowest ${ratio.toFixed(2)} (target ≤ ${WALL_RATIO_TARGET}); wall / sum ${(wall / sum).toFixed(3)}`,
  );
  log(
    `  daemon CPU during the run ${(cpuAfter - cpuBefore).toFixed(1)} s; daemon peak memory during the run ${(peak / 1048576).toFixed(0)} MiB (target < ${MEMORY_TARGET_MB} MB); ` +
      `over its whole life, the first reconcile included ${(Math.max(peak, lifePeak) / 1048576).toFixed(0)} MiB`,
  );
  log(`targets ${met ? 'met' : 'MISSED'}`);
} catch (error) {
  log(`failed: ${error.message}; the daemon ${watch.child.exitCode === null ? 'still runs' : `exited ${watch.child.exitCode}`}; its last words:\n${watch.stderr().slice(-2000)}`);
} finally {
  watch.child.kill('SIGTERM');
  await watch.exited;
  await emulator.close();
  await rm(repo.dir, { recursive: true, force: true });
}
log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'many-targets.txt'), `${out.join('\n')}\n`);
process.exitCode = met ? 0 : 1;
