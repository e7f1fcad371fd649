#!/usr/bin/env node
// `termsync watch` stopped by SIGTERM at moments of its start-up, the first load among them: the
// repository holds one glossary with a large TSV (reading it takes about a second), the daemon runs
// the built-in emulator (`--emulator auto`), and SIGTERM is sent at each delay after spawn. Each
// run must end with exit 0 soon after; one still running KILL_AFTER_MS after the signal is killed
// and counted as a miss (the script then exits 1). Prints, per delay, how the process ended, the
// seconds from SIGTERM to exit and whether the first load had ended before the signal; then the
// min/median/max of those seconds and the load average. With --files N the entries are spread over
// N glossaries of one TSV each: a load of many files, which a stop ends after the files in hand
// ("load stopped": the run logged that it stopped while reading the repository).
//
//   node bench/watch-stop-during-load.js [--quick] [--entries N] [--files N] [--delays 100,300,...] [--build DIR]
//
// --build DIR: the checkout whose bin/termsync.js runs (default: this one), e.g. an older build to compare.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const KILL_AFTER_MS = 30_000;
const { values } = parseArgs({ options: { quick: { type: 'boolean' }, entries: { type: 'string' }, files: { type: 'string' }, delays: { type: 'string' }, build: { type: 'string' } } });
const quick = values.quick === true;
const entries = Number(values.entries ?? 300_000);
const files = Number(values.files ?? 1);
const delays = (values.delays ?? (quick ? '100,400,1500' : '100,200,300,400,500,600,800,1000,1300,1600,2000,2500')).split(',').map(Number);
const bin = join(resolve(values.build ?? join(dirname(fileURLToPath(import.meta.url)), '..')), 'bin/termsync.js');

function repository() {
  const dir = mkdtempSync(join(tmpdir(), 'termsync-bench-stop-'));
  mkdirSync(join(dir, 'config'));
  mkdirSync(join(dir, 'glossaries'));
  writeFileSync(join(dir, 'config/termsync.yaml'), 'version: 1\nprune: "off"\ntargets:\n  - name: default\n');
  for (let f = 0; f < files; f++) {
    const name = files === 1 ? 'big' : `big-${String(f).padStart(4, '0')}`;
    writeFileSync(join(dir, `glossaries/${name}.yaml`), `kind: glossary\nname: ${name}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: ${name}.en-de.tsv\n`);
    const lines = [];
    for (let i = f; i < entries; i += files) lines.push(`term ${i}\tBegriff ${i}\n`);
    writeFileSync(join(dir, `glossaries/${name}.en-de.tsv`), lines.join(''));
  }
  return dir;
}

/** One daemon, SIGTERM `delayMs` after spawn: how it ended. */
function once(dir, delayMs) {
  return new Promise((done) => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir };
    const child = spawn(process.execPath, [bin, 'watch', '--dir', dir, '--listen', '127.0.0.1:0', '--emulator', 'auto', '--log-format', 'json', '--log-level', 'debug'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    let sentAt;
    let loadedBefore = false;
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    setTimeout(() => {
      loadedBefore = stderr.includes('"msg":"repository loaded"');
      sentAt = performance.now();
      child.kill('SIGTERM');
    }, delayMs);
    const killer = setTimeout(() => child.kill('SIGKILL'), delayMs + KILL_AFTER_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      done({ delayMs, ended: code ?? signal, seconds: sentAt === undefined ? 0 : (performance.now() - sentAt) / 1000, loadedBefore, stopped: stderr.includes('"msg":"stopped"'), loadStopped: stderr.includes('"msg":"stopped while reading the repository'), crashed: stderr.includes('"msg":"reconcile crashed"') });
    });
  });
}

const dir = repository();
const results = [];
try {
  for (const delay of delays) {
    const r = await once(dir, delay);
    results.push(r);
    console.log(`SIGTERM at ${String(delay).padStart(5)} ms: exit ${String(r.ended).padEnd(7)} ${r.seconds.toFixed(2).padStart(6)} s after it; first load ended before it: ${r.loadedBefore ? 'yes' : 'no '}; logged "stopped": ${r.stopped ? 'yes' : 'no'}; load stopped: ${r.loadStopped ? 'yes' : 'no '}; "reconcile crashed": ${r.crashed ? 'yes' : 'no'}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const sorted = results.map((r) => r.seconds).sort((a, b) => a - b);
const misses = results.filter((r) => r.ended !== 0);
console.log(`${entries} entries in ${files} file${files === 1 ? '' : 's'}, ${results.length} runs: seconds from SIGTERM to exit min ${sorted[0].toFixed(2)} / median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} / max ${sorted.at(-1).toFixed(2)}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (misses.length > 0) {
  console.log(`MISS: ${misses.length} of ${results.length} did not exit 0 within ${KILL_AFTER_MS / 1000} s of SIGTERM (at ${misses.map((m) => `${m.delayMs} ms`).join(', ')})`);
  process.exitCode = 1;
}
