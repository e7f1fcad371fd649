// Loader benchmark: a generated repository of 1000 glossaries × 2 dictionaries × 1000 entries
// (goal: loadRepository < 3 s) and one 10 MiB entries file (goal: parse + canonicalise < 1 s).
// Run `npm run build` first; this script imports the compiled loader from dist/.
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
  for (let run = 1; run <= 3; run++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const result = await loadRepository({ dir: root });
    const ms = performance.now() - start;
    const used = cpuMs(cpu);
    const entries = result.desired?.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entries.size, 0), 0) ?? 0;
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    log(`loadRepository generated repo, run ${run}: ${ms.toFixed(0)} ms wall, ${used.toFixed(0)} ms CPU (${result.files?.length ?? 0} files, ${entries} entries, ${errors} errors)  goal < 3000 ms: ${ms < 3000 ? 'met' : 'MISSED'}`);
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
await writeFile(path.join(path.dirname(new URL(import.meta.url).pathname), 'results', 'loader.txt'), `${out.join('\n')}\n`);
