// Hostile-repository benchmark: `termsync validate` (the real CLI, a child process) on repositories
// built to make validation slow, RUNS times each. Per scenario: the exit code, wall seconds, the
// child's CPU seconds and peak RSS, min / median / max. Goals: resource YAML with many inline
// entries is parsed in linear time (80,000 inline entries took 26.5 s and 300,000 never finished,
// from the YAML library's duplicate-key check), an oversized YAML file is refused at once, and a
// SIGTERM during loading ends the run promptly with exit 130.
// Run `npm run build` first. Writes only under bench/out/ (the repositories go to the system's
// temporary folder and are removed).
//   node bench/hostile-repo.js
//   RUNS=3 ONLY=inline node bench/hostile-repo.js
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const OUT = join(here, 'out');
const RUNS = Number(process.env.RUNS ?? 5);
const ONLY = process.env.ONLY;
const TEN_MIB = 10 * 1024 * 1024;

// Loaded into the child before the CLI: reports its own peak RSS and CPU time as it exits.
const USAGE = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nBENCH_USAGE ' + JSON.stringify({ maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }) + '\\n'); });",
)}`;

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';
const HEAD = 'kind: glossary\nname: Big\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n';

async function repository(files) {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-bench-hostile-'));
  await writeFile(join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(join(dir, 'glossaries'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, 'glossaries', name), content);
  return dir;
}

function inline(count, duplicates = []) {
  const lines = [HEAD];
  for (let i = 0; i < count; i++) lines.push(duplicates.includes(i) ? `      term ${i % 1000}: again ${i}\n` : `      term ${i}: Begriff ${i}\n`);
  return lines.join('');
}

/** Many resource files with inline entries: loading takes seconds, in batches (a worker thread shares them). */
function many(files, entries) {
  const out = {};
  for (let g = 0; g < files; g++) out[`g${g}.yaml`] = inline(entries).replace('name: Big', `name: G${g}`);
  return out;
}

/** Runs the CLI once; with `killAfterMs`, sends SIGTERM then and measures how long the child takes to exit. */
function runOnce(dir, killAfterMs) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', USAGE, join(root, 'bin', 'termsync.js'), 'validate', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let killedAt;
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => {
      killedAt = performance.now();
      child.kill('SIGTERM');
    }, killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ended = performance.now();
      const usage = /BENCH_USAGE (\{.*\})/.exec(stderr);
      const { maxRssKb, cpuUs } = usage ? JSON.parse(usage[1]) : { maxRssKb: NaN, cpuUs: NaN };
      resolve({
        code: code ?? signal,
        wallS: (ended - started) / 1000,
        cpuS: cpuUs / 1e6,
        rssMb: maxRssKb / 1024,
        ...(killedAt === undefined ? {} : { afterSigtermS: (ended - killedAt) / 1000 }),
        finished: /No problems|error/.test(stdout),
        firstLine: (stdout.split('\n')[0] || stderr.split('\n').find((l) => l.startsWith('Error')) || '').slice(0, 160),
      });
    });
  });
}

function stats(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

const fmt = (s, unit, digits = 2) => (s === undefined ? '-' : `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)} ${unit}`);

const SCENARIOS = [
  { name: 'inline-80k', what: '80,000 inline entries in one resource file (2.5 MB)', expect: 0, files: () => ({ 'big.yaml': inline(80_000) }) },
  { name: 'inline-300k', what: '300,000 inline entries in one resource file (9.5 MiB)', expect: 0, files: () => ({ 'big.yaml': inline(300_000) }) },
  { name: 'inline-80k-duplicates', what: '80,000 inline entries, two keys repeated (located errors)', expect: 3, files: () => ({ 'big.yaml': inline(80_000, [40_000, 79_999]) }) },
  { name: 'oversize-yaml', what: 'a resource file of 10 MiB + 1 byte (refused before it is read)', expect: 3, files: () => ({ 'big.yaml': Buffer.alloc(TEN_MIB + 1, '#') }) },
  { name: 'sigterm-during-load', what: '400 resource files × 2,000 inline entries, SIGTERM 1.5 s after start', expect: 130, killAfterMs: 1500, files: () => many(400, 2000) },
];

await mkdir(OUT, { recursive: true });
const results = { runs: RUNS, cpus: cpus().length, loadavgAtStart: loadavg().map((l) => Number(l.toFixed(2))), node: process.version, scenarios: {} };
console.log(`hostile repositories: ${RUNS} runs each, ${cpus().length} CPUs, load average ${results.loadavgAtStart.join(' ')}`);
for (const scenario of SCENARIOS) {
  if (ONLY !== undefined && !scenario.name.includes(ONLY)) continue;
  const dir = await repository(scenario.files());
  try {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runOnce(dir, scenario.killAfterMs));
    const codes = runs.map((r) => r.code);
    const summary = {
      what: scenario.what,
      expectedExit: scenario.expect,
      exitCodes: codes,
      ok: codes.every((c) => c === scenario.expect),
      wallS: stats(runs.map((r) => r.wallS)),
      cpuS: stats(runs.map((r) => r.cpuS)),
      peakRssMb: stats(runs.map((r) => r.rssMb)),
      ...(scenario.killAfterMs === undefined ? {} : { sigtermToExitS: stats(runs.map((r) => r.afterSigtermS)), finishedBeforeSigterm: runs.filter((r) => r.finished).length }),
      output: runs[0]?.firstLine,
    };
    results.scenarios[scenario.name] = summary;
    console.log(`\n${scenario.name}: ${scenario.what}`);
    console.log(`  exit codes ${codes.join(' ')} (expected ${scenario.expect})${summary.ok ? '' : '  <-- UNEXPECTED'}`);
    console.log(`  wall  ${fmt(summary.wallS, 's')}   (min / median / max)`);
    console.log(`  CPU   ${fmt(summary.cpuS, 's')}`);
    console.log(`  RSS   ${fmt(summary.peakRssMb, 'MB', 0)}`);
    if (summary.sigtermToExitS) console.log(`  SIGTERM → exit ${fmt(summary.sigtermToExitS, 's')}; runs that finished before the signal: ${summary.finishedBeforeSigterm}`);
    console.log(`  ${summary.output}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
const file = join(OUT, 'hostile-repo.json');
await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\nwrote ${file}`);
process.exitCode = Object.values(results.scenarios).every((s) => s.ok) ? 0 : 1;
