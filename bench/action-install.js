// The GitHub Action on a cold runner, outside GitHub: from a clean folder with an empty npm cache to
// the pull-request comment. Each run takes a fresh folder (RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY) and a fresh npm cache, runs the action's install step (action.yml, "Install
// termsync": its own bash, as the runner runs it) and then its main step (action/run-termsync.js,
// command plan) against the emulator on the example repository, until the comment file is written.
// The registry has no termsync release of this checkout, so the step installs the tarball `npm pack`
// makes of it (the `version` input takes any npm install spec); its dependencies come from the
// registry, as on a runner. Build first (`npm run build`).
//
//   node bench/action-install.js [--runs 5] [--before]
//
// --before also times, once, what the action did before (install: `npm ci` of the action's whole
// development tree, which builds it) from an empty cache in a copy of this checkout's sources.
// Target: install under 15 s. Printed and written to bench/out/action-install.txt (untracked).
import { spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { fmt, OUT, parseArgs, ROOT, startEmulatorProcess, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.runs ?? 5);
const TARGET_SECONDS = 15;

const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};

/** Runs a command under /usr/bin/time: wall and CPU seconds (user + system, children included). */
function timed(argv, { cwd, env }) {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', '__time__ %U %S', ...argv], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = (performance.now() - started) / 1000;
  const line = run.stderr.split('\n').reverse().find((l) => l.startsWith('__time__'));
  if (run.status !== 0 || line === undefined) throw new Error(`${argv.join(' ')} failed (${run.status}):\n${run.stderr.slice(-3000)}`);
  const [, user, system] = line.split(' ');
  return { wall, cpu: Number(user) + Number(system), stdout: run.stdout };
}

const action = parseYaml(await readFile(path.join(ROOT, 'action.yml'), 'utf8'));
const installScript = action.runs.steps.find((s) => s.name === 'Install termsync').run;

log(`termsync action, cold runner — node ${process.version}, ${cpus().length} CPUs, ${new Date().toISOString()}`);
log(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (the install is mostly downloads: wall time depends on the network as much as on this machine)`);

const work = await mkdtemp(path.join(tmpdir(), 'termsync-bench-action-'));
const emulator = await startEmulatorProcess({ latency: '20-40', extra: ['--keys', 'bench-key'] });
try {
  const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const tarball = path.join(work, pack.stdout.trim().split('\n').at(-1));
  const repo = path.join(work, 'repo');
  await cp(path.join(ROOT, 'config'), path.join(repo, 'config'), { recursive: true });
  await cp(path.join(ROOT, 'glossaries'), path.join(repo, 'glossaries'), { recursive: true });

  const installs = [];
  const installCpu = [];
  const toComment = [];
  for (let i = 1; i <= RUNS; i++) {
    const runner = path.join(work, `runner-${i}`);
    const temp = path.join(runner, 'temp');
    await mkdir(temp, { recursive: true });
    const files = Object.fromEntries(['GITHUB_PATH', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY'].map((name) => [name, path.join(runner, name.toLowerCase())]));
    for (const file of Object.values(files)) await writeFile(file, '');
    // A cold runner: an npm cache of its own, empty; this machine's environment otherwise (certificates, registry).
    const env = { ...process.env, ...files, RUNNER_TEMP: temp, GITHUB_ACTION_PATH: ROOT, npm_config_cache: path.join(runner, 'npm-cache'), npm_config_update_notifier: 'false' };
    const install = timed(['bash', '-e', '-c', installScript], { cwd: runner, env: { ...env, INPUT_VERSION: tarball } });
    const bin = (await readFile(files.GITHUB_PATH, 'utf8')).trim();
    const plan = timed([process.execPath, path.join(ROOT, 'action', 'run-termsync.js')], {
      cwd: runner,
      env: {
        ...env,
        PATH: `${bin}${path.delimiter}${process.env.PATH}`,
        INPUT_COMMAND: 'plan',
        INPUT_DIRECTORY: repo,
        INPUT_TARGET: 'default',
        TERMSYNC_BASE_URL: emulator.url,
        TERMSYNC_API_KEY: 'bench-key',
        TERMSYNC_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    const outputs = await readFile(files.GITHUB_OUTPUT, 'utf8');
    const comment = /^comment-file=(.+)$/m.exec(outputs)?.[1];
    if (comment === undefined || !(await readFile(comment, 'utf8')).includes('Plan: ')) throw new Error(`run ${i}: no plan comment was written:\n${outputs}`);
    installs.push(install.wall);
    installCpu.push(install.cpu);
    toComment.push(install.wall + plan.wall);
    log(`run ${i}: install ${install.wall.toFixed(1)} s wall (${install.cpu.toFixed(1)} s CPU), plan and comment ${plan.wall.toFixed(1)} s, total ${(install.wall + plan.wall).toFixed(1)} s`);
    await rm(runner, { recursive: true, force: true });
  }
  const median = stats(installs).median;
  log(`install (empty npm cache → termsync --version), wall seconds: ${fmt(stats(installs), 1)} — target < ${TARGET_SECONDS} s: ${median < TARGET_SECONDS ? 'met' : 'MISSED'}`);
  log(`install, CPU seconds: ${fmt(stats(installCpu), 1)}`);
  log(`clean folder → plan comment written, wall seconds: ${fmt(stats(toComment), 1)}`);
  if (median >= TARGET_SECONDS) process.exitCode = 1;

  if (args.before === true) {
    // The action before: `npm ci` of its ref (every dependency, development tools included; prepare builds).
    const source = path.join(work, 'before');
    await mkdir(source, { recursive: true });
    const archive = spawnSync('sh', ['-c', 'git archive HEAD | tar -x -C "$0"', source], { cwd: ROOT, encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`git archive failed: ${archive.stderr}`);
    const before = timed(['npm', 'ci', '--no-audit', '--no-fund'], { cwd: source, env: { ...process.env, npm_config_cache: path.join(work, 'before-cache'), npm_config_update_notifier: 'false' } });
    log(`before (npm ci of the action's ref, which builds it), once: ${before.wall.toFixed(1)} s wall, ${before.cpu.toFixed(1)} s CPU`);
  }
  log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'action-install.txt'), `${lines.join('\n')}\n`);
}
