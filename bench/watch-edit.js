// What one edit costs `termsync watch`, build against build: the daemon over a generated repository
// of G glossaries × D dictionaries × E entries (default 200 × 3 × 1,000, the repository of run.js
// scenario 8), and after its first reconcile, one-term edits of one entries file, each measured from
// the write to the end of the run that applied it (wall: the run's own start and duration from
// /status, so the 100 ms between two looks at /status are not counted) and as the daemon's CPU
// seconds (user + system, from /proc) over that span. The builds alternate, one daemon per build and round, so that
// both see the same machine load; the load average is printed with each round. Build first.
//
//   node bench/watch-edit.js [--builds DIR,DIR] [--glossaries 200] [--dictionaries 3]
//                            [--entries 1000] [--edits 5] [--rounds 2]
//
// --builds: folders holding bin/termsync.js and a built dist/ (default: this one). An old build is
// e.g. a copy of dist/ with bin/, package.json and a link to node_modules next to it.
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { generateCatalogue, getJson, parseArgs, resolveBuild, startEmulatorProcess, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const builds = String(args.builds ?? '').split(',').filter((b) => b !== '').map(resolveBuild);
if (builds.length === 0) builds.push(resolveBuild());
const G = Number(args.glossaries ?? 200);
const D = Number(args.dictionaries ?? 3);
const E = Number(args.entries ?? 1000);
const EDITS = Number(args.edits ?? 5);
const ROUNDS = Number(args.rounds ?? 2);
async function usage(pid) {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]) / 1024;
  return { cpu: (Number(stat[11]) + Number(stat[12])) / 100, rssMb: kb('VmRSS'), hwmMb: kb('VmHWM') };
}

/** Looks every `everyMs`: /status is read at most ten times a second, so that answering it adds little to the daemon's CPU. */
async function until(what, probe, timeoutMs, stderr, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${stderr().slice(-1000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A run on /status, told from the others by when it started (/status keeps the last 20 runs only, so a count of them stops at 20). */
const runId = (run) => (run === undefined ? '' : `${run.startedAt} ${run.trigger}`);

/** One daemon of `build` over `dir`: its first reconcile, then EDITS edits; the samples of each. */
async function daemonRound(build, dir, url, tag) {
  const child = spawn(process.execPath, [path.join(build, 'bin', 'termsync.js'), 'watch', '--dir', dir, '--listen', '127.0.0.1:0', '--log-level', 'warn'], {
    env: { ...process.env, TERMSYNC_BASE_URL: url, TERMSYNC_API_KEY: 'bench-key' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const log = () => stderr;
  try {
    const endpoint = await until('the endpoints', () => /serving .* on (http:\/\/\S+)/.exec(stderr)?.[1], 60_000, log, 10);
    const status = () => getJson(`${endpoint}/status`);
    /** The newest run once it is over, if it is not `last` (the newest run before). */
    const idle = async (last) => {
      const s = await status();
      return s.running === null && s.runs[0] !== undefined && runId(s.runs[0]) !== last ? s.runs[0] : undefined;
    };
    let last = runId(await until('the first reconcile', () => idle(''), 600_000, log));
    const samples = [];
    for (let i = 0; i < EDITS; i++) {
      const file = path.join(dir, 'glossaries', 'entries', `g${Math.min(3, G - 1)}.en-de.tsv`);
      const before = await usage(child.pid);
      // The daemon's clock is this machine's: the run's end (its start plus its duration) less the write's start.
      const writtenAt = Date.now();
      await appendFile(file, `bench term ${tag}-${i}\tBenchbegriff ${tag}-${i}\n`);
      const run = await until('the run after the edit', () => idle(last), 120_000, log);
      last = runId(run);
      const wall = (Date.parse(run.startedAt) + run.durationMs - writtenAt) / 1000;
      if (run.result !== 'changed') throw new Error(`edit ${i} ended ${run.result}`);
      const after = await usage(child.pid);
      samples.push({ cpu: after.cpu - before.cpu, wall, rssMb: after.rssMb, hwmMb: after.hwmMb });
    }
    return samples;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const show = (s, digits = 2) => `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;

const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-watch-edit-'));
const emulator = await startEmulatorProcess({ latency: '' });
try {
  await generateCatalogue(dir, G, D, E);
  console.log(`${G} glossaries × ${D} dictionaries × ${E} entries; ${EDITS} one-term edits per daemon, ${ROUNDS} rounds, builds alternating`);
  const all = new Map(builds.map((b) => [b, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, build] of builds.entries()) {
      const samples = await daemonRound(build, dir, emulator.url, `${round}-${k}`);
      all.get(build).push(...samples);
      console.log(`round ${round + 1}, ${build}: CPU ${samples.map((s) => s.cpu.toFixed(2)).join(' ')} s; wall ${samples.map((s) => s.wall.toFixed(2)).join(' ')} s; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    }
  }
  console.log('\nper edit, min / median / max:');
  for (const [build, samples] of all) {
    console.log(
      `${build}: daemon CPU ${show(stats(samples.map((s) => s.cpu)))} s; write → applied ${show(stats(samples.map((s) => s.wall)))} s; ` +
        `RSS after an edit ${show(stats(samples.map((s) => s.rssMb)), 0)} MiB, peak ${Math.max(...samples.map((s) => s.hwmMb)).toFixed(0)} MiB (n=${samples.length})`,
    );
  }
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
