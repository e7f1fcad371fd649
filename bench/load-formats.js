// Multilingual entries files benchmark: a 10 MiB TBX file (4 languages, 3 dictionaries) and a
// 100,000-row workbook (columns en, de, fr: 2 dictionaries), each loaded by loadRepository as a
// glossary-level `entries_file`, against TSV files of the same entries (one per dictionary).
// Goal: the loader's budget for an entries file, 10 MiB parsed and checked in under 1 s of CPU time
// (median; user + system time of all threads: the figure that counts on a shared machine, where
// wall-clock times grow with other load).
// Run `npm run build` first; this script imports the compiled loader from dist/.
//
// Every load runs in a fresh Node process, as `termsync validate` or `plan` does; modes alternate
// so that a slow spell of the machine hits them alike. Figures per mode: wall time of
// loadRepository, CPU time of the process (all threads) and its peak resident set size.
// Two floors run alongside, each in a fresh process (bench/xml-floor.js): the TBX file read by saxes
// alone, and the workbook's XML parts taken out by yauzl, inflated by zlib and read by saxes alone —
// what any loader built on these libraries pays before it makes a single entry.
// Results go to bench/out/formats.txt (bench/out is not tracked by git).
//
//   node bench/load-formats.js [--before DIR] [--runs N]
//
// --before DIR also loads every file with another build (a folder holding a built dist/, e.g. an
// older commit exported and built elsewhere: see bench/compare-plans.js), alternating with this one
// run by run, so that a change of the loader is measured against the build before it.
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Buffer } from 'node:buffer';
import { generateWorkbook, loadInChild as loadInChildOf, workbookCell } from './cpu-common.js';

const argv = process.argv.slice(2);
const option = (name) => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const RUNS = Number(option('--runs') ?? 5);
const BEFORE = option('--before');
const TBX_BYTES = 10 * 1024 * 1024;
const WORKBOOK_ROWS = 100_000;
const CONFIG = 'version: 1\nresources: [glossaries]\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const TBX_LANGUAGES = ['en', 'de', 'fr', 'ja'];
const term = (lang, i) =>
  ({ en: `waterproof jacket model ${i}`, de: `wasserdichte Jacke Modell ${i} Größe`, fr: `veste imperméable modèle ${i}`, ja: `防水ジャケット モデル ${i}` })[lang];

/** A TBX-Basic file as a terminology system exports it, up to `bytes`; returns the number of concepts. */
function tbxText(bytes) {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX-Basic" xml:lang="en">\n<martifHeader><fileDesc><sourceDesc><p>bench</p></sourceDesc></fileDesc></martifHeader>\n<text><body>\n';
  const tail = '</body></text>\n</martif>\n';
  const parts = [head];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let concepts = 0;
  for (let i = 0; ; i++) {
    const langSets = TBX_LANGUAGES.map(
      (lang) =>
        `    <langSet xml:lang="${lang}">\n      <tig>\n        <term>${term(lang, i)}</term>\n        <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>\n      </tig>\n    </langSet>\n`,
    ).join('');
    const concept = `  <termEntry id="c${i}">\n    <descrip type="subjectField">apparel</descrip>\n${langSets}  </termEntry>\n`;
    const length = Buffer.byteLength(concept);
    if (size + length > bytes) break;
    parts.push(concept);
    size += length;
    concepts++;
  }
  parts.push(tail);
  return { text: parts.join(''), concepts };
}

function tsv(count, source, target, phrase = term) {
  let text = '';
  for (let i = 0; i < count; i++) text += `${phrase(source, i)}\t${phrase(target, i)}\n`;
  return text;
}

async function repository(root, name, resource, files) {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'glossaries', 'entries'), { recursive: true });
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), resource);
  for (const [file, content] of Object.entries(files)) await writeFile(path.join(dir, 'glossaries', 'entries', file), content);
  return dir;
}

// The floor of the same file in a fresh process: its XML read by saxes alone (bench/xml-floor.js).
function floorInChild(file) {
  const r = JSON.parse(execFileSync(process.execPath, [new URL('./xml-floor.js', import.meta.url).pathname, file], { encoding: 'utf8' }));
  return { ...r, ms: Number.NaN, entries: 0, diagnostics: 0 };
}

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};
const summary = (values, digits = 0) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${sorted[Math.floor(sorted.length / 2)].toFixed(digits)}, min ${sorted[0].toFixed(digits)}, max ${sorted.at(-1).toFixed(digits)}`;
};

const root = await mkdtemp(path.join(tmpdir(), 'termsync-bench-formats-'));
try {
  log(`termsync multilingual files benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`);
  log(`date: ${new Date().toISOString()}`);
  const { text, concepts } = tbxText(TBX_BYTES);
  const tbxPairs = ['de', 'fr', 'ja'];
  const cases = [
    ['TBX 10 MiB, 4 languages, from en (3 dictionaries)', await repository(root, 'tbx', 'kind: glossary\nname: G\nentries_file: entries/terms.tbx\nlanguages: [en, de, fr, ja]\n', { 'terms.tbx': text })],
    [
      'TSV of the same entries (3 files)',
      await repository(
        root,
        'tbx-as-tsv',
        `kind: glossary\nname: G\ndictionaries:\n${tbxPairs.map((t) => `  - source_lang: en\n    target_lang: ${t}\n    entries_file: entries/en-${t}.tsv\n`).join('')}`,
        Object.fromEntries(tbxPairs.map((t) => [`en-${t}.tsv`, tsv(concepts, 'en', t)])),
      ),
    ],
  ];
  const xlsxDir = await repository(root, 'xlsx', 'kind: glossary\nname: G\nentries_file: entries/terms.xlsx\nlanguages: [en, de, fr]\n', {});
  await generateWorkbook(path.join(xlsxDir, 'glossaries', 'entries', 'terms.xlsx'), WORKBOOK_ROWS);
  cases.push(['Workbook 100,000 rows, columns en, de, fr (2 dictionaries)', xlsxDir]);
  // Floors: what saxes alone (and, for the workbook, yauzl and zlib) cost on the same files.
  cases.push(['floor: the TBX file through saxes alone', path.join(root, 'tbx', 'glossaries', 'entries', 'terms.tbx'), floorInChild]);
  cases.push(['floor: the workbook\'s parts through yauzl, zlib and saxes alone', path.join(xlsxDir, 'glossaries', 'entries', 'terms.xlsx'), floorInChild]);
  cases.push([
    'TSV of the same entries (2 files)',
    await repository(
      root,
      'xlsx-as-tsv',
      `kind: glossary\nname: G\ndictionaries:\n${['de', 'fr'].map((t) => `  - source_lang: en\n    target_lang: ${t}\n    entries_file: entries/en-${t}.tsv\n`).join('')}`,
      { 'en-de.tsv': tsv(WORKBOOK_ROWS, 'en', 'de', workbookCell), 'en-fr.tsv': tsv(WORKBOOK_ROWS, 'en', 'fr', workbookCell) },
    ),
  ]);
  // With --before, every loader case runs with the other build too, right before this one.
  if (BEFORE !== undefined) {
    for (const [label, dir, runner] of [...cases]) {
      if (runner === undefined) cases.splice(cases.findIndex((c) => c[0] === label), 0, [`${label} [before]`, dir, (d) => loadInChildOf(d, path.resolve(BEFORE))]);
    }
  }
  for (const [label, dir, runner] of cases) {
    if (runner !== undefined) continue;
    const file = label.startsWith('TBX') ? 'terms.tbx' : label.startsWith('Workbook') ? 'terms.xlsx' : undefined;
    if (file !== undefined) log(`${label}: ${(await stat(path.join(dir, 'glossaries', 'entries', file))).size} bytes`);
  }
  log(`TBX concepts: ${concepts}`);
  log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (wall-clock figures grow with other load on the machine; CPU time much less)`);
  const results = new Map(cases.map(([label]) => [label, []]));
  for (let run = 1; run <= RUNS; run++) {
    for (const [label, dir, runner = loadInChildOf] of cases) {
      const r = await runner(dir);
      results.get(label).push(r);
      if (runner === floorInChild) {
        log(`run ${run}, ${label}: ${r.cpu.toFixed(0)} ms CPU, peak RSS ${r.rss.toFixed(0)} MiB (${(r.xmlBytes / 1048576).toFixed(1)} MiB of XML, ${r.tags} tags)`);
        continue;
      }
      log(`run ${run}, ${label}: ${r.ms.toFixed(0)} ms wall, ${r.cpu.toFixed(0)} ms CPU, peak RSS ${r.rss.toFixed(0)} MiB (${r.entries} entries, ${r.diagnostics} diagnostics)`);
    }
  }
  for (const [label, list] of results) {
    const cpu = list.map((r) => r.cpu);
    const median = [...cpu].sort((a, b) => a - b)[Math.floor(cpu.length / 2)];
    if (label.startsWith('floor')) {
      log(`${label}: CPU ${summary(cpu)} ms; peak RSS ${summary(list.map((r) => r.rss))} MiB over ${RUNS} fresh processes (${(list[0].xmlBytes / 1048576).toFixed(1)} MiB of XML)`);
      continue;
    }
    log(`${label}: wall ${summary(list.map((r) => r.ms))} ms; CPU ${summary(cpu)} ms; peak RSS ${summary(list.map((r) => r.rss))} MiB over ${RUNS} fresh processes  goal CPU < 1000 ms: ${median < 1000 ? 'met' : 'MISSED'}`);
  }
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
const outDir = path.join(path.dirname(new URL(import.meta.url).pathname), 'out');
await mkdir(outDir, { recursive: true });
await writeFile(path.join(outDir, 'formats.txt'), `${out.join('\n')}\n`);
