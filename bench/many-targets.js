#!/usr/bin/env node
// Many accounts in one daemon: 200 targets (each its own key on one emulator, which runs in its own
// process with 20-40 ms latency; only its CPU is measured, for the floor) × 50 glossaries × 2 dictionaries × 200 entries.
// One emulator for the whole bench; the first daemon's first reconcile creates everything there.
// Then, for each configuration, a daemon of its own: its first reconcile (with nothing to create),
// then --runs full reconciles of every target (every target reads and compares all its
// dictionaries), each started with SIGHUP: the target work of a scheduled run (which would not
// re-read the files; SIGHUP does, about a second here, and it is not counted: the wall and CPU of a
// run start when its first target starts). A schedule is not used to start them: at this size a
// run can outlast any short cron period, and a long one would leave the bench waiting.
// Figures of each run: its wall (first target start → last target end), the slowest target's own
// duration in it and the sum of all targets' durations, the daemon's CPU seconds (all its threads)
// and those of its main thread alone (/proc/PID/task/PID/stat: the JavaScript thread, on which all
// of a target's work but the garbage collector's helpers and the TLS/zlib pool runs), its peak
// memory during the runs (VmHWM, reset before them) and over its whole life.
// The floor: no number of targets at once makes the full reconcile shorter than the largest of
// (1) one target's own reconcile with nothing else running ("alone": a daemon with --target
// reconciling one target, measured the same way); (2) ⌈targets ÷ at once⌉ × that, the waves the
// setting makes; (3) the daemon's main thread's CPU seconds (all of a target's work runs on that
// one JavaScript thread); (4) the CPU seconds of the daemon and of the emulator that serves it
// (one machine: its cores serve both) ÷ the cores. Each run's floor is the largest of the four;
// its wall ÷ floor says how close the daemon comes to it. On a shared machine the wall is
// taken less the seconds the main thread waited, runnable, for a core (/proc/PID/task/PID/schedstat):
// an approximation (the emulator, slowed by the same load, is not corrected for), said beside the
// wall itself. While a run goes on the bench asks the daemon only /readyz.
// Targets, at the default parallel_targets (8): wall ≤ 1.2 × the floor (median of the runs), peak
// memory over the daemon's whole life (the first reconcile, which creates every glossary, included)
// < 500 MB (1 MB = 10^6 bytes). The other configurations are stated beside them.
//
//   node bench/many-targets.js [--quick] [--targets N] [--glossaries N] [--entries N] [--runs N]
//                              [--parallel LIST]   (of default, all, or numbers; default: default,16,32,64,all)
//                              [--alone T,...]     (targets measured alone; default: the first, the middle, the last)
//                              [--heap-mb N]       (the daemons' --max-old-space-size)
//                              [--build DIR]       (another built checkout's daemon, for a before/after)
//
// --quick: 40 targets × 10 glossaries, default and all, 1 run, 1 target alone (stated in the output).
// Build first (`npm run build`). Writes bench/out/many-targets.txt and many-targets.json (untracked;
// bench/run.js reads the JSON).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { OUT, ROOT, getJson, parseArgs, requestOnce, startEmulatorProcess, stats } from './cpu-common.js';
import { manyTargetsRepository, settled, startWatch } from './daemon-idle.js';

const args = parseArgs(process.argv.slice(2));
const QUICK = args.quick === true;
const TARGETS = Number(args.targets ?? (QUICK ? 40 : 200));
const GLOSSARIES = Number(args.glossaries ?? (QUICK ? 10 : 50));
const ENTRIES = Number(args.entries ?? 200);
const RUNS = Number(args.runs ?? (QUICK ? 1 : 3));
const CORES = availableParallelism();
const { DEFAULT_PARALLEL_TARGETS: DEFAULT_PARALLEL } = await import(pathToFileURL(path.join(ROOT, 'dist', 'daemon', 'target-runs.js')).href);
/** Each configuration measured: `parallel` undefined is the daemon's default (no --parallel-targets). The default comes first: its daemon creates everything. */
const CONFIGURATIONS = (() => {
  const chosen = String(args.parallel ?? (QUICK ? 'default,all' : 'default,16,32,64,all')).split(',');
  const list = chosen.map((p) => (p === 'default' ? { name: 'default', parallel: undefined } : { name: p === 'all' ? 'all' : p, parallel: p === 'all' ? TARGETS : Number(p) }));
  return list.sort((a, b) => (a.name === 'default' ? -1 : b.name === 'default' ? 1 : 0));
})();
const WALL_FLOOR_TARGET = 1.2;
const MEMORY_TARGET_MB = 500;
const CLK_TCK = 100;
const STATUS_REQUESTS = 20;

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};
const names = Array.from({ length: TARGETS }, (_, i) => `t${String(i).padStart(3, '0')}`);
const ALONE = args.alone === undefined ? [...new Set(QUICK ? [names[0]] : [names[0], names[Math.floor(TARGETS / 2)], names.at(-1)])] : String(args.alone).split(',');

async function peakMemory(pid) {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(text)[1]) * 1024;
}

/**
 * CPU seconds (user + system) of the process (all its threads) and of its main thread, from /proc;
 * and the seconds the main thread waited, runnable, for a core (schedstat: on a shared machine,
 * wall that a quiet machine would not have had).
 */
async function cpuOf(pid) {
  const seconds = async (file) => {
    const stat = (await readFile(file, 'utf8')).split(') ')[1].split(' ');
    return (Number(stat[11]) + Number(stat[12])) / CLK_TCK;
  };
  const [process, main, schedstat] = await Promise.all([seconds(`/proc/${pid}/stat`), seconds(`/proc/${pid}/task/${pid}/stat`), readFile(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')]);
  return { process, main, mainWaited: Number(schedstat.split(' ')[1]) / 1e9 };
}

/**
 * Every target's first run with trigger `reload` (SIGHUP) that started after `afterMs`, and the
 * daemon's CPU when the first of them was seen running. While the run goes on only /readyz is
 * asked (well under a millisecond of the daemon's CPU: "a reconcile is running" while a target
 * runs); /status, which says every target's last run, only once the daemon says none runs. Asked
 * every 250 ms during a run, /status of 200 targets × 50 glossaries (700 kB) took a large share of
 * the main thread the bench measures (before KeyRedactor scanned once for every key's forms, about
 * 250 ms a request).
 */
async function reloadRuns(endpoint, pid, targets, afterMs, timeoutMs = 1_800_000) {
  const deadline = Date.now() + timeoutMs;
  let cpuAtStart;
  for (;;) {
    // A daemon of one target says "a reconcile is running" while it reads the repository too: it is
    // asked /status (one target's: small) for the target's own run.
    const running =
      targets.length === 1
        ? (await getJson(`${endpoint}/status`)).targets[targets[0]]?.running?.trigger === 'reload'
        : /a reconcile is running/.test((await getJson(`${endpoint}/readyz`).catch(() => ({ reason: '' }))).reason ?? '');
    if (running && cpuAtStart === undefined) cpuAtStart = await cpuOf(pid);
    if (!running && (cpuAtStart !== undefined || Date.now() - afterMs > 5000)) {
      const status = await getJson(`${endpoint}/status`);
      const seen = new Map();
      for (const name of targets) {
        const t = status.targets[name];
        if (t?.running === null && t?.last?.trigger === 'reload' && Date.parse(t.last.at) - t.last.durationMs >= afterMs) seen.set(name, t.last);
      }
      if (seen.size === targets.length) {
        if (cpuAtStart === undefined) throw new Error('the run was over before it was seen running');
        return { runs: seen, cpuAtStart };
      }
    }
    if (Date.now() > deadline) throw new Error('timed out waiting for every target to run the full reconcile');
    // Fine-grained until a target starts (the CPU of reading the repository is not the run's), then coarse.
    await sleep(cpuAtStart === undefined ? 20 : 250);
  }
}

/** One full reconcile of `targets` on a daemon whose earlier runs are over, started with SIGHUP. */
async function fullReconcile(watch, targets, emulatorPid) {
  const pid = watch.child.pid;
  const startedAt = Date.now();
  const emulatorBefore = await cpuOf(emulatorPid);
  watch.child.kill('SIGHUP');
  const { runs, cpuAtStart } = await reloadRuns(watch.endpoint, pid, targets, startedAt - 1000);
  const cpuAfter = await cpuOf(pid);
  const emulatorAfter = await cpuOf(emulatorPid);
  const starts = [...runs.values()].map((r) => Date.parse(r.at) - r.durationMs);
  const ends = [...runs.values()].map((r) => Date.parse(r.at));
  const durations = [...runs.values()].map((r) => r.durationMs / 1000);
  const results = [...new Set([...runs.values()].map((r) => r.result))];
  const wall = (Math.max(...ends) - Math.min(...starts)) / 1000;
  const waited = cpuAfter.mainWaited - cpuAtStart.mainWaited;
  return {
    wall,
    waited,
    // The wall less the main thread's waits for a core: what the run would have taken with a core to itself.
    ownWall: Math.max(0, wall - waited),
    slowest: Math.max(...durations),
    sum: durations.reduce((a, b) => a + b, 0),
    cpu: cpuAfter.process - cpuAtStart.process,
    mainCpu: cpuAfter.main - cpuAtStart.main,
    // The emulator's CPU over the run (from before the SIGHUP: the reload sends it nothing): it serves the run on the same cores.
    emulatorCpu: emulatorAfter.process - emulatorBefore.process,
    results,
  };
}

const nodeOptions = args['heap-mb'] === undefined ? {} : { NODE_OPTIONS: `--max-old-space-size=${Number(args['heap-mb'])}` };

/** One target's full reconcile with nothing else running: a daemon of its own with --target. */
async function alone(repo, emulator, target) {
  const watch = await startWatch(repo.dir, { ...repo.env, ...nodeOptions, TERMSYNC_BASE_URL: emulator.url }, ['--target', target]);
  try {
    await settled(watch.endpoint, 600_000);
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await fullReconcile(watch, [target], emulator.pid));
    const d = stats(runs.map((r) => r.wall));
    const own = stats(runs.map((r) => r.ownWall));
    log(`  ${target} alone (--target ${target}): duration ${d.median.toFixed(2)} s (${d.min.toFixed(2)}–${d.max.toFixed(2)}), less the main thread's waits for a core ${own.median.toFixed(2)} s (${own.min.toFixed(2)}–${own.max.toFixed(2)}); CPU ${stats(runs.map((r) => r.cpu)).median.toFixed(2)} s, main thread ${stats(runs.map((r) => r.mainCpu)).median.toFixed(2)} s; results ${[...new Set(runs.flatMap((r) => r.results))].join(', ')}`);
    return { target, runs };
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
  }
}

/** One daemon at `parallel` targets at once (undefined: its default): its first reconcile, then RUNS full reconciles started with SIGHUP. */
async function measure(repo, emulator, { name, parallel }) {
  const extra = parallel === undefined ? [] : ['--parallel-targets', String(parallel)];
  const atOnce = parallel ?? DEFAULT_PARALLEL;
  log(`${name === 'default' ? `parallel_targets: the default (${DEFAULT_PARALLEL} at once)` : `--parallel-targets ${parallel}${parallel === TARGETS ? ' (every target at once)' : ''}`}`);
  const watch = await startWatch(repo.dir, { ...repo.env, ...nodeOptions, TERMSYNC_BASE_URL: emulator.url }, extra);
  try {
    const first = await settled(watch.endpoint, 3_600_000);
    const created = Object.values(first.targets).filter((t) => t.last.result === 'changed').length;
    const firstPeakMb = (await peakMemory(watch.child.pid)) / 1e6;
    log(`  first reconcile: ${created} of ${TARGETS} targets created glossaries; peak memory so far ${firstPeakMb.toFixed(0)} MB`);
    // Resets VmHWM (proc(5), clear_refs): the peak that follows is the full reconciles'.
    await writeFile(`/proc/${watch.child.pid}/clear_refs`, '5');
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await fullReconcile(watch, repo.names, emulator.pid);
      runs.push(r);
      log(
        `  run ${i + 1}: results ${r.results.join(', ')}; wall ${r.wall.toFixed(2)} s; slowest target ${r.slowest.toFixed(2)} s; sum ${r.sum.toFixed(1)} s; ` +
          `CPU ${r.cpu.toFixed(2)} s, main thread ${r.mainCpu.toFixed(2)} s, which waited ${r.waited.toFixed(2)} s for a core (wall less that ${r.ownWall.toFixed(2)} s)`,
      );
    }
    const runPeakMb = (await peakMemory(watch.child.pid)) / 1e6;
    // What one /status and one /metrics cost the daemon at this size (the dashboard, a scraper, the bench ask for them).
    const costOf = async (route) => {
      const before = await cpuOf(watch.child.pid);
      for (let i = 0; i < STATUS_REQUESTS; i++) await requestOnce(`${watch.endpoint}${route}`);
      return (((await cpuOf(watch.child.pid)).main - before.main) * 1000) / STATUS_REQUESTS;
    };
    const statusMs = await costOf('/status');
    const metricsMs = await costOf('/metrics');
    log(`  one /status: ${statusMs.toFixed(1)} ms of the main thread's CPU, one /metrics ${metricsMs.toFixed(1)} ms (${STATUS_REQUESTS} of each asked)`);
    const lifePeakMb = Math.max(runPeakMb, firstPeakMb);
    const results = [...new Set(runs.flatMap((r) => r.results))];
    const m = {
      name,
      parallel: atOnce,
      created,
      runs,
      wall: stats(runs.map((r) => r.wall)),
      waited: stats(runs.map((r) => r.waited)),
      ownWall: stats(runs.map((r) => r.ownWall)),
      slowest: stats(runs.map((r) => r.slowest)),
      sum: stats(runs.map((r) => r.sum)),
      cpu: stats(runs.map((r) => r.cpu)),
      mainCpu: stats(runs.map((r) => r.mainCpu)),
      firstPeakMb,
      runPeakMb,
      statusMs,
      metricsMs,
      lifePeakMb,
      results,
      converged: results.length === 1 && results[0] === 'converged',
    };
    log(`  peak memory during the full reconciles ${runPeakMb.toFixed(0)} MB; over the daemon's whole life ${lifePeakMb.toFixed(0)} MB`);
    return m;
  } catch (error) {
    log(`  failed: ${error.message}; the daemon ${watch.child.exitCode === null ? 'still runs' : `exited ${watch.child.exitCode}`}; its last words:\n${watch.stderr().slice(-2000)}`);
    return { name, parallel: atOnce, failed: error.message };
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
  }
}

/** The targets: at the default, the wall against the floor and the memory over the daemon's whole life; every configuration converges. */
function judge(m) {
  if (m.failed !== undefined) return [{ row: `${m.name}: the run`, on: 'the run', measured: `failed: ${m.failed}`, goal: 'converged', met: false }];
  const targets = [{ row: `${m.name}: every target converged`, on: "the result of each target's run", measured: m.results.join(', '), goal: 'converged', met: m.converged }];
  if (m.name === 'default') {
    targets.push({
      row: 'wall ÷ floor, default parallel_targets',
      on: 'wall of the full reconcile (first target start → last end) less the main thread\'s waits for a core (schedstat), ÷ the largest of the slowest target alone, ⌈targets ÷ at once⌉ × that, the main thread\'s CPU seconds and the CPU seconds of the daemon and the emulator ÷ cores (median of the runs)',
      measured: `${m.wallOverFloor.median.toFixed(2)} × (${m.wallOverFloor.min.toFixed(2)}–${m.wallOverFloor.max.toFixed(2)})`,
      goal: `≤ ${WALL_FLOOR_TARGET} ×`,
      met: m.wallOverFloor.median <= WALL_FLOOR_TARGET,
    });
    targets.push({ row: 'peak memory, default parallel_targets', on: 'peak RSS of the daemon over its whole life (VmHWM), the first reconcile included', measured: `${m.lifePeakMb.toFixed(0)} MB`, goal: `< ${MEMORY_TARGET_MB} MB`, met: m.lifePeakMb < MEMORY_TARGET_MB });
  }
  return targets;
}

log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${CORES} cores`);
log(`${TARGETS} targets × ${GLOSSARIES} glossaries × 2 dictionaries × ${ENTRIES} entries${QUICK ? ' (--quick)' : ''}; emulator latency 20-40 ms; ${RUNS} full reconcile${RUNS === 1 ? '' : 's'} per daemon`);
if (args['heap-mb'] !== undefined) log(`daemon NODE_OPTIONS: --max-old-space-size=${Number(args['heap-mb'])}`);
const repo = await manyTargetsRepository(TARGETS, { glossaries: GLOSSARIES, entries: ENTRIES });
const emulator = await startEmulatorProcess({ latency: '20-40' });
const measured = [];
const alones = [];
try {
  // The first configuration's daemon creates everything; the targets alone are measured once it has.
  const [firstConfiguration, ...rest] = CONFIGURATIONS;
  measured.push(await measure(repo, emulator, firstConfiguration));
  log('single targets alone');
  for (const target of ALONE) alones.push(await alone(repo, emulator, target));
  for (const configuration of rest) measured.push(await measure(repo, emulator, configuration));
} finally {
  await emulator.close();
  await rm(repo.dir, { recursive: true, force: true });
}
const floorAlone = Math.max(...alones.map((a) => stats(a.runs.map((r) => r.ownWall)).median));
log(`the slowest single target alone (median of its runs, less the main thread's waits for a core; the slowest of ${ALONE.join(', ')}): ${floorAlone.toFixed(2)} s`);
const show = (s, d = 2) => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;
for (const m of measured) {
  if (m.failed !== undefined) continue;
  // With P at once the targets' waits on the service alone take ⌈N ÷ P⌉ × one target alone.
  m.waves = Math.ceil(TARGETS / m.parallel) * floorAlone;
  m.emulatorCpu = stats(m.runs.map((r) => r.emulatorCpu));
  for (const r of m.runs) r.floor = Math.max(floorAlone, m.waves, r.mainCpu, (r.cpu + r.emulatorCpu) / CORES);
  m.floor = stats(m.runs.map((r) => r.floor));
  m.wallOverFloor = stats(m.runs.map((r) => r.ownWall / r.floor));
  log(
    `${m.parallel} at once${m.name === 'default' ? ' (default)' : ''}: wall ${show(m.wall)} s, less the main thread's waits for a core ${show(m.ownWall)} s; CPU ${show(m.cpu)} s, main thread ${show(m.mainCpu)} s, the emulator ${show(m.emulatorCpu)} s; ` +
      `floor ${show(m.floor)} s; wall (less the waits) ÷ floor ${show(m.wallOverFloor)}; ⌈targets ÷ at once⌉ × one alone ${m.waves.toFixed(1)} s; slowest target ${show(m.slowest)} s; peak memory ${m.runPeakMb.toFixed(0)} MB (whole life ${m.lifePeakMb.toFixed(0)} MB)`,
  );
}
const targets = measured.flatMap(judge);
for (const t of targets) log(`${t.row}: ${t.measured} (target ${t.goal}) ${t.met ? 'met' : 'MISSED'}`);
log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'many-targets.txt'), `${out.join('\n')}\n`);
await writeFile(
  path.join(OUT, 'many-targets.json'),
  `${JSON.stringify({ targets: TARGETS, glossaries: GLOSSARIES, entries: ENTRIES, quick: QUICK, runs: RUNS, cores: CORES, alone: alones, aloneSlowest: floorAlone, measured, judged: targets }, null, 2)}\n`,
);
process.exitCode = targets.every((t) => t.met) ? 0 : 1;
