// The daemon's first load against `validate`, build against build: a generated repository of
// G glossaries × D dictionaries × E entries (default 1,000 × 2 × 1,000, TSV, the repository of
// run.js's "many" rows, `Größe` in every target term), and in each round, for each build, each
// measured as a process of its own:
//   - `termsync validate --dir REPO`: wall, and CPU (user + system) and peak RSS from /usr/bin/time;
//   - `termsync watch --dir REPO --listen 127.0.0.1:0 --log-level debug`: wall from the spawn to the
//     "repository loaded" line of its debug log, and its CPU, its main thread's CPU and its peak RSS
//     then (from /proc, read as soon as the line arrives; /proc counts CPU in ticks of 10 ms). The
//     process's CPU beyond its main thread's is V8's own threads (a few tenths of a second) and the
//     load's worker thread when it started one (parallel-load.ts). The target's base URL is a
//     closed port: the load comes before any request, and the daemon is stopped right after it.
// With --only imports (or imports among others): `termsync watch --help`, the CPU of loading the watch
// command before its run begins; the daemon's first load begins right after that (the rest of the
// daemon is imported while the load runs, see src/daemon/first-load.ts).
// The builds alternate within each round, so that a busy spell of the machine hits them alike; the
// load average is printed with each round. Build first (npm run build).
//
// With --only floor (or floor among others): the floor of any load of this repository on one
// thread, as plain Node with nothing of termsync: (1) read every file, (2) and decode the entries
// files from UTF-8, (3) and split them into lines and fields and look each source term up in a Map
// (the duplicate check), (4) and parse every YAML file with the yaml library.
//
//   node bench/first-load.js [--builds DIR,DIR] [--runs 5] [--only validate,watch,imports,floor]
//                            [--glossaries 1000] [--dictionaries 2] [--entries 1000] [--keep DIR]
//
// --builds: folders holding bin/termsync.js and a built dist/ (default: this one). An old build is
// e.g. a copy of dist/ with bin/, package.json and a link to node_modules next to it.
// --keep DIR: generate the repository into DIR (kept, and reused when it is already there).
// Results go to bench/out/first-load.json (untracked).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { OUT, fmt, generateCatalogue, measure, parseArgs, resolveBuild, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const builds = String(args.builds ?? '').split(',').filter((b) => b !== '').map(resolveBuild);
if (builds.length === 0) builds.push(resolveBuild());
const RUNS = Number(args.runs ?? 5);
const G = Number(args.glossaries ?? 1000);
const D = Number(args.dictionaries ?? 2);
const E = Number(args.entries ?? 1000);
const ONLY = String(args.only ?? 'validate,watch').split(',');
const FIRST_LOAD = 2.5;

/** CPU (user + system) of a /proc stat line, in seconds. */
const statCpu = (text) => {
  const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** The process's CPU, its main thread's (the thread whose id is the process's), and its peak RSS. */
async function usage(pid) {
  const cpu = statCpu(await readFile(`/proc/${pid}/stat`, 'utf8'));
  const mainCpu = statCpu(await readFile(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
  const hwm = Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  return { cpu, mainCpu, rssMb: hwm / 1e6 };
}

const ENV = { TERMSYNC_BASE_URL: 'http://127.0.0.1:9', TERMSYNC_API_KEY: 'bench-key-not-used:fx' };

/** `watch` from spawn to "repository loaded": wall, and the daemon's CPU and peak RSS then. */
function firstLoad(build, dir) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, [path.join(build, 'bin', 'termsync.js'), 'watch', '--dir', dir, '--listen', '127.0.0.1:0', '--log-level', 'debug'], {
      env: { ...process.env, ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let done = false;
    const onData = (chunk) => {
      stderr += chunk;
      if (done || !stderr.includes('repository loaded')) return;
      done = true;
      const wall = (performance.now() - start) / 1000;
      usage(child.pid).then(
        (u) => {
          child.kill('SIGTERM');
          child.once('exit', () => resolve({ wall, ...u }));
        },
        (error) => reject(error),
      );
    };
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      if (!done) reject(new Error(`watch exited (${code}) before the repository loaded: ${stderr.slice(-2000)}`));
    });
  });
}

/** The floor steps, one process each (see the head of this file): plain Node, no termsync. */
function floorCode(dir, step) {
  return `const fs = require('node:fs'); const path = require('node:path');
const dir = ${JSON.stringify(dir)}; const step = ${step};
const yaml = step >= 4 ? require(${JSON.stringify(path.resolve('node_modules/yaml'))}) : undefined;
const folder = path.join(dir, 'glossaries'); const entries = path.join(folder, 'entries');
let lines = 0;
for (const f of fs.readdirSync(folder)) {
  if (!f.endsWith('.yaml')) continue;
  const bytes = fs.readFileSync(path.join(folder, f));
  if (yaml) yaml.parseDocument(bytes.toString('utf8'));
}
for (const f of fs.readdirSync(entries)) {
  const bytes = fs.readFileSync(path.join(entries, f));
  if (step < 2) continue;
  const text = bytes.toString('utf8');
  if (step < 3) continue;
  const seen = new Map();
  let start = 0;
  for (let end = text.indexOf('\\n'); end !== -1; start = end + 1, end = text.indexOf('\\n', start)) {
    const tab = text.indexOf('\\t', start);
    const source = text.slice(start, tab);
    if (seen.has(source)) throw new Error('duplicate');
    seen.set(source, text.slice(tab + 1, end));
    lines++;
  }
}
if (step >= 3 && lines === 0) throw new Error('no lines');`;
}

const FLOOR_STEPS = ['read every file', '+ decode the entries from UTF-8', '+ split lines and fields, Map of sources', '+ parse the YAML files'];

const OWN = args.keep === undefined;
const root = OWN ? await mkdtemp(path.join(tmpdir(), 'termsync-first-load-')) : path.resolve(String(args.keep));
const repo = path.join(root, 'repo');
const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};
try {
  if (!existsSync(path.join(repo, 'config', 'termsync.yaml'))) await generateCatalogue(repo, G, D, E);
  log(`first load vs validate, ${G} × ${D} × ${E} — node ${process.version}, ${cpus().length} CPUs, builds: ${builds.join(', ')}`);
  const results = builds.map(() => ({ validate: [], watch: [], imports: [] }));
  const floor = FLOOR_STEPS.map(() => []);
  for (let run = 1; run <= RUNS; run++) {
    log(`round ${run}: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    if (ONLY.includes('floor')) {
      for (const [k, label] of FLOOR_STEPS.entries()) {
        const m = measure(['-e', floorCode(repo, k + 1)], { bare: true });
        floor[k].push(m);
        log(`  floor ${k + 1} (${label}): ${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB`);
      }
    }
    for (const [b, build] of builds.entries()) {
      if (ONLY.includes('validate')) {
        const m = measure(['validate', '--dir', repo], { build });
        results[b].validate.push(m);
        log(`  ${path.basename(build)} validate: ${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB`);
      }
      if (ONLY.includes('imports')) {
        const m = measure(['watch', '--help'], { build });
        results[b].imports.push(m);
        log(`  ${path.basename(build)} watch --help (imports before the first load): ${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU, ${m.rssMb.toFixed(0)} MB`);
      }
      if (ONLY.includes('watch')) {
        const m = await firstLoad(build, repo);
        results[b].watch.push(m);
        log(`  ${path.basename(build)} watch → repository loaded: ${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU (main thread ${m.mainCpu.toFixed(2)} s), ${m.rssMb.toFixed(0)} MB`);
      }
    }
  }
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const summary = [];
  for (const [k, list] of floor.entries()) {
    if (list.length === 0) continue;
    const s = { kind: `floor ${k + 1}`, step: FLOOR_STEPS[k], wall: stats(list.map((m) => m.wall)), cpu: stats(list.map((m) => m.cpu)), rssMb: stats(list.map((m) => m.rssMb)) };
    summary.push(s);
    log(`floor ${k + 1} (${FLOOR_STEPS[k]}), one thread: wall ${fmt(s.wall, 2, ' s')}, CPU ${fmt(s.cpu, 2, ' s')}, peak RSS ${fmt(s.rssMb, 0, ' MB')}`);
  }
  for (const [b, build] of builds.entries()) {
    for (const kind of ['validate', 'imports', 'watch']) {
      const list = results[b][kind];
      if (list.length === 0) continue;
      const s = { build, kind, wall: stats(list.map((m) => m.wall)), cpu: stats(list.map((m) => m.cpu)), rssMb: stats(list.map((m) => m.rssMb)) };
      if (kind === 'watch') s.mainCpu = stats(list.map((m) => m.mainCpu));
      summary.push(s);
      const goal = kind === 'watch' ? `  target ≤ ${FIRST_LOAD} s wall: ${s.wall.median <= FIRST_LOAD ? 'met' : 'MISSED'}` : '';
      const main = s.mainCpu === undefined ? '' : ` (main thread ${fmt(s.mainCpu, 2, ' s')})`;
      log(`${path.basename(build)} ${kind}: wall ${fmt(s.wall, 2, ' s')}, CPU ${fmt(s.cpu, 2, ' s')}${main}, peak RSS ${fmt(s.rssMb, 0, ' MB')}${goal}`);
    }
  }
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'first-load.json'), `${JSON.stringify({ date: new Date().toISOString(), sizes: [G, D, E], summary, results }, null, 2)}\n`);
} finally {
  if (OWN) await rm(root, { recursive: true, force: true });
}
