// The container image's install step outside Docker: deploy/container/install-runtime.sh (npm pack,
// then `npm ci --omit=dev` of the unpacked package from the npm cache) — its wall and CPU time over
// 5 runs, the size of what it installs (the image's application layer), and the start-up time of
// the installed CLI (`termsync --version`, 10 runs). Build first (`npm run build`). Figures are
// printed and written to bench/out/container.txt (untracked).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sizeOf } from './cpu-common.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const script = path.join(root, 'deploy', 'container', 'install-runtime.sh');
const RUNS = 5;
const STARTS = 10;

const out = [];
const log = (line) => {
  out.push(line);
  console.log(line);
};
const seconds = (text) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
};
const summary = (values, unit) => {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return `median ${median.toFixed(2)} ${unit}, min ${sorted[0].toFixed(2)}, max ${sorted.at(-1).toFixed(2)} over ${values.length} runs`;
};

log(`termsync container install benchmark — node ${process.version}, ${cpus().length} CPUs`);
log(`date: ${new Date().toISOString()}`);
log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (wall-clock figures grow with other load on the machine; CPU time much less)`);

const work = await mkdtemp(path.join(tmpdir(), 'termsync-bench-image-'));
const walls = [];
const cpu = [];
let app = '';
try {
  for (let i = 1; i <= RUNS; i++) {
    app = path.join(work, `run-${i}`, 'opt', 'termsync');
    await mkdir(path.dirname(app), { recursive: true });
    const started = performance.now();
    // `times` prints the shell's own and its children's user and system time.
    const run = spawnSync('sh', ['-c', 'sh "$0" "$1" >/dev/null || exit 1; times', script, app], { cwd: root, encoding: 'utf8' });
    const wall = (performance.now() - started) / 1000;
    if (run.status !== 0) throw new Error(`install-runtime.sh failed:\n${run.stderr}`);
    const [, children = ''] = run.stdout.trim().split('\n');
    const [user = '', system = ''] = children.trim().split(/\s+/);
    const used = seconds(user) + seconds(system);
    walls.push(wall);
    cpu.push(used);
    log(`run ${i}: ${wall.toFixed(2)} s wall, ${used.toFixed(2)} s CPU (user + system of npm pack, npm ci, termsync --version)`);
    if (i < RUNS) await rm(path.join(work, `run-${i}`), { recursive: true, force: true });
  }
  log(`install-runtime.sh wall: ${summary(walls, 's')}`);
  log(`install-runtime.sh CPU: ${summary(cpu, 's')}`);

  const total = await sizeOf(app);
  const modules = await sizeOf(path.join(app, 'node_modules'));
  log(`installed: ${(total.bytes / 2 ** 20).toFixed(1)} MiB in ${total.files} files, of which node_modules ${(modules.bytes / 2 ** 20).toFixed(1)} MiB in ${modules.files} files`);

  const startups = [];
  const startupCpu = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const run = spawnSync('sh', ['-c', '"$0" "$1" --version >/dev/null || exit 1; times', process.execPath, path.join(app, 'bin', 'termsync.js')], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`termsync --version failed:\n${run.stderr}`);
    startups.push(performance.now() - started);
    const [user = '', system = ''] = (run.stdout.trim().split('\n')[1] ?? '').trim().split(/\s+/);
    startupCpu.push((seconds(user) + seconds(system)) * 1000);
  }
  log(`termsync --version from the install, wall: ${summary(startups, 'ms')}`);
  log(`termsync --version from the install, CPU: ${summary(startupCpu, 'ms')}`);
} finally {
  await rm(work, { recursive: true, force: true });
}

await mkdir(path.join(here, 'out'), { recursive: true });
await writeFile(path.join(here, 'out', 'container.txt'), `${out.join('\n')}\n`);
