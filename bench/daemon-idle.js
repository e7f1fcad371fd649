#!/usr/bin/env node
// The idle cost of `termsync watch`: CPU seconds (user + system, from /proc) of a daemon whose first
// reconcile is done, over a window in which nothing changes and no scheduled run falls due (the
// schedule is once a day at a time the window does not reach). Repeated; min/median/max of the
// share of one core, with 1 and with 200 targets (each target its own key on one emulator, which
// runs in its own process and is not measured). Target: < 0.1 % of a core, judged on the CPU seconds
// of all the windows together ÷ their seconds: /proc counts CPU in ticks of 10 ms, and one tick in
// one window of 15 s is already 0.067 % of a core, so that a median of windows could be decided by
// where a tick fell; summed, one tick of 60 s is 0.017 %. Each window's share is shown beside.
//
//   node bench/daemon-idle.js [--quick] [--window SECONDS] [--runs N] [--targets 1,200] [--together] [--settle SECONDS]
//                          [--max-settle SECONDS] [--build DIR]
//
// --together: the daemons of each target count run side by side, not one after the other (each is
// measured on its own CPU time from /proc; the quick bench uses it to save time).
// --build: another built checkout to measure (e.g. a worktree of an earlier commit), for a before/after.
// Build first (`npm run build`). Writes bench/out/daemon-idle.txt and daemon-idle.json only (untracked;
// bench/run.js reads the JSON).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OUT, getJson, parseArgs, resolveBuild, startEmulatorProcess, stats } from './cpu-common.js';
import { isCollection, isGcLine, reducerDone } from './gc-trace.js';
import { IDLE_PERCENT, idleShare } from './targets.js';

const args = parseArgs(process.argv.slice(2));
const QUICK = args.quick === true;
const WINDOW_S = Number(args.window ?? (QUICK ? 10 : 30));
const RUNS = Number(args.runs ?? (QUICK ? 3 : 5));
// What the first reconcile leaves behind is let settle before measuring: sockets closing, and V8's
// memory reducer, which collects the run's garbage and gives back the heap it grew (Mark-Compact
// (reduce), up to three, on the main thread and V8's four helper threads). It starts a collection
// once V8 judges the allocation rate low, judged over its last ten collections' intervals, the
// run's among them; else its watchdog starts one 100 s after the last full collection (checked
// every 8 s), and the next one may wait as long again. Seen with --trace-gc-verbose: with 1 target
// 12-13 s after the run on a quiet machine, 106 s on a busy one; with 200 targets ("Memory reducer:
// high alloc" every 8 s until then) 66-107 s after the run's last full collection, and once its
// second collection 106 s after its first; with 200 targets 13-14 ticks of 10 ms on five threads in
// all, heap 32 -> 19.5 MB, committed 66 -> 22 MB. In windows from 25 s after the run those
// collections were 14 of the 20 ticks of 150 s (0.093 % of 0.133 %), while the daemon itself woke
// only for the root check every 2 s (async_hooks: nothing else ran in 30 s; no timer of any target).
// The collections are the run's cost, not the idle daemon's: the windows start once the reducer
// says it is done (the daemon runs with --trace-gc-verbose, whose lines come only at a collection
// or a step of the reducer), at least SETTLE_S and at most MAX_SETTLE_S after the run; collections
// that fall in the windows anyway are counted in the row.
const SETTLE_S = Number(args.settle ?? 25);
const MAX_SETTLE_S = Number(args['max-settle'] ?? 400);
const TARGETS = String(args.targets ?? '1,200').split(',').map(Number);
const CLK_TCK = 100;
const BIN = path.join(resolveBuild(args.build), 'bin', 'termsync.js');

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

/** A repository of `targets` targets (keys TERMSYNC_KEY_<i>) and three small glossaries. */
export async function manyTargetsRepository(targets, { glossaries = 3, entries = 20, schedule } = {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-idle-'));
  await mkdir(path.join(dir, 'config'));
  await mkdir(path.join(dir, 'glossaries'));
  const names = Array.from({ length: targets }, (_, i) => `t${String(i).padStart(3, '0')}`);
  const config =
    'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\n' +
    (schedule === undefined ? '' : `schedule: "${schedule}"\n`) +
    'targets:\n' +
    names.map((n) => `  - name: ${n}\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_KEY_${n.toUpperCase()}\n`).join('');
  await writeFile(path.join(dir, 'config', 'termsync.yaml'), config);
  for (let g = 0; g < glossaries; g++) {
    const dicts = ['de', 'fr'].map((l) => `  - source_lang: en\n    target_lang: ${l}\n    entries_file: g${g}.en-${l}.tsv\n`).join('');
    await writeFile(path.join(dir, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Glossary ${g}\ndictionaries:\n${dicts}`);
    for (const l of ['de', 'fr']) {
      let text = '';
      for (let i = 0; i < entries; i++) text += `term ${g}-${i}\tBegriff ${l} ${g}-${i}\n`;
      await writeFile(path.join(dir, 'glossaries', `g${g}.en-${l}.tsv`), text);
    }
  }
  const env = Object.fromEntries(names.map((n) => [`TERMSYNC_KEY_${n.toUpperCase()}`, `bench-key-${n}`]));
  return { dir, names, env };
}

/** CPU seconds (user + system) and resident memory of a process, from /proc. */
export async function usage(pid) {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  const cpu = (Number(stat[11]) + Number(stat[12])) / CLK_TCK;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  return { cpu, rss };
}

/**
 * CPU ticks of the process's main thread (JavaScript, timers, and the collector's own share) and of
 * its other threads together (V8's helpers, which a collection puts to work, and libuv's pool), from
 * /proc/PID/task: which side a window's ticks fall on says whether a collection made them.
 */
async function threadTicks(pid) {
  let main = 0;
  let others = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (tid === String(pid)) main += ticks;
    else others += ticks;
  }
  return { main, others };
}

/**
 * Starts `termsync watch` on `dir`; resolves once its endpoints answer. `traceGc`: V8 writes each
 * collection and each step of its memory reducer to the daemon's stdout (--trace-gc-verbose, which
 * costs nothing while no collection runs), kept in `gcLines()`.
 */
export async function startWatch(dir, env, extra = [], { traceGc = false } = {}) {
  const child = spawn(process.execPath, [...(traceGc ? ['--trace-gc', '--trace-gc-verbose'] : []), BIN, 'watch', '--dir', dir, '--listen', '127.0.0.1:0', '--log-level', 'warn', ...extra], {
    env: { ...process.env, ...env },
    stdio: ['ignore', traceGc ? 'pipe' : 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const gc = [];
  let partial = '';
  child.stdout?.on('data', (c) => {
    const lines = (partial + c).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (isGcLine(line)) gc.push(line);
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  for (let i = 0; ; i++) {
    const endpoint = /serving .* on (http:\/\/\S+)/.exec(stderr)?.[1];
    if (endpoint !== undefined) return { child, exited, endpoint, stderr: () => stderr, gcLines: () => gc };
    if (child.exitCode !== null || i > 6000) throw new Error(`termsync watch did not start:\n${stderr}`);
    await sleep(10);
  }
}

/** Waits until every target of the daemon has ended a run and none is running. */
export async function settled(endpoint, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await getJson(`${endpoint}/status`);
    const targets = Object.values(status.targets ?? {});
    if (targets.length > 0 && targets.every((t) => t.running === null && t.last !== null)) return status;
    // A daemon of before per-target runs: its first run.
    if (status.targets === undefined && status.running === null && status.runs.length > 0) return status;
    if (Date.now() > deadline) throw new Error('timed out waiting for the first reconcile');
    await sleep(200);
  }
}

async function idleOf(targets) {
  // Once a day at 03:17: the window never reaches a scheduled run, but the schedule is armed.
  const repo = await manyTargetsRepository(targets, { schedule: '17 3 * * *' });
  const emulator = await startEmulatorProcess({ latency: '' });
  const watch = await startWatch(repo.dir, { ...repo.env, TERMSYNC_BASE_URL: emulator.url }, [], { traceGc: true });
  try {
    const status = await settled(watch.endpoint);
    const results = status.targets === undefined ? [status.runs[0].result] : Object.values(status.targets).map((t) => t.last.result);
    if (!results.every((r) => r === 'changed' || r === 'converged')) throw new Error(`the first reconcile did not converge: ${results.join(', ')}`);
    // Let what the first reconcile left (sockets closing, the memory reducer's collections) settle first.
    const ran = Date.now();
    await sleep(SETTLE_S * 1000);
    while (!reducerDone(watch.gcLines()) && Date.now() - ran < MAX_SETTLE_S * 1000) await sleep(1000);
    const settle = { seconds: Math.round((Date.now() - ran) / 1000), reducerDone: reducerDone(watch.gcLines()) };
    const gcBefore = watch.gcLines().length;
    const cpus = [];
    const threads = { main: 0, others: 0 };
    let rss = 0;
    for (let run = 0; run < RUNS; run++) {
      const [before, beforeThreads] = [await usage(watch.child.pid), await threadTicks(watch.child.pid)];
      await sleep(WINDOW_S * 1000);
      const [after, afterThreads] = [await usage(watch.child.pid), await threadTicks(watch.child.pid)];
      cpus.push(after.cpu - before.cpu);
      threads.main += afterThreads.main - beforeThreads.main;
      threads.others += afterThreads.others - beforeThreads.others;
      rss = after.rss;
    }
    const collections = watch.gcLines().slice(gcBefore).filter(isCollection).length;
    const percents = cpus.map((cpu) => (cpu / WINDOW_S) * 100);
    const s = stats(percents);
    const all = idleShare(cpus, WINDOW_S, CLK_TCK);
    log(
      `idle daemon, ${targets} target${targets === 1 ? '' : 's'}: ${all.percent.toFixed(3)} % of a core over ${RUNS} windows of ${WINDOW_S} s ` +
        `(${all.ticks} ticks of 10 ms in ${all.seconds} s; resolution ${all.resolution.toFixed(3)} %) ` +
        `(target < ${IDLE_PERCENT} %: ${all.met ? 'met' : 'MISSED'}); windows: min ${s.min.toFixed(3)} %, median ${s.median.toFixed(3)} %, max ${s.max.toFixed(3)} %; ` +
        `ticks of the main thread ${threads.main}, of the other threads (V8's helpers, libuv's pool) ${threads.others}; ` +
        `collections in the windows ${collections}; RSS ${(rss / 1048576).toFixed(0)} MiB; windows from ${settle.seconds} s after the first reconcile ` +
        `(${settle.reducerDone ? "V8's memory reducer done" : `V8's memory reducer not done within ${MAX_SETTLE_S} s`})`,
    );
    return { targets, overall: all.percent, ticks: all.ticks, threadTicks: threads, collections, settle, resolution: all.resolution, percent: s, windows: percents, rssMb: rss / 1e6, windowSeconds: WINDOW_S, met: all.met };
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
    await emulator.close();
    await rm(repo.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  log(`build: ${path.dirname(path.dirname(BIN))}`);
  log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; CPU from /proc (${CLK_TCK} ticks a second: ${(100 / CLK_TCK / WINDOW_S).toFixed(3)} % of a core per tick in one window, ${(100 / CLK_TCK / WINDOW_S / RUNS).toFixed(3)} % in all ${RUNS})`);
  // --together: the daemons of each target count side by side (each measured on its own CPU time), for a quick run.
  const measured = [];
  if (args.together === true) measured.push(...(await Promise.all(TARGETS.map((n) => idleOf(n)))));
  else for (const n of TARGETS) measured.push(await idleOf(n));
  log(`load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'daemon-idle.txt'), `${out.join('\n')}\n`);
  await writeFile(path.join(OUT, 'daemon-idle.json'), `${JSON.stringify({ targetPercent: IDLE_PERCENT, measured }, null, 2)}\n`);
  process.exitCode = measured.every((m) => m.met) ? 0 : 1;
}
