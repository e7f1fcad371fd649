// From a push webhook to the reconciled service: `termsync watch --git-pull 1h --webhook-secret-file`
// (the poll never comes: only the webhook can start the run) over a clone of the example repository,
// a bare git remote on this machine and the emulator in its own process. Each push appends one term
// to an entries file, commits and pushes it, then POSTs a signed GitHub push event; measured from the
// POST to the end of the run that applied it (the run's start plus its duration on /status), and as
// the daemon's CPU seconds over that span (user + system, from /proc, with the git processes it ran).
// Build first.
//
//   node bench/webhook-latency.js [--pushes 10]
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, getJson, parseArgs, startEmulatorProcess, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const PUSHES = Number(args.pushes ?? 10);
const SECRET = 'bench-webhook-secret';

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const git = (cwd, ...argv) => execFileSync('git', argv, { cwd, encoding: 'utf8', env: gitEnv });

async function usage(pid) {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  // utime + stime, and cutime + cstime: the git processes it ran and waited for.
  return (Number(stat[11]) + Number(stat[12]) + Number(stat[13]) + Number(stat[14])) / 100;
}

async function until(what, probe, timeoutMs, log) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${log().slice(-1000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const dir = await mkdtemp(path.join(tmpdir(), 'termsync-bench-webhook-'));
const emulator = await startEmulatorProcess({ latency: '' });
let child;
try {
  const work = path.join(dir, 'work');
  const remote = path.join(dir, 'remote.git');
  const clone = path.join(dir, 'clone');
  await mkdir(work);
  await cp(path.join(ROOT, 'config'), path.join(work, 'config'), { recursive: true });
  await cp(path.join(ROOT, 'glossaries'), path.join(work, 'glossaries'), { recursive: true });
  const config = path.join(work, 'config', 'termsync.yaml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('requests_per_second: 5', 'requests_per_second: 1000'));
  await writeFile(path.join(work, '.gitignore'), '.termsync.lock\n');
  await writeFile(path.join(dir, 'secret'), `${SECRET}\n`);
  git(dir, 'init', '--quiet', '--bare', '-b', 'main', remote);
  git(work, 'init', '--quiet', '-b', 'main');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'terms');
  git(work, 'remote', 'add', 'origin', remote);
  git(work, 'push', '--quiet', 'origin', 'main');
  git(dir, 'clone', '--quiet', '-b', 'main', remote, clone);

  const argv = ['watch', '--dir', clone, '--listen', '127.0.0.1:0', '--git-pull', '1h', '--webhook-secret-file', path.join(dir, 'secret'), '--no-verify', '--log-level', 'warn'];
  child = spawn(process.execPath, [path.join(ROOT, 'bin', 'termsync.js'), ...argv], {
    env: { ...process.env, TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench-key' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const log = () => stderr;
  const endpoint = await until('the endpoints', () => /serving .* on (http:\/\/\S+)/.exec(stderr)?.[1], 60_000, log);
  const runs = async () => {
    const s = await getJson(`${endpoint}/status`);
    return s.running === null ? s.runs : undefined;
  };
  await until('the first reconcile', async () => (await runs())?.length === 1, 120_000, log);

  const samples = [];
  for (let i = 0; i < PUSHES; i++) {
    await appendFile(path.join(work, 'glossaries', 'entries', 'storefront-ui.en-de.tsv'), `bench term ${i}\tBenchbegriff ${i}\n`);
    git(work, 'commit', '--quiet', '-am', `bench term ${i}`);
    git(work, 'push', '--quiet', 'origin', 'main');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: git(work, 'rev-parse', 'HEAD').trim() });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const before = await usage(child.pid);
    const sentAt = Date.now();
    const res = await fetch(`${endpoint}/hooks/github`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': `bench-${i}`, 'x-hub-signature-256': signature },
    });
    if (res.status !== 202) throw new Error(`webhook ${i} answered ${res.status}: ${await res.text()}`);
    const run = await until(`the run of push ${i}`, async () => (await runs())?.find((r) => r.trigger === 'webhook' && Date.parse(r.startedAt) >= sentAt - 5), 60_000, log);
    if (run.result !== 'changed') throw new Error(`push ${i} ended ${run.result}`);
    const cpu = (await usage(child.pid)) - before;
    samples.push({ wall: (Date.parse(run.startedAt) + run.durationMs - sentAt) / 1000, cpu });
  }
  const show = (s) => `${s.min.toFixed(2)} / ${s.median.toFixed(2)} / ${s.max.toFixed(2)}`;
  console.log(`${PUSHES} pushes, each one term; POST /hooks/github → run applied: ${show(stats(samples.map((s) => s.wall)))} s (min / median / max)`);
  console.log(`daemon CPU per push (fetch and fast-forward by git, reconcile): ${show(stats(samples.map((s) => s.cpu)))} s; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  if (child !== undefined && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
