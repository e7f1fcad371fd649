// Entries files built to make a reader pay for far more than their size (bench/hostile-formats-files.js),
// each read by `termsync validate` (the real CLI, a child process), RUNS times:
//   deep       a TBX file of 4 million unclosed <a> elements (12 MB)
//   amplified  a 1.2 MB workbook whose one 1 MiB shared string fills both columns of 150,000 rows
//   sigterm    a large workbook that is not hostile (100,000 rows of 40 note cells, about 90 MB of
//              XML), read whole once, then SIGTERM once the child has spent a third of that CPU time
// Per scenario: the exit code, wall seconds, the child's CPU seconds (user + system, all threads)
// and peak RSS, min / median / max; for sigterm, the CPU seconds the child spent after the signal.
// Goal (the bounded-cost item): deep and amplified end with exit 3, located, in under 30 s and
// under 400 MB each; a SIGTERM ends the run within a fraction of a second of CPU.
// Run `npm run build` first. Writes only bench/out/hostile-formats.txt (the repositories go to the
// system's temporary folder and are removed).
//   node bench/hostile-formats.js
//   RUNS=1 ONLY=deep node bench/hostile-formats.js
//   node bench/hostile-formats.js --bin /path/to/other/checkout/bin/termsync.js --kill-after 120
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { amplifiedWorkbook, deepTbx, longWorkbook } from './hostile-formats-files.js';

const here = dirname(fileURLToPath(import.meta.url));
const OUT = join(here, 'out');
const RUNS = Number(process.env.RUNS ?? 3);
const ONLY = process.env.ONLY;
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const BIN = option('--bin', join(here, '..', 'bin', 'termsync.js'));
const KILL_AFTER_S = Number(option('--kill-after', '120'));

// Loaded into the child before the CLI: reports its own peak RSS and CPU time as it exits.
const USAGE = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nBENCH_USAGE ' + JSON.stringify({ maxRssKb: u.maxRSS, cpuUs: u.userCPUTime + u.systemCPUTime }) + '\\n'); });",
)}`;
const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

async function repository(entriesFile, content) {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-bench-formats-'));
  await writeFile(join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(join(dir, 'glossaries'));
  await writeFile(join(dir, 'glossaries', 'g.yaml'), `kind: glossary\nname: T\nentries_file: ${entriesFile}\nlanguages: [en, de]\n`);
  await writeFile(join(dir, 'glossaries', entriesFile), content);
  return dir;
}

/** Peak resident set of a running process in MB (VmHWM, from /proc), or NaN. */
function peakMb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds of a running process (from /proc), or NaN. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** One validate; with `signalAtCpu`, SIGTERM once the child has spent that much CPU. Killed after KILL_AFTER_S. */
function runOnce(dir, signalAtCpu) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', USAGE, BIN, 'validate', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let cpuAtSignal;
    // The last readings from /proc: the figures of a run killed before it could report its own.
    let lastCpu = Number.NaN;
    let lastPeak = Number.NaN;
    const sampler = setInterval(() => {
      const cpu = cpuSeconds(child.pid);
      if (!Number.isNaN(cpu)) lastCpu = cpu;
      const peak = peakMb(child.pid);
      if (!Number.isNaN(peak)) lastPeak = peak;
      if (signalAtCpu !== undefined && cpuAtSignal === undefined && cpu >= signalAtCpu) {
        cpuAtSignal = cpu;
        child.kill('SIGTERM');
      }
    }, 10);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, KILL_AFTER_S * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearInterval(sampler);
      const usage = /BENCH_USAGE (\{.*\})/.exec(stderr);
      const { maxRssKb, cpuUs } = usage ? JSON.parse(usage[1]) : { maxRssKb: lastPeak * 1024, cpuUs: lastCpu * 1e6 };
      // The last error: where the reading stopped (the errors before it are those of the rows read).
      const located = stdout.split('\n').filter((l) => / error: \[/.test(l)).at(-1) ?? '';
      resolve({
        code: killed ? `killed after ${KILL_AFTER_S} s (CPU and peak RSS: the last /proc readings)` : (code ?? signal),
        wallS: (performance.now() - started) / 1000,
        cpuS: cpuUs / 1e6,
        rssMb: maxRssKb / 1024,
        located: located.replace(dir, '').slice(0, 110),
        ...(cpuAtSignal === undefined ? {} : { afterSignalCpuS: cpuUs / 1e6 - cpuAtSignal, atSignalCpuS: cpuAtSignal }),
        said: stderr.split('\n').find((l) => l.startsWith('Error: ')) ?? '',
      });
    });
  });
}

const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};
const stats = (values, digits) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return 'n/a';
  return `${sorted[0].toFixed(digits)} / ${sorted[Math.floor(sorted.length / 2)].toFixed(digits)} / ${sorted[sorted.length - 1].toFixed(digits)}`;
};

const scenarios = [
  { name: 'deep', what: 'TBX, 4,000,000 unclosed <a> (12 MB)', file: 't.tbx', build: () => Promise.resolve(deepTbx(4_000_000)) },
  { name: 'amplified', what: 'workbook, one 1 MiB shared string in both columns of 150,000 rows', file: 't.xlsx', build: () => amplifiedWorkbook(150_000, 1024 * 1024) },
  { name: 'sigterm', what: 'workbook, 100,000 rows of 40 note cells (not hostile); SIGTERM at a third of its read', file: 't.xlsx', build: () => longWorkbook(100_000, 40) },
].filter((s) => ONLY === undefined || ONLY.split(',').includes(s.name));

log(`hostile entries files — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs, bin ${BIN}`);
log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${RUNS} runs per scenario; min / median / max`);
for (const scenario of scenarios) {
  const bytes = await scenario.build();
  const dir = await repository(scenario.file, bytes);
  try {
    const results = [];
    let signalAt;
    if (scenario.name === 'sigterm') {
      const whole = await runOnce(dir);
      signalAt = whole.cpuS / 3;
      log(`${scenario.name}: read whole: exit ${whole.code}, ${whole.cpuS.toFixed(2)} CPU s, ${whole.wallS.toFixed(2)} s wall, peak ${whole.rssMb.toFixed(0)} MB`);
    }
    for (let run = 0; run < RUNS; run++) results.push(await runOnce(dir, signalAt));
    const codes = [...new Set(results.map((r) => r.code))].join(', ');
    log(`${scenario.name}: ${scenario.what}, ${bytes.length} bytes`);
    log(`  exit ${codes}; wall s ${stats(results.map((r) => r.wallS), 2)}; CPU s ${stats(results.map((r) => r.cpuS), 2)}; peak RSS MB ${stats(results.map((r) => r.rssMb), 0)}`);
    if (signalAt !== undefined) log(`  SIGTERM at ${stats(results.map((r) => r.atSignalCpuS), 2)} CPU s; CPU s after the signal ${stats(results.map((r) => r.afterSignalCpuS), 2)}; said: ${results[0].said}`);
    else log(`  said: ${results[0].located}`);
    if (scenario.name !== 'sigterm') {
      const met = results.every((r) => r.code === 3 && r.wallS < 30 && r.rssMb < 400 && r.located !== '');
      log(`  goal exit 3, located, < 30 s, < 400 MB: ${met ? 'met' : 'MISSED'}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await mkdir(OUT, { recursive: true });
await writeFile(join(OUT, 'hostile-formats.txt'), `${lines.join('\n')}\n`);
