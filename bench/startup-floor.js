#!/usr/bin/env node
// Where the start-up of `termsync validate` goes, against a bare node and against floors that do
// only part of validate's work (bench/startup-floor-script.cjs), each started as bin/termsync.js
// is (`node <file>`), without and with NODE_EXTRA_CA_CERTS (one CA certificate): wall and CPU
// seconds (/usr/bin/time), min/median/max of --runs runs (default 15), the variants alternating so
// that a busy spell of the machine hits them alike; each row's ratio to a bare node's median
// started the same way. Results: bench/out/startup-floor.{txt,json} only.
//
//   node bench/startup-floor.js [--runs 15] [--dir DIR] [--instructions] [--before BUILD]
//
// --before BUILD: one more row, `termsync validate` of another build (a folder holding
// bin/termsync.js and a built dist/, e.g. main exported and built as bench/big-before-after.js
// says), alternating with this build's: a change's before and after on the same machine's load.
//
// --instructions: each variant once more under valgrind (callgrind), counting the instructions of
// the process's main thread: a figure a loaded machine does not blur (wall and CPU seconds do),
// and the main thread is what a user waits for (V8 optimises on threads of its own). About a
// minute per variant; skipped when valgrind is not installed. `--instructions validate`: only the
// bare node and the `termsync validate` rows (this build's, and --before's).
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, HERE, measure, OUT, parseArgs, resolveBuild, ROOT, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.runs ?? 15);
const DIR = path.resolve(String(args.dir ?? ROOT));
const FLOOR = path.join(HERE, 'startup-floor-script.cjs');
const EXTRA_CA = path.join(HERE, 'fixtures', 'extra-ca.pem');

const lines = [];
const log = (line = '') => {
  lines.push(line);
  console.log(line);
};

/** The variants, in the order they alternate: [name, node arguments]. */
const VARIANTS = [
  ['bare `node -e ""`', ['-e', '']],
  ['yaml package required from node_modules, the YAML files parsed (no termsync)', [FLOOR, 'yaml-package', DIR]],
  ['validate bundle loaded with its code cache, nothing run', [FLOOR, 'libraries', DIR]],
  ['validate bundle loaded, the YAML files parsed with its yaml', [FLOOR, 'yaml-bundle', DIR]],
  ['`termsync validate`', [path.join(ROOT, 'bin', 'termsync.js'), 'validate', '--dir', DIR]],
  ...(typeof args.before === 'string' ? [[`\`termsync validate\` of the build in ${args.before} (before)`, [path.join(resolveBuild(args.before), 'bin', 'termsync.js'), 'validate', '--dir', DIR]]] : []),
];
const CA = [
  ['without NODE_EXTRA_CA_CERTS', { NODE_EXTRA_CA_CERTS: '' }],
  ['with NODE_EXTRA_CA_CERTS (one certificate)', { NODE_EXTRA_CA_CERTS: EXTRA_CA }],
];

log(`start-up floors of \`termsync validate\` of ${path.relative(ROOT, DIR) || 'the example repository'}: node ${process.version}, ${cpus().length} CPUs, ${RUNS} runs each, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`date: ${new Date().toISOString()}`);
const samples = CA.map(() => VARIANTS.map(() => []));
// One untimed round first: the operating system's file cache holds the files, and a user's code cache is written if one is missing.
for (const [, env] of CA) for (const [, argv] of VARIANTS) measure(argv, { bare: true, env });
for (let i = 0; i < RUNS; i++) {
  for (const [c, [, env]] of CA.entries()) for (const [v, [, argv]] of VARIANTS.entries()) samples[c][v].push(measure(argv, { bare: true, env }));
}
const json = { runs: RUNS, dir: DIR, node: process.version, date: new Date().toISOString(), rows: [] };
for (const [c, [caName]] of CA.entries()) {
  log('');
  log(`## ${caName}`);
  log('');
  log('| row | wall s median (min–max) | CPU s median (min–max) | ÷ bare node: wall | CPU |');
  log('|---|---|---|---|---|');
  const bare = { wall: stats(samples[c][0].map((m) => m.wall)), cpu: stats(samples[c][0].map((m) => m.cpu)) };
  for (const [v, [name]] of VARIANTS.entries()) {
    const wall = stats(samples[c][v].map((m) => m.wall));
    const cpu = stats(samples[c][v].map((m) => m.cpu));
    log(`| ${name} | ${fmt(wall, 3)} | ${fmt(cpu, 3)} | ${(wall.median / bare.wall.median).toFixed(2)} × | ${(cpu.median / bare.cpu.median).toFixed(2)} × |`);
    json.rows.push({ ca: caName, row: name, wall, cpu, wallRatio: wall.median / bare.wall.median, cpuRatio: cpu.median / bare.cpu.median });
  }
}
log('');
log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

/** Instructions of the main thread of `node ...argv` under callgrind (undefined without valgrind). */
async function mainThreadInstructions(argv, env) {
  const work = await mkdtemp(path.join(tmpdir(), 'termsync-startup-callgrind-'));
  try {
    const run = spawnSync('valgrind', ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${path.join(work, 'cg')}`, process.execPath, ...argv], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (run.error !== undefined || run.status !== 0) return undefined;
    // The main thread's file is the first (cg-01); its `totals:` line is the count.
    const first = (await readdir(work)).filter((name) => /^cg-0*1$/.test(name))[0];
    if (first === undefined) return undefined;
    const total = /^totals:\s+(\d+)/m.exec(await readFile(path.join(work, first), 'utf8'));
    return total === null ? undefined : Number(total[1]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (args.instructions === true || args.instructions === 'validate') {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    log('--instructions: valgrind is not installed; skipped.');
  } else {
    json.instructions = [];
    for (const [caName, env] of CA) {
      log('');
      log(`## instructions of the main thread (callgrind, one run), ${caName}`);
      log('');
      log('| row | instructions (millions) | ÷ bare node |');
      log('|---|---|---|');
      let bare;
      for (const [name, argv] of VARIANTS) {
        if (args.instructions === 'validate' && name !== VARIANTS[0][0] && !name.startsWith('`termsync validate`')) continue;
        const count = await mainThreadInstructions(argv, env);
        bare ??= count;
        log(`| ${name} | ${count === undefined ? 'failed' : (count / 1e6).toFixed(0)} | ${count === undefined || bare === undefined ? '—' : `${(count / bare).toFixed(2)} ×`} |`);
        json.instructions.push({ ca: caName, row: name, instructions: count });
      }
    }
  }
}

await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'startup-floor.txt'), `${lines.join('\n')}\n`);
await writeFile(path.join(OUT, 'startup-floor.json'), `${JSON.stringify(json, null, 2)}\n`);
