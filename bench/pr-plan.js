// The pull-request plan benchmark: a repository of 1,000 glossaries × 2 dictionaries × ENTRIES
// entries, the service (the emulator) at 5 requests per second as in the example config, and a pull
// request that changes one term. `termsync plan --refresh changed --base HEAD` must make the listing
// reads plus one entries read, in under 5 s wall. Each run is a fresh `node bin/termsync.js`
// process, as in CI; wall time and the child's CPU time (user + system) are reported.
//
// Setting up the service state is not measured: the emulator's clock jumps a second per call while
// the first apply creates the 1,000 glossaries, so its 5-per-second limit does not make that take
// 400 s; during the measured runs the clock is real time.
//
// Run `npm run build` first. Usage: node bench/pr-plan.js [runs] [entries]   (defaults 7, 1000)
// Results: bench/out/pr-plan.txt (not tracked).
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCli } from '../dist/cli/main.js';
import { startEmulator } from '../dist/emulator/index.js';

const RUNS = Number(process.argv[2] ?? 7);
const ENTRIES = Number(process.argv[3] ?? 1000);
const GLOSSARIES = 1000;
const PAIRS = ['de', 'fr'];
const RATE = 5;
const WALL_GOAL_MS = 5000;
const BIN = fileURLToPath(new URL('../bin/termsync.js', import.meta.url));
// Printed by the child at exit: its own CPU time, in microseconds.
const CPU_PROBE = `data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("cpu-us "+(u.userCPUTime+u.systemCPUTime)+"\\n")})`;

const git = promisify(execFile);
const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

function config(rate, concurrency) {
  return (
    `version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: ${rate}, concurrency: ${concurrency} }\n` +
    'targets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n'
  );
}

async function generate(root) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries'), { recursive: true });
  await writeFile(path.join(root, 'config', 'termsync.yaml'), config(1000, 8));
  for (let g = 0; g < GLOSSARIES; g++) {
    const dictionaries = PAIRS.map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: g${g}.en-${lang}.tsv\n`).join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}`);
    for (const lang of PAIRS) {
      let text = '';
      for (let i = 0; i < ENTRIES; i++) text += `product term ${g}-${i}\tBegriff ${lang} ${g}-${i}\n`;
      await writeFile(path.join(root, 'glossaries', `g${g}.en-${lang}.tsv`), text);
    }
  }
}

/** One fresh CLI process; resolves with its exit code, wall time and CPU time. */
function runProcess(argv, env, cwd) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // BENCH_NODE_ARGS: extra node options for the measured process, e.g. --cpu-prof --cpu-prof-dir=/tmp/prof.
    const extra = (process.env['BENCH_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');
    const child = spawn(process.execPath, [...extra, '--import', CPU_PROBE, BIN, ...argv], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - start;
      const cpuUs = Number(/cpu-us (\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ code, wallMs, cpuMs: cpuUs / 1000, stdout, stderr: stderr.replace(/cpu-us \d+\n/, '') });
    });
  });
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

const fmt = (s) => `min ${(s.min / 1000).toFixed(2)} s, median ${(s.median / 1000).toFixed(2)} s, max ${(s.max / 1000).toFixed(2)} s`;

const root = await mkdtemp(path.join(tmpdir(), 'termsync-bench-pr-'));
// Jumps a second per call while seeding (the rate limit never bites), then runs on real time.
let seeding = true;
let offset = 0;
const clock = { now: () => (seeding ? Date.now() + (offset += 1000) : Date.now() + offset) };
const emulator = await startEmulator({ port: 0, seed: 1, rateLimit: RATE, clock });
const env = { ...process.env, TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench', TERMSYNC_ALLOWED_HOSTS: '127.0.0.1' };
let failed = false;

try {
  log(`termsync pull-request plan benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'})`);
  log(`date: ${new Date().toISOString()}; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (wall times are only comparable on a quiet machine)`);
  await generate(root);
  log(`repository: ${GLOSSARIES} glossaries × ${PAIRS.length} dictionaries × ${ENTRIES} entries; service at ${RATE} requests/s (emulator --rate-limit ${RATE}, config requests_per_second: ${RATE})`);
  const io = { stdout: () => {}, stderr: (t) => process.stderr.write(t), env, cwd: root, signal: new AbortController().signal };
  const seeded = await runCli(['apply', '--dir', root], io);
  if (seeded !== 0) throw new Error(`seeding apply exited ${seeded}`);
  seeding = false;
  await writeFile(path.join(root, 'config', 'termsync.yaml'), config(RATE, 4));
  await git('git', ['-C', root, 'init', '--quiet']);
  await git('git', ['-C', root, 'add', '--all']);
  await git('git', ['-C', root, '-c', 'user.name=bench', '-c', 'user.email=bench@termsync.invalid', 'commit', '--quiet', '--message', 'base']);
  // The pull request: one changed term.
  const file = path.join(root, 'glossaries', 'g500.en-de.tsv');
  await writeFile(file, (await readFile(file, 'utf8')).replace('Begriff de 500-7\n', 'Begriff de 500-7 (neu)\n'));

  const walls = [];
  const cpusMs = [];
  for (let i = 1; i <= RUNS; i++) {
    const mark = emulator.requests().length;
    const run = await runProcess(['plan', '--refresh', 'changed', '--base', 'HEAD', '--detailed-exitcode', '--format', 'markdown'], env, root);
    const requests = emulator.requests().slice(mark);
    const entries = requests.filter((r) => r.path.endsWith('/entries')).length;
    const listings = requests.length - entries;
    const throttled = requests.filter((r) => r.status === 429).length;
    const ok = run.code === 2 && entries === 1 && throttled === 0 && run.stdout.includes('+ product term 500-7 → Begriff de 500-7 (neu)');
    log(
      `run ${i}: exit ${run.code}, wall ${(run.wallMs / 1000).toFixed(2)} s, CPU ${(run.cpuMs / 1000).toFixed(2)} s, ` +
        `${requests.length} requests (${listings} listing, ${entries} entries, ${throttled} throttled)${ok ? '' : ' UNEXPECTED'}`,
    );
    if (!ok) {
      failed = true;
      log(run.stderr.trim());
    }
    walls.push(run.wallMs);
    cpusMs.push(run.cpuMs);
  }
  const notRefreshed = /_(\d+) unchanged resources were not re-read/.exec((await runProcess(['plan', '--refresh', 'changed', '--base', 'HEAD', '--format', 'markdown'], env, root)).stdout)?.[1];
  log(`comment says: ${notRefreshed ?? '?'} unchanged resources were not re-read`);
  // What reading and checking the repository alone costs (no service): the floor of any plan.
  const validate = await runProcess(['validate'], env, root);
  log(`termsync validate (reads and checks the whole repository, no requests): wall ${(validate.wallMs / 1000).toFixed(2)} s, CPU ${(validate.cpuMs / 1000).toFixed(2)} s, exit ${validate.code}`);
  const wall = stats(walls);
  log(`wall: ${fmt(wall)} (goal: under ${WALL_GOAL_MS / 1000} s) ${wall.max < WALL_GOAL_MS ? 'MET' : wall.median < WALL_GOAL_MS ? 'MET at the median, not at the max' : 'MISSED'}`);
  log(`CPU:  ${fmt(stats(cpusMs))} (user + system, both threads of the process)`);
  log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  log(`a full plan (--refresh all) would read ${GLOSSARIES * PAIRS.length} dictionaries: at ${RATE} requests/s at least ${(GLOSSARIES * PAIRS.length) / RATE} s of requests alone`);
} finally {
  await emulator.close();
  await rm(root, { recursive: true, force: true });
}

await mkdir(new URL('./out/', import.meta.url), { recursive: true });
await writeFile(new URL('./out/pr-plan.txt', import.meta.url), `${out.join('\n')}\n`);
process.exitCode = failed ? 1 : 0;
