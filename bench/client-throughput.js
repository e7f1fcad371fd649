// Client throughput benchmark: N requests through the client's queue against an emulator started
// with a rate limit of R requests per second (real time). Goal: wall time within 1.15× of the ideal
// N/R, with zero failures. The client is configured with requests_per_second = R, as a project
// would configure it for an account limited to R.
// Run `npm run build` first; this script imports the compiled client and emulator from dist/.
//   node bench/client-throughput.js            # N=500, R=20 and R=50
//   N=200 RATES=10,100 node bench/client-throughput.js
// A second part measures recovery under random throttling: CREATES glossary creates at
// requests_per_second 5 against an emulator with FAULTS (default 429=0.2,503=0.1,reset=0.05,
// every 429 with Retry-After: 1), one run per seed. Goal: every create lands exactly once, and the
// wall time stays within 2x the floor the faults impose: every request sent (retries and look-ups
// included) at the configured rate, plus the 1 s pause each throttling answer asks for.
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '../dist/api/index.js';
import { startEmulator } from '../dist/emulator/index.js';

const N = Number(process.env.N ?? 500);
const RATES = (process.env.RATES ?? '20,50').split(',').map(Number);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const GOAL = 1.15;
const OUT = new URL('./out/client.txt', import.meta.url);
const CREATES = Number(process.env.CREATES ?? 21);
const FAULTS = process.env.FAULTS ?? '429=0.2,503=0.1,reset=0.05';
const SEEDS = (process.env.SEEDS ?? '1,2,3,4,5').split(',').map(Number);
const THROTTLED_RATE = 5;
const THROTTLED_GOAL = 2;

async function run(rate) {
  const emulator = await startEmulator({ port: 0, rateLimit: rate, seed: 1 });
  try {
    // Setup with its own client, then let the emulator's one-second window empty.
    const setup = createClient({ baseUrl: emulator.url, apiKey: 'bench-key', requestsPerSecond: rate });
    const glossary = await setup.createGlossary('bench', [{ sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] }]);
    await setup.close();
    await sleep(1100);
    const before = emulator.requests().length;

    const throttles = [];
    const client = createClient({
      baseUrl: emulator.url,
      apiKey: 'bench-key',
      requestsPerSecond: rate,
      concurrency: CONCURRENCY,
      metrics: { onThrottle: (kind, waitMs) => throttles.push({ kind, waitMs }) },
    });
    const start = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: N }, (_, i) => (i % 2 === 0 ? client.getGlossary(glossary.id) : client.getEntries(glossary.id, 'en', 'de'))),
    );
    const wall = (performance.now() - start) / 1000;
    await client.close();

    const log = emulator.requests().slice(before);
    const failures = results.filter((r) => r.status === 'rejected');
    return {
      rate,
      wall,
      ideal: N / rate,
      failures: failures.length,
      firstFailure: failures[0]?.reason?.message,
      sent: log.length,
      rejected429: log.filter((e) => e.status === 429).length,
      throttleWaitMs: throttles.reduce((sum, t) => sum + t.waitMs, 0),
    };
  } finally {
    await emulator.close();
  }
}

const lines = [
  `client throughput — ${new Date().toISOString()} — node ${process.version}, ${cpus().length} CPUs`,
  `N = ${N} requests (GET glossary / GET entries, alternating), concurrency ${CONCURRENCY}, client requests_per_second = R, emulator --rate-limit R`,
  `goal: wall time <= ${GOAL} x ideal (N/R), zero failures`,
  '',
  '    R   ideal s    wall s   ratio  failures  sent  429s  throttle wait ms  verdict',
];
let allMet = true;
for (const rate of RATES) {
  const r = await run(rate);
  const ratio = r.wall / r.ideal;
  const met = ratio <= GOAL && r.failures === 0;
  allMet &&= met;
  lines.push(
    `${String(r.rate).padStart(5)} ${r.ideal.toFixed(2).padStart(9)} ${r.wall.toFixed(2).padStart(9)} ${ratio.toFixed(3).padStart(7)} ${String(r.failures).padStart(9)} ${String(r.sent).padStart(5)} ${String(r.rejected429).padStart(5)} ${String(r.throttleWaitMs).padStart(17)}  ${met ? 'met' : 'MISSED'}`,
  );
  if (r.firstFailure) lines.push(`      first failure: ${r.firstFailure}`);
}
async function runThrottled(seed) {
  const emulator = await startEmulator({ port: 0, faults: FAULTS, seed });
  try {
    const throttles = [];
    const client = createClient({
      baseUrl: emulator.url,
      apiKey: 'bench-key',
      requestsPerSecond: THROTTLED_RATE,
      concurrency: 4,
      metrics: { onThrottle: (kind, waitMs) => throttles.push({ kind, waitMs }) },
    });
    const start = performance.now();
    const results = await Promise.allSettled(
      Array.from({ length: CREATES }, (_, i) => client.createGlossary(`g${i}`, [{ sourceLang: 'en', targetLang: 'de', entries: [['a', `b${i}`]] }])),
    );
    const wall = (performance.now() - start) / 1000;
    await client.close();
    const log = emulator.requests();
    emulator.setFaults('');
    const check = createClient({ baseUrl: emulator.url, apiKey: 'bench-key' });
    const names = (await check.listGlossaries()).map((g) => g.name);
    await check.close();
    const failures = results.filter((r) => r.status === 'rejected');
    return {
      seed,
      wall,
      failures: failures.length,
      firstFailure: failures[0]?.reason?.message,
      sent: log.length,
      faults: log.filter((e) => e.fault !== undefined).length,
      throttles: throttles.length,
      exact: names.length === CREATES && new Set(names).size === CREATES,
    };
  } finally {
    await emulator.close();
  }
}

lines.push(
  '',
  `under random throttling: ${CREATES} creates, client requests_per_second ${THROTTLED_RATE}, concurrency 4, emulator --faults ${FAULTS} (Retry-After: 1)`,
  `goal: every create lands exactly once; wall time <= ${THROTTLED_GOAL} x floor (sent / ${THROTTLED_RATE} + 1 s per throttle); fault-free ideal ${(CREATES / THROTTLED_RATE).toFixed(1)} s`,
  '',
  ' seed   floor s    wall s   ratio  failures  sent  faulted  throttles  exactly once  verdict',
);
for (const seed of SEEDS) {
  const r = await runThrottled(seed);
  const floor = r.sent / THROTTLED_RATE + r.throttles;
  const ratio = r.wall / floor;
  const met = ratio <= THROTTLED_GOAL && r.failures === 0 && r.exact;
  allMet &&= met;
  lines.push(
    `${String(r.seed).padStart(5)} ${floor.toFixed(2).padStart(9)} ${r.wall.toFixed(2).padStart(9)} ${ratio.toFixed(3).padStart(7)} ${String(r.failures).padStart(9)} ${String(r.sent).padStart(5)} ${String(r.faults).padStart(8)} ${String(r.throttles).padStart(10)} ${String(r.exact).padStart(13)}  ${met ? 'met' : 'MISSED'}`,
  );
  if (r.firstFailure) lines.push(`      first failure: ${r.firstFailure}`);
}

lines.push('', allMet ? 'all goals met' : 'GOAL MISSED');
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
await mkdir(new URL('./out/', import.meta.url), { recursive: true });
await writeFile(OUT, text);
if (!allMet) process.exitCode = 1;
