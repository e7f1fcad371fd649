// Emulator benchmark: creating a 10 MiB glossary (the service's size limit) over real HTTP, reading
// it back, merging into it, and rejecting a 10 MiB submission whose last entry is a duplicate.
// Goal: each well under a second (linear parsing, no quadratic duplicate scan). Exits 1 naming the
// operations that missed it, as bench/run.js does its targets.
// Run `npm run build` first; this script imports the compiled emulator from dist/.
//   node bench/emulator-large-glossary.js          # 5 runs each
//   RUNS=10 node bench/emulator-large-glossary.js
//   GOAL_MS=500 node bench/emulator-large-glossary.js   # judged against another goal (default 1000)
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startEmulator } from '../dist/emulator/index.js';

const RUNS = Number(process.env.RUNS ?? 5);
const LIMIT = 10 * 1024 * 1024;
const GOAL_MS = Number(process.env.GOAL_MS ?? 1000);
const OUT = new URL('./out/emulator.txt', import.meta.url);
const HEADERS = { Authorization: 'Service-Auth-Key bench-key', 'Content-Type': 'application/json' };

/** Short entries (the worst case for per-entry costs): ~26 bytes a line, exactly `bytes` in total. */
function tsvOfSize(bytes, duplicateLast = false) {
  const lines = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = `source term ${i}\tZielbegriff ${i}`;
    const sep = lines.length > 0 ? 1 : 0;
    if (size + sep + line.length > bytes - 40) {
      const source = duplicateLast ? 'source term 0' : `last ${i}`;
      const rest = bytes - size - sep - source.length - 1;
      lines.push(`${source}\t${'t'.repeat(rest)}`);
      break;
    }
    lines.push(line);
    size += sep + line.length;
  }
  return { text: lines.join('\n'), entries: lines.length };
}

/** Wall time, and CPU time of this process (client and server share it, so it counts both sides). */
async function timed(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await fn();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000, result };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const emulator = await startEmulator({ port: 0, seed: 1 });
const { text, entries } = tsvOfSize(LIMIT);
const duplicate = tsvOfSize(LIMIT, true).text;
const createBody = JSON.stringify({ name: 'big', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: text }] });
const duplicateBody = JSON.stringify({ name: 'dup', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: duplicate }] });
const mergeLines = Array.from({ length: 1000 }, (_, i) => `source term ${i * 7}\tneu ${i}`).join('\n');
const mergeBody = JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: mergeLines }] });

const rows = { create: [], entries: [], merge: [], duplicate: [] };
const cpuRows = { create: [], entries: [], merge: [], duplicate: [] };
try {
  for (let run = 0; run < RUNS + 1; run++) {
    emulator.reset();
    const create = await timed(async () => {
      const response = await fetch(`${emulator.url}/v3/glossaries`, { method: 'POST', headers: HEADERS, body: createBody });
      const body = await response.json();
      if (response.status !== 201) throw new Error(`create answered ${response.status}: ${JSON.stringify(body)}`);
      return body;
    });
    const id = create.result.glossary_id;
    if (create.result.dictionaries[0].entry_count !== entries) throw new Error('entry count mismatch');
    const read = await timed(async () => {
      const response = await fetch(`${emulator.url}/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`, { headers: HEADERS });
      const body = await response.json();
      if (body.dictionaries[0].entries.length !== text.length) throw new Error('entries mismatch');
    });
    const merge = await timed(async () => {
      const response = await fetch(`${emulator.url}/v3/glossaries/${id}`, { method: 'PATCH', headers: HEADERS, body: mergeBody });
      if (response.status !== 200) throw new Error(`merge answered ${response.status}`);
      await response.json();
    });
    const dup = await timed(async () => {
      const response = await fetch(`${emulator.url}/v3/glossaries`, { method: 'POST', headers: HEADERS, body: duplicateBody });
      const body = await response.json();
      if (response.status !== 400 || !/duplicates key with the index 0/.test(body.detail)) throw new Error(`duplicate answered ${response.status}`);
    });
    // The first run warms up the JIT and is not counted.
    if (run === 0) continue;
    rows.create.push(create.ms);
    rows.entries.push(read.ms);
    rows.merge.push(merge.ms);
    rows.duplicate.push(dup.ms);
    cpuRows.create.push(create.cpuMs);
    cpuRows.entries.push(read.cpuMs);
    cpuRows.merge.push(merge.cpuMs);
    cpuRows.duplicate.push(dup.cpuMs);
  }
} finally {
  await emulator.close();
}

const lines = [
  `emulator, large glossary — ${new Date().toISOString()} — node ${process.version}, ${cpus().length} CPUs`,
  `glossary: ${LIMIT} bytes of TSV (exactly the 10 MiB limit), ${entries} entries, sent as JSON (${createBody.length} bytes); ${RUNS} runs after one warm-up`,
  `goal: each operation well under ${GOAL_MS} ms (median wall time; client and server in one process on the same machine)`,
  `machine load average when done: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (wall times grow with load; CPU ms counts client and server together)`,
  '',
  '  operation                                          median ms    max ms  median CPU ms  verdict',
];
const labels = {
  create: 'POST /v3/glossaries (10 MiB, parse + store)',
  entries: 'GET entries (10 MiB TSV back as JSON)',
  merge: 'PATCH merge 1000 entries into it',
  duplicate: 'POST 10 MiB with a duplicate at the end → 400',
};
const missed = [];
for (const [key, label] of Object.entries(labels)) {
  const med = median(rows[key]);
  const max = Math.max(...rows[key]);
  const met = med < GOAL_MS;
  if (!met) missed.push(`${label}: ${med.toFixed(1)} ms (goal < ${GOAL_MS} ms)`);
  lines.push(`  ${label.padEnd(50)} ${med.toFixed(1).padStart(9)} ${max.toFixed(1).padStart(9)} ${median(cpuRows[key]).toFixed(1).padStart(14)}  ${met ? 'met' : 'MISSED'}`);
}
lines.push('', missed.length === 0 ? 'GOAL MET' : `GOAL MISSED: ${missed.length} of ${Object.keys(labels).length} operations — ${missed.join('; ')}`, '');
const report = lines.join('\n');
process.stdout.write(report);
await mkdir(new URL('./out/', import.meta.url), { recursive: true });
await writeFile(OUT, report);
process.exitCode = missed.length === 0 ? 0 : 1;
