// pull and verify on a larger repository against the in-process emulator: 200 glossaries × 2
// dictionaries × 1,000 entries (TSV), two tests per glossary. After a first apply (not measured), a
// terminologist changes one term on the service; measured, 5 times each (min / median / max of
// wall time and of this process's CPU time, which the busy machine distorts less):
//   - `pull --check` (reads every dictionary, writes nothing, exit 2),
//   - `pull` of that one term (then restored on the service, so each run pulls one change), with
//     the lines it changed in the repository (goal: 1 file, 1 line),
//   - `verify` (400 tests) and `verify --sample 5` (4,400 translations), with requests and characters.
// The rate limit is lifted (1000 requests/s) so the figures show termsync's own cost, not pacing.
// Run `npm run build` first; this script imports the compiled code from dist/. Results:
// bench/out/pull-verify.txt (not tracked).
import { mkdtemp, mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir, cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runCli } from '../dist/cli/main.js';
import { startEmulator } from '../dist/emulator/index.js';

const GLOSSARIES = 200;
const TARGETS = ['de', 'fr'];
const ENTRIES = 1000;
const RUNS = 5;

async function generate(root) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries'), { recursive: true });
  await writeFile(
    path.join(root, 'config', 'termsync.yaml'),
    'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\nverify: { max_characters: 1000000 }\n' +
      'targets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n',
  );
  for (let g = 0; g < GLOSSARIES; g++) {
    const dictionaries = TARGETS.map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: g${g}.en-${lang}.tsv\n`).join('');
    const tests = TARGETS.map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    text: "Order the product term ${g}-1 and the product term ${g}-2 today."\n    expect: ["${lang} ${g}-1", "${lang} ${g}-2"]\n`).join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `# Catalogue ${g}\nkind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}tests:\n${tests}`);
    for (const lang of TARGETS) {
      let text = '';
      for (let i = 0; i < ENTRIES; i++) text += `product term ${g}-${i}\tBegriff ${lang} ${g}-${i}\n`;
      await writeFile(path.join(root, 'glossaries', `g${g}.en-${lang}.tsv`), text);
    }
  }
}

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

function stats(values, unit) {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `min ${sorted[0].toFixed(0)} / median ${median.toFixed(0)} / max ${sorted[sorted.length - 1].toFixed(0)} ${unit}`;
}

const root = await mkdtemp(path.join(tmpdir(), 'termsync-bench-pull-'));
const emulator = await startEmulator({ port: 0, seed: 1 });
const key = 'bench';
let stdout = '';
const io = { stdout: (t) => (stdout += t), stderr: () => {}, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: key }, cwd: root, signal: new AbortController().signal };

async function run(argv, expectCode) {
  stdout = '';
  const before = emulator.requests().length;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const code = await runCli([...argv, '--dir', root], io);
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (code !== expectCode) throw new Error(`${argv.join(' ')}: exit ${code}, expected ${expectCode}\n${stdout}`);
  const requests = emulator.requests().slice(before);
  return { ms, cpuMs: (used.user + used.system) / 1000, requests: requests.length, translate: requests.filter((r) => r.path === '/v2/translate').length, stdout };
}

async function service(method, p, body) {
  const res = await fetch(`${emulator.url}${p}`, { method, headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status}`);
  return res.json();
}

async function measure(label, argv, expectCode, before) {
  const wall = [];
  const cpu = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    await before?.(i);
    last = await run(argv, expectCode);
    wall.push(last.ms);
    cpu.push(last.cpuMs);
  }
  log(`${label}: wall ${stats(wall, 'ms')}; CPU ${stats(cpu, 'ms')}; ${last.requests} requests (${last.translate} translate)`);
  return last;
}

try {
  log(`termsync pull/verify benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  log(`date: ${new Date().toISOString()}`);
  await generate(root);
  log(`repository: ${GLOSSARIES} glossaries × ${TARGETS.length} dictionaries × ${ENTRIES} entries, ${GLOSSARIES * TARGETS.length} tests; ${RUNS} runs each`);
  await run(['apply'], 0);
  const { glossaries } = await service('GET', '/v3/glossaries');
  const id = glossaries.find((g) => g.name === 'Catalogue 7').glossary_id;
  const edit = (value) => service('PATCH', `/v3/glossaries/${id}`, { dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: `product term 7-42\t${value}`, entries_format: 'tsv' }] });
  await edit('Begriff de 7-42 im Web-Editor geändert');
  await measure('pull --check (one term changed on the service)', ['pull', '--check'], 2);
  const file = path.join(root, 'glossaries', 'g7.en-de.tsv');
  const original = await readFile(file, 'utf8');
  let changedLines = 0;
  let files = 0;
  await measure('pull (writes that one term)', ['pull'], 0, async (i) => {
    if (i > 0) {
      // Put the repository back and make the same edit again, so every run pulls one change.
      await writeFile(file, original);
      await edit(`Begriff de 7-42 geändert, Lauf ${i}`);
    }
  });
  const now = (await readFile(file, 'utf8')).split('\n');
  const was = original.split('\n');
  changedLines = now.filter((line, i) => line !== was[i]).length;
  files = (stdout.match(/^Wrote (\d+) file/m) ?? [])[1];
  log(`  the last pull wrote ${files} file(s), ${changedLines} changed line(s) (goal: 1 and 1)`);
  const plan = await run(['plan', '--detailed-exitcode'], 0);
  log(`  follow-up plan: ${plan.stdout.includes('No changes.') ? 'No changes.' : 'CHANGES'}`);
  const verify = await measure(`verify (${GLOSSARIES * TARGETS.length} tests)`, ['verify'], 0);
  log(`  ${(verify.stdout.match(/(\d+) characters to send/) ?? [])[1]} characters sent per run`);
  const sample = await measure('verify --sample 5', ['verify', '--sample', '5'], 0);
  log(`  ${(sample.stdout.match(/(\d+) translations, (\d+) characters/) ?? []).slice(1).join(' translations, ')} characters sent per run`);
} finally {
  await emulator.close();
  await rm(root, { recursive: true, force: true });
}

await mkdir(new URL('./out/', import.meta.url), { recursive: true });
await writeFile(new URL('./out/pull-verify.txt', import.meta.url), `${out.join('\n')}\n`);
