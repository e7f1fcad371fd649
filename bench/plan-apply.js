// Plan/apply benchmark against the in-process emulator: a repository of 50 glossaries × 2
// dictionaries × 2000 entries plus 10 style rule lists. Measures the first apply, a no-op plan
// (which reads every compared dictionary), and a one-term edit (which must write exactly once).
// The rate limit is lifted (1000 requests/s) so the figures show termsync's own cost, not pacing.
// Run `npm run build` first; this script imports the compiled code from dist/.
import { mkdtemp, mkdir, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { runCli } from '../dist/cli/main.js';
import { startEmulator } from '../dist/emulator/index.js';

const GLOSSARIES = 50;
const TARGETS = ['de', 'fr'];
const ENTRIES = 2000;
const STYLE_LISTS = 10;

async function generate(root) {
  await mkdir(path.join(root, 'config'), { recursive: true });
  await mkdir(path.join(root, 'glossaries'), { recursive: true });
  await writeFile(
    path.join(root, 'config', 'termsync.yaml'),
    'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\n' +
      'targets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n',
  );
  for (let g = 0; g < GLOSSARIES; g++) {
    const dictionaries = TARGETS.map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: g${g}.en-${lang}.tsv\n`).join('');
    await writeFile(path.join(root, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}`);
    for (const lang of TARGETS) {
      let text = '';
      for (let i = 0; i < ENTRIES; i++) text += `product term ${g}-${i}\tBegriff ${lang} ${g}-${i} Größe\n`;
      await writeFile(path.join(root, 'glossaries', `g${g}.en-${lang}.tsv`), text);
    }
  }
  for (let s = 0; s < STYLE_LISTS; s++) {
    await writeFile(
      path.join(root, 'glossaries', `s${s}.yaml`),
      `kind: style_rules\nname: Style ${s}\nlanguage: de\nconfigured_rules:\n  punctuation:\n    apostrophe: use_curly_apostrophes\n` +
        `custom_instructions:\n  - label: Formal\n    prompt: Address the reader formally.\n  - label: Short\n    prompt: Keep sentences short.\n`,
    );
  }
}

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};

const root = await mkdtemp(path.join(tmpdir(), 'termsync-bench-plan-'));
const emulator = await startEmulator({ port: 0, seed: 1 });
const io = { stdout: () => {}, stderr: (t) => process.stderr.write(t), env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench' }, cwd: root, signal: new AbortController().signal };
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function step(label, argv, expectCode) {
  const before = emulator.requests().length;
  const start = performance.now();
  const code = await runCli([...argv, '--dir', root], io);
  const ms = performance.now() - start;
  const requests = emulator.requests().slice(before);
  const writes = requests.filter((r) => r.method !== 'GET').length;
  log(`${label}: ${ms.toFixed(0)} ms, exit ${code} (expected ${expectCode}), ${requests.length} requests (${writes} writes)`);
  if (code !== expectCode) throw new Error(`${label}: unexpected exit ${code}`);
  return { ms, writes };
}

try {
  log(`termsync plan/apply benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'})`);
  log(`date: ${new Date().toISOString()}`);
  await generate(root);
  log(`repository: ${GLOSSARIES} glossaries × ${TARGETS.length} dictionaries × ${ENTRIES} entries (${GLOSSARIES * TARGETS.length * ENTRIES} entries), ${STYLE_LISTS} style rule lists`);
  await step('first apply (creates everything)', ['apply'], 0);
  await step('no-op plan (reads every compared dictionary)', ['plan', '--detailed-exitcode'], 0);
  await step('no-op plan, run 2', ['plan', '--detailed-exitcode'], 0);
  const file = path.join(root, 'glossaries', 'g7.en-de.tsv');
  await writeFile(file, (await readFile(file, 'utf8')).replace('Begriff de 7-42 Größe', 'Begriff de 7-42 geändert'));
  const edit = await step('one changed term: apply', ['apply'], 0);
  log(`  writes for one changed term: ${edit.writes} (goal: 1) ${edit.writes === 1 ? 'MET' : 'MISSED'}`);
  await step('follow-up plan', ['plan', '--detailed-exitcode'], 0);
  log(`peak RSS of the process (CLI + emulator holding ${GLOSSARIES * TARGETS.length * ENTRIES} entries): ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
} finally {
  clearInterval(sampler);
  await emulator.close();
  await rm(root, { recursive: true, force: true });
}

// Results go to the untracked bench/out/ (committing a result is a deliberate step).
await mkdir(new URL('./out/', import.meta.url), { recursive: true });
await writeFile(new URL('./out/plan-apply.txt', import.meta.url), `${out.join('\n')}\n`);
