// Hostile-server benchmark: `termsync plan` (the real CLI, a child process) against servers that
// misbehave, RUNS times each. Per behaviour: the exit code, the time to fail, the child's peak RSS
// and its CPU seconds, min / median / max. Goal: every run ends with exit 7, within the deadline
// the scenario sets, with a peak RSS far below what the behaviour would cost unbounded (an endless
// body grew the process to 23.7 GB before the size limit).
// Run `npm run build` first. Writes only under bench/out/.
//   node bench/hostile-server.js
//   RUNS=3 ONLY=trickle node bench/hostile-server.js
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const OUT = join(here, 'out');
const RUNS = Number(process.env.RUNS ?? 5);
const ONLY = process.env.ONLY;

// Loaded into the child before the CLI: reports its own peak RSS and CPU time as it exits.
const USAGE = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nBENCH_USAGE ' + JSON.stringify({ maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }) + '\\n'); });",
)}`;

async function listen(server) {
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A 200 whose chunked body never ends. */
function endless() {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return listen(
    createHttpServer((req, res) => {
      req.resume();
      res.on('error', () => undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"glossaries": [');
      let open = true;
      res.on('close', () => (open = false));
      const pump = () => {
        while (open) if (!res.write(chunk)) return void res.once('drain', pump);
      };
      pump();
    }),
  );
}

/** A 200 sending one byte every `everyMs`: never idle long enough for an idle timeout. */
function trickle(everyMs) {
  return listen(
    createHttpServer((req, res) => {
      req.resume();
      res.on('error', () => undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), everyMs);
      res.on('close', () => clearInterval(timer));
    }),
  );
}

/** A raw answer announcing `declared` bytes, sending a short valid body, then holding the connection. */
function lyingLength(declared) {
  return listen(
    createNetServer((socket) => {
      socket.once('data', () => socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"glossaries": []}`));
    }),
  );
}

const SCENARIOS = [
  { name: 'endless body', start: endless, env: {}, limit: 'TERMSYNC_MAX_RESPONSE_BYTES default (64 MiB)' },
  {
    name: 'trickle (1 byte / 500 ms)',
    start: () => trickle(500),
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '2000', TERMSYNC_OPERATION_DEADLINE_MS: '5000' },
    limit: 'exchange deadline 2 s, operation deadline 5 s, 10 attempts',
  },
  {
    name: 'lying Content-Length (1 MB announced, 18 bytes sent, held open)',
    start: () => lyingLength(1_000_000),
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '2000', TERMSYNC_MAX_ATTEMPTS: '1' },
    limit: 'exchange deadline 2 s, 1 attempt',
  },
];

function runPlan(dir, url, env) {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--import', USAGE, join(root, 'bin', 'termsync.js'), 'plan', '--dir', dir], {
      env: { PATH: process.env.PATH, TERMSYNC_BASE_URL: url, TERMSYNC_API_KEY: 'bench-hostile-key', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const wall = (performance.now() - start) / 1000;
      const usage = JSON.parse(/BENCH_USAGE (.*)/.exec(stderr)?.[1] ?? '{}');
      const message = stderr.split('\n').find((l) => /^Error: /.test(l)) ?? stderr.trim().split('\n')[0] ?? '';
      resolve({ code, wall, rssMiB: (usage.maxRssKb ?? NaN) / 1024, cpu: (usage.cpuUs ?? NaN) / 1e6, message });
    });
  });
}

const stats = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return { min: v[0], median: v[Math.floor(v.length / 2)], max: v[v.length - 1] };
};
const fmt = (s, digits) => `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`;

await mkdir(OUT, { recursive: true });
const dir = await mkdtemp(join(tmpdir(), 'termsync-bench-hostile-'));
await cp(join(root, 'test', 'e2e', 'fixtures', 'basic'), dir, { recursive: true });
const lines = [
  `hostile server — ${new Date().toISOString()} — node ${process.version}, ${cpus().length} CPUs, ${RUNS} runs each`,
  '`termsync plan` (child process) against each server; figures min / median / max',
  '',
];
const results = [];
let allMet = true;
try {
  for (const scenario of SCENARIOS) {
    if (ONLY && !scenario.name.includes(ONLY)) continue;
    const server = await scenario.start();
    const runs = [];
    try {
      for (let i = 0; i < RUNS; i += 1) runs.push(await runPlan(dir, server.url, scenario.env));
    } finally {
      await server.close();
    }
    const met = runs.every((r) => r.code === 7);
    allMet &&= met;
    const wall = stats(runs.map((r) => r.wall));
    const rss = stats(runs.map((r) => r.rssMiB));
    const cpu = stats(runs.map((r) => r.cpu));
    results.push({ scenario: scenario.name, limits: scenario.limit, exitCodes: runs.map((r) => r.code), wallS: wall, peakRssMiB: rss, cpuS: cpu, message: runs[0]?.message });
    lines.push(
      `${scenario.name} (${scenario.limit})`,
      `  exit codes        ${runs.map((r) => r.code).join(' ')}  ${met ? 'ok' : 'NOT MET (expected 7)'}`,
      `  time to fail s    ${fmt(wall, 2)}`,
      `  peak RSS MiB      ${fmt(rss, 1)}`,
      `  CPU s             ${fmt(cpu, 2)}`,
      `  message           ${runs[0]?.message ?? ''}`,
      '',
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const text = lines.join('\n');
console.log(text);
await writeFile(join(OUT, 'hostile-server.txt'), `${text}\n`);
await writeFile(join(OUT, 'hostile-server.json'), `${JSON.stringify(results, null, 2)}\n`);
process.exitCode = allMet ? 0 : 1;
