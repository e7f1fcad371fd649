// The dashboard's cost in a repository of 1,000 glossaries × 2 dictionaries: the server CPU time of
// one page (the daemon's own process, from /proc: user + system, per request) and the bytes one
// page takes on the wire (headers and body, gzip as a browser asks for it; uncompressed too). Pages:
// the overview (targets: < 200 ms server time, < 150 kB transferred), Resources (1,000 rows) and the
// first run's page (the plan of 1,000 creations, cut at the pull-request comment's size).
//
//   node bench/dashboard.js [--glossaries 1000] [--rounds 5] [--requests 10]
//
// Build first (`npm run build`). The daemon (`termsync watch`) and the emulator run as their own
// processes over real HTTP; nothing runs in the daemon but the requests measured (no schedule, no
// edit). Each round sends `--requests` requests of each page one after the other and divides the
// daemon's CPU time by them; the figures are min / median / max over the rounds, with the load
// average. Printed, and written to bench/out/dashboard.txt (untracked). Exits 1 on a missed target.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { generateMany, OUT, ROOT, startEmulatorProcess } from './cpu-common.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const GLOSSARIES = arg('glossaries', 1000);
const ROUNDS = arg('rounds', 5);
const REQUESTS = arg('requests', 10);
const CLK_TCK = 100;
const TARGETS = { overviewMs: 200, overviewBytes: 150_000 };

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

async function until(what, probe, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The process's CPU seconds so far (user + system). */
async function cpuSeconds(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** One GET on its own connection: the status, the bytes on the wire (status line, headers, body as sent) and the body's size once decoded. */
function getPage(url, gzip) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent: false, headers: gzip ? { 'accept-encoding': 'gzip, deflate, br' } : {} }, (res) => {
      let body = 0;
      res.on('data', (chunk) => (body += chunk.length));
      res.on('end', () => {
        const head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${res.rawHeaders.reduce((s, v, i) => s + (i % 2 === 0 ? `${v}: ` : `${v}\r\n`), '')}\r\n`;
        resolve({ status: res.statusCode, wire: Buffer.byteLength(head) + body, body, encoding: res.headers['content-encoding'] ?? 'identity' });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function stats(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0], median: sorted[Math.floor((sorted.length - 1) / 2)], max: sorted.at(-1) };
}

const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-dashboard-'));
const emulator = await startEmulatorProcess({ latency: '' });
let watch;
try {
  await generateMany(dir, GLOSSARIES, 20);
  watch = spawn(process.execPath, [path.join(ROOT, 'bin', 'termsync.js'), 'watch', '--dir', dir, '--listen', '127.0.0.1:0', '--log-level', 'warn', '--no-verify'], {
    env: { ...process.env, TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench-key' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  watch.stderr.on('data', (c) => (stderr += c));
  const base = await until('the endpoints', () => /serving .* on (http:\/\/\S+)/.exec(stderr)?.[1], 60_000);
  const started = Date.now();
  await until('the first reconcile', async () => {
    const status = JSON.parse((await new Promise((resolve, reject) => http.get(`${base}/status`, { agent: false }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(text));
    }).on('error', reject))));
    return status.runs.length > 0 && status.running === null ? status.runs[0] : undefined;
  });
  log(`termsync dashboard: ${GLOSSARIES} glossaries × 2 dictionaries (first reconcile: ${((Date.now() - started) / 1000).toFixed(1)} s); ${ROUNDS} rounds × ${REQUESTS} requests per page`);
  let missed = false;
  for (const [name, page] of [
    ['overview', '/'],
    ['resources', '/resources'],
    ['run 1', '/run?id=1'],
  ]) {
    const first = await getPage(`${base}${page}`, true);
    const plain = await getPage(`${base}${page}`, false);
    if (first.status !== 200) throw new Error(`${page}: ${first.status}`);
    const perRequest = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = await cpuSeconds(watch.pid);
      for (let i = 0; i < REQUESTS; i++) await getPage(`${base}${page}`, true);
      perRequest.push(((await cpuSeconds(watch.pid)) - before) / REQUESTS);
    }
    const ms = stats(perRequest.map((s) => s * 1000));
    log(
      `  ${name.padEnd(10)} server CPU per page ${ms.median.toFixed(1)} ms (min ${ms.min.toFixed(1)}, max ${ms.max.toFixed(1)}); transferred ${first.wire.toLocaleString('en')} bytes (${first.encoding}), ${plain.wire.toLocaleString('en')} bytes uncompressed`,
    );
    if (name === 'overview' && (ms.median >= TARGETS.overviewMs || first.wire >= TARGETS.overviewBytes)) {
      missed = true;
      log(`  MISSED: the overview must take < ${TARGETS.overviewMs} ms of server time and < ${TARGETS.overviewBytes.toLocaleString('en')} bytes`);
    }
  }
  log(`  load average: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'dashboard.txt'), `${out.join('\n')}\n`);
  if (missed) process.exitCode = 1;
} finally {
  watch?.kill('SIGTERM');
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
