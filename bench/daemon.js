// The daemon's figures: edit → applied latency (median of 10 edits of the example repository), the
// requests one one-term edit costs in a repository of 1,000 glossaries × 2 dictionaries, and the idle
// CPU and memory of `termsync watch`. The daemon and the emulator each run as their own process, over
// real HTTP. Build first (`npm run build`). Figures are printed and written to bench/out/daemon.txt
// (untracked); `--quick` makes the large repository 200 glossaries and the idle window 10 s.
import { spawn } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getJson } from './cpu-common.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const bin = path.join(root, 'bin', 'termsync.js');
const quick = process.argv.includes('--quick');
const LARGE = quick ? 200 : 1000;
const IDLE_MS = quick ? 10_000 : 30_000;
const EDITS = 10;
const CLK_TCK = 100;

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

function start(args, env = {}) {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function until(what, probe, timeoutMs = 120_000, everyMs = 10) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function startEmulator() {
  const emulator = start(['emulator', '--port', '0']);
  const url = await until('the emulator', () => /listening on (\S+)/.exec(emulator.stdout())?.[1]);
  return { ...emulator, url };
}

async function startWatch(dir, url) {
  const watch = start(['watch', '--dir', dir, '--listen', '127.0.0.1:0', '--log-level', 'warn'], { TERMSYNC_BASE_URL: url, TERMSYNC_API_KEY: 'bench-key' });
  const endpoint = await until('the endpoints', () => /serving .* on (http:\/\/\S+)/.exec(watch.stderr())?.[1]);
  return { ...watch, endpoint };
}

// Own connection per call (getJson): the idle window outlasts the servers' keep-alive timeout.
const status = (endpoint) => getJson(`${endpoint}/status`);
const requests = async (url) => (await getJson(`${url}/__emulator/requests`)).requests;

async function nextRun(endpoint, count, timeoutMs) {
  return until(
    'a reconcile',
    async () => {
      const s = await status(endpoint);
      return s.runs.length > count && s.running === null ? s.runs[0] : undefined;
    },
    timeoutMs,
  );
}

/** CPU seconds (user + system) and resident memory of a process, from /proc. */
async function usage(pid) {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  const cpu = (Number(stat[11]) + Number(stat[12])) / CLK_TCK;
  const rss = Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  return { cpu, rss };
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor(sorted.length / 2)], max: sorted[sorted.length - 1] };
}

async function exampleRepository() {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-daemon-'));
  await cp(path.join(root, 'config'), path.join(dir, 'config'), { recursive: true });
  await cp(path.join(root, 'glossaries'), path.join(dir, 'glossaries'), { recursive: true });
  return dir;
}

async function largeRepository() {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-daemon-large-'));
  await mkdir(path.join(dir, 'config'));
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(
    path.join(dir, 'config', 'termsync.yaml'),
    'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\n' +
      'targets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n',
  );
  for (let g = 0; g < LARGE; g++) {
    const dicts = ['de', 'fr'].map((l) => `  - source_lang: en\n    target_lang: ${l}\n    entries_file: g${g}.en-${l}.tsv\n`).join('');
    await writeFile(path.join(dir, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Glossary ${g}\ndictionaries:\n${dicts}`);
    for (const l of ['de', 'fr']) {
      let text = '';
      for (let i = 0; i < 50; i++) text += `term ${g}-${i}\tBegriff ${l} ${g}-${i}\n`;
      await writeFile(path.join(dir, 'glossaries', `g${g}.en-${l}.tsv`), text);
    }
  }
  return dir;
}

async function latency() {
  const dir = await exampleRepository();
  const emulator = await startEmulator();
  const watch = await startWatch(dir, emulator.url);
  try {
    await nextRun(watch.endpoint, 0);
    const samples = [];
    for (let i = 0; i < EDITS; i++) {
      const count = (await status(watch.endpoint)).runs.length;
      const before = Date.now();
      await appendFile(path.join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), `bench term ${i}\tBenchbegriff ${i}\n`);
      const run = await nextRun(watch.endpoint, count, 30_000);
      if (run.result !== 'changed') throw new Error(`edit ${i} ended ${run.result}`);
      samples.push(Date.now() - before);
    }
    const s = stats(samples);
    log(`edit → applied (example repository, ${EDITS} one-term edits): min ${s.min} ms, median ${s.median} ms, max ${s.max} ms`);
    log(`  (includes the watcher's write-settle wait of 100 ms and the 300 ms debounce)`);
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
    emulator.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

async function largeEditAndIdle() {
  const dir = await largeRepository();
  const emulator = await startEmulator();
  const watch = await startWatch(dir, emulator.url);
  try {
    const first = await nextRun(watch.endpoint, 0, 600_000);
    log(`${LARGE} glossaries × 2 dictionaries × 50 entries: first reconcile ${first.result} in ${(first.durationMs / 1000).toFixed(1)} s`);
    const mark = (await requests(emulator.url)).length;
    await appendFile(path.join(dir, 'glossaries', 'g7.en-de.tsv'), 'one more term\tnoch ein Begriff\n');
    const run = await nextRun(watch.endpoint, 1, 120_000);
    const seen = (await requests(emulator.url)).slice(mark);
    const reads = seen.filter((r) => r.method === 'GET');
    const entryReads = reads.filter((r) => r.path.endsWith('/entries'));
    const writes = seen.filter((r) => r.method !== 'GET');
    log(
      `one-term edit in that repository: ${run.result} in ${run.durationMs} ms; ${seen.length} requests: ${reads.length - entryReads.length} listing reads, ` +
        `${entryReads.length} entry read${entryReads.length === 1 ? '' : 's'}, ${writes.length} write${writes.length === 1 ? '' : 's'} (${writes.map((w) => w.method).join(', ')})`,
    );

    const pid = watch.child.pid;
    const start = await usage(pid);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const end = await usage(pid);
    const cpuPercent = ((end.cpu - start.cpu) / (IDLE_MS / 1000)) * 100;
    log(
      `idle daemon (${LARGE}-glossary repository, ${IDLE_MS / 1000} s): CPU ${(end.cpu - start.cpu).toFixed(2)} s (${cpuPercent.toFixed(2)} % of a core), RSS ${(end.rss / 1048576).toFixed(0)} MiB`,
    );
  } finally {
    watch.child.kill('SIGTERM');
    await watch.exited;
    emulator.child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await latency();
await largeEditAndIdle();
await mkdir(path.join(here, 'out'), { recursive: true });
await writeFile(path.join(here, 'out', 'daemon.txt'), `${out.join('\n')}\n`);
