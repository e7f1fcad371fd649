// Loader benchmark: a generated repository of 1000 glossaries × 2 dictionaries × 1000 entries
// (goal: loadRepository < 3 s) and one 10 MiB entries file (goal: parse + canonicalise < 1 s).
// Run `npm run build` first; this script imports the compiled loader from dist/.
//
// Each load of the generated repository runs in a fresh Node process, as `termsync validate` or
// `plan` does (a warm process is faster, and not what users get). Modes alternate, so that a slow
// spell of the machine hits them alike: loadRepository as shipped (a worker thread reads entries
// files alongside the main thread), the same with `parallel: false`, and the whole CLI
// (`termsync validate`, process start to exit).
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { loadRepository, parseEntries } from '../dist/config/index.js';

const GLOSSARIES = 1000;
const DICTIONARIES = 2;
const ENTRIES = 1000;
const TARGETS = ['de', 'fr'];
const TEN_MIB = 10 * 1024 * 1024;

function entriesText(g, lang) {
  let text = '';
  for (let i = 0; i < ENTRIES; i++) text += `product term ${g}-${i} (catalogue)\tProduktbegriff ${lang} ${g}-${i} Größe\n`;
  return text;
}

async function generate(root) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries', 'entries'), { recursive: true });
  await writeFile(
    path.join(root, 'config', 'termsync.yaml'),
    'version: 1\nresources: [glossaries]\nprune: "off"\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n',
  );
  for (let g = 0; g < GLOSSARIES; g++) {
    const dictionaries = TARGETS.slice(0, DICTIONARIES)
      .map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: entries/g${g}.en-${lang}.tsv\n`)
      .join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}`);
    for (const lang of TARGETS.slice(0, DICTIONARIES)) await writeFile(path.join(root, 'glossaries', 'entries', `g${g}.en-${lang}.tsv`), entriesText(g, lang));
  }
}

// A spreadsheet export as it arrives: BOM and CRLF; `trim` adds surrounding spaces to every phrase,
// the worst case for canonicalisation (one warning per line).
function bigText(format, trim) {
  const pad = trim ? '  ' : '';
  const lines = [];
  let size = 0;
  for (let i = 0; size < TEN_MIB - 200; i++) {
    const line = format === 'tsv'
      ? `${pad}waterproof jacket model ${i}\tWasserdichte Jacke Modell ${i} Größe${pad}\r\n`
      : `"waterproof, breathable jacket ${i}","wasserdicht, atmungsaktiv ""Jacke"" ${i}"\r\n`;
    size += Buffer.byteLength(line);
    lines.push(line);
  }
  return '\uFEFF' + lines.join('');
}

const RUNS = 7;
const DIST = new URL('../dist/config/index.js', import.meta.url).href;
const CLI = new URL('../bin/termsync.js', import.meta.url).pathname;

// One load in a fresh process; prints wall and CPU time (both threads) as JSON.
function loadInChild(root, parallel) {
  const options = JSON.stringify(parallel === undefined ? { dir: root } : { dir: root, parallel });
  const code = `const { loadRepository } = await import(${JSON.stringify(DIST)});
const cpu = process.cpuUsage(); const start = performance.now();
const result = await loadRepository(${options});
const ms = performance.now() - start; const used = process.cpuUsage(cpu);
const entries = result.desired.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entries.size, 0), 0);
console.log(JSON.stringify({ ms, cpu: (used.user + used.system) / 1000, detail: result.files.length + ' files, ' + entries + ' entries, ' + result.diagnostics.length + ' diagnostics' }));`;
  return () => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }));
}

// `termsync validate` from process start to exit, as a user runs it.
function cliInChild(root) {
  return () => {
    const start = performance.now();
    const out = execFileSync(process.execPath, [CLI, 'validate', '--dir', root], { encoding: 'utf8' });
    return { ms: performance.now() - start, detail: out.trim().split('\n').at(-1) };
  };
}

function cpuMs(start) {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function time(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, cpu: cpuMs(cpu), value };
}

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

const root = await mkdtemp(path.join(tmpdir(), 'termsync-bench-'));
try {
  log(`termsync loader benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`);
  log(`date: ${new Date().toISOString()}`);
  const genStart = performance.now();
  await generate(root);
  log(`generated ${GLOSSARIES} glossaries × ${DICTIONARIES} dictionaries × ${ENTRIES} entries in ${(performance.now() - genStart).toFixed(0)} ms`);
  log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (wall-clock figures grow with other load on the machine; CPU time much less)`);
  const modes = [
    ['loadRepository (worker thread + main thread)', loadInChild(root, undefined)],
    ['loadRepository with parallel: false (main thread only)', loadInChild(root, false)],
    ['termsync validate, whole process', cliInChild(root)],
  ];
  const times = new Map(modes.map(([label]) => [label, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const [label, measure] of modes) {
      const { ms, cpu, detail } = measure();
      times.get(label).push(ms);
      log(`run ${run}, ${label}: ${ms.toFixed(0)} ms wall${cpu === undefined ? '' : `, ${cpu.toFixed(0)} ms CPU`}${detail ? ` (${detail})` : ''}`);
    }
  }
  for (const [label, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    log(`${label}: median ${median.toFixed(0)} ms, min ${sorted[0].toFixed(0)}, max ${sorted.at(-1).toFixed(0)} over ${RUNS} fresh processes  goal < 3000 ms: ${median < 3000 ? 'met' : 'MISSED'}${sorted.at(-1) >= 3000 ? ` (${sorted.filter((t) => t >= 3000).length} runs over)` : ''}`);
  }
  const example = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const exStart = performance.now();
  const exResult = await loadRepository({ dir: example });
  log(`loadRepository example repository: ${(performance.now() - exStart).toFixed(1)} ms (${exResult.files?.length ?? 0} files, ${exResult.diagnostics.length} diagnostics)`);

  const pair = { sourceLang: 'en', targetLang: 'de' };
  for (const [format, trim, label] of [['tsv', false, 'BOM, CRLF'], ['csv', false, 'BOM, CRLF, quoted fields with commas and doubled quotes'], ['tsv', true, 'BOM, CRLF, every phrase to trim: worst case']]) {
    const text = bigText(format, trim);
    const bytes = Buffer.byteLength(text);
    for (let run = 1; run <= 2; run++) {
      const { ms, cpu, value } = time(() => parseEntries(text, format, pair, `big.${format}`));
      const errors = value.diagnostics.filter((d) => d.severity === 'error').length;
      log(`parseEntries ${format.toUpperCase()} ${(bytes / 1048576).toFixed(2)} MiB (${label}) run ${run}: ${ms.toFixed(0)} ms wall, ${cpu.toFixed(0)} ms CPU, ${value.entries.size} entries, ${value.diagnostics.length} diagnostics (${errors} errors)  goal < 1000 ms: ${ms < 1000 ? 'met' : 'MISSED'}`);
    }
  }
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
// Results go to the untracked bench/out/ (committing a result is a deliberate step).
const outDir = path.join(path.dirname(new URL(import.meta.url).pathname), 'out');
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, 'loader.txt'), `${out.join('\n')}\n`);
