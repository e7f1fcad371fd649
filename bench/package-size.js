// What the published package costs: the tarball `npm pack` makes (size, files), what `npm install`
// of it puts on disk (a clean temporary folder, production dependencies only, from the registry
// through the npm cache), and what the V8 code cache of the plain validate buys there: validate of
// the example repository with the installed CLI, first run (no cache: compiles, runs, writes one in
// the user's cache folder), later runs (with it) and runs with NODE_DISABLE_COMPILE_CACHE (never
// one), in CPU seconds. Build first (`npm run build`).
//
//   node bench/package-size.js [--runs 11]
//
// Targets (issue "Ready for platform teams"): tarball under 400 kB, installed under 40 MB.
// Printed and written to bench/out/package-size.txt (untracked); nothing tracked is rewritten.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, measure, OUT, parseArgs, ROOT, sizeOf, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.runs ?? 11);
const TARBALL_TARGET = 400 * 1000;
const INSTALLED_TARGET = 40 * 1000 * 1000;

const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};

/** `du`'s view: blocks on disk, as a file system holds the files (4 KiB per small file). */
function diskUsage(dir) {
  const run = spawnSync('du', ['-sk', dir], { encoding: 'utf8' });
  return Number(run.stdout.split('\t')[0]) * 1024;
}

function npm(argv, cwd) {
  const run = spawnSync('npm', argv, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' } });
  if (run.status !== 0) throw new Error(`npm ${argv.join(' ')} failed:\n${run.stderr}`);
  return run.stdout;
}

log(`termsync package size — node ${process.version}, ${cpus().length} CPUs, ${new Date().toISOString()}`);
log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

const work = await mkdtemp(path.join(tmpdir(), 'termsync-bench-package-'));
let failed = false;
try {
  // The tarball, as published (`files` of package.json; the build has run: no prepare again).
  const packed = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT))[0];
  const tarball = path.join(work, packed.filename);
  const tarBytes = (await stat(tarball)).size;
  log(`tarball: ${(tarBytes / 1000).toFixed(1)} kB (${packed.entryCount} files, ${(packed.unpackedSize / 1e6).toFixed(2)} MB unpacked) — target < ${TARBALL_TARGET / 1000} kB: ${tarBytes < TARBALL_TARGET ? 'met' : 'MISSED'}`);
  failed ||= tarBytes >= TARBALL_TARGET;
  const biggest = [...packed.files].sort((a, b) => b.size - a.size).slice(0, 5);
  log(`  largest files: ${biggest.map((f) => `${f.path} ${(f.size / 1000).toFixed(0)} kB`).join(', ')}`);

  // `npm install` of the tarball in a clean folder: production dependencies only.
  const app = path.join(work, 'install');
  await mkdir(app);
  await writeFile(path.join(app, 'package.json'), '{"private":true}\n');
  npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', tarball], app);
  const apparent = await sizeOf(app);
  const disk = diskUsage(app);
  const modules = (await readdir(path.join(app, 'node_modules'), { withFileTypes: true })).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  log(`installed: ${(disk / 1e6).toFixed(1)} MB on disk (du), ${(apparent.bytes / 1e6).toFixed(1)} MB in ${apparent.files} files — target < ${INSTALLED_TARGET / 1e6} MB: ${disk < INSTALLED_TARGET ? 'met' : 'MISSED'}`);
  failed ||= disk >= INSTALLED_TARGET;
  const bySize = [];
  for (const m of modules) {
    const scoped = m.name.startsWith('@') ? (await readdir(path.join(app, 'node_modules', m.name))).map((n) => `${m.name}/${n}`) : [m.name];
    for (const name of scoped) bySize.push({ name, bytes: (await sizeOf(path.join(app, 'node_modules', name))).bytes });
  }
  bySize.sort((a, b) => b.bytes - a.bytes);
  log(`  ${bySize.length} packages; largest: ${bySize.slice(0, 6).map((p) => `${p.name} ${(p.bytes / 1e6).toFixed(1)} MB`).join(', ')}`);

  // The code cache of the plain validate, in the installed package: first run, then with the cache, then never one.
  const installed = path.join(app, 'node_modules', 'termsync');
  const cacheHome = path.join(work, 'cache-home');
  const validate = (env) => measure(['validate', '--dir', ROOT], { build: installed, env });
  const first = [];
  const cached = [];
  const none = [];
  for (let i = 0; i < RUNS; i++) {
    await rm(cacheHome, { recursive: true, force: true });
    first.push(validate({ XDG_CACHE_HOME: cacheHome }).cpu);
    cached.push(validate({ XDG_CACHE_HOME: cacheHome }).cpu);
    none.push(validate({ NODE_DISABLE_COMPILE_CACHE: '1' }).cpu);
  }
  const written = await readdir(path.join(cacheHome, 'termsync'));
  const cacheBytes = (await stat(path.join(cacheHome, 'termsync', written[0]))).size;
  log(`validate of the example repository with the installed CLI, CPU seconds, median (min–max) of ${RUNS}, runs alternating:`);
  log(`  first run (no cache; writes ${(cacheBytes / 1000).toFixed(0)} kB to the user's cache folder): ${fmt(stats(first))}`);
  log(`  later runs (that cache):                                        ${fmt(stats(cached))}`);
  log(`  NODE_DISABLE_COMPILE_CACHE=1 (never a cache):                   ${fmt(stats(none))}`);
  log(`  the cache saves ${((1 - stats(cached).median / stats(none).median) * 100).toFixed(0)} % of a validate's CPU; the first run costs ${((stats(first).median / stats(none).median - 1) * 100).toFixed(0)} % more than one without a cache`);
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await rm(work, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'package-size.txt'), `${lines.join('\n')}\n`);
}
if (failed) process.exitCode = 1;
