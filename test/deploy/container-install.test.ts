/**
 * The container image's steps, run outside Docker (no engine runs on the development machines):
 * deploy/container/install-runtime.sh — the script the Dockerfile's build stage runs — packs the
 * package and installs it with its production dependencies into a temporary folder laid out like
 * the image; then the image's ENTRYPOINT + CMD, HEALTHCHECK and symlink are run from there.
 * Not exercised here: the base image, apt-get (git, tini), the user, `git config --system`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Copy } from 'dockerfile-ast';
import { PROJECT_ROOT, execForm, instructionsOf, onlyInstruction, readDockerfile, words, type Stage } from './read-dockerfile.js';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr: error !== null && code === null ? `${stderr}\n${error.message}` : stderr });
    });
  });
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined> | T | undefined, context: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${context()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A child process with its output collected as it comes. */
interface Child {
  readonly process: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(file: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Child {
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      output.stderr += `cannot start ${file}: ${error.message}\n`;
      resolve({ code: null, signal: null });
    });
  });
  return { process: child, output, exited };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

const dockerfile = readDockerfile();
const build = dockerfile.stages.find((s) => s.name === 'build') as Stage;
const runtime = dockerfile.stages.at(-1) as Stage;
const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(await readFile(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };

/**
 * The runtime stage copies the build stage's install to the same path and links the CLI onto PATH
 * (`RUN ln -s TARGET LINK`): the link, checked against the Dockerfile.
 */
function runtimeLink(dest: string): { target: string; link: string } {
  const copies = instructionsOf(runtime, 'COPY') as Copy[];
  const copy = copies.find((c) => c.getFromFlag() !== null);
  if (copy?.getFromFlag()?.getValue() !== 'build' || words(copy).join(' ') !== `${dest} ${dest}`) {
    throw new Error(`the runtime stage must COPY --from=build ${dest} ${dest}, the folder install-runtime.sh filled`);
  }
  const ln = instructionsOf(runtime, 'RUN').map(words).find((w) => w[0] === 'ln');
  const [flag, target, link] = ln?.slice(1) ?? [];
  if (flag !== '-s' || target === undefined || link === undefined || !target.startsWith(`${dest}/`)) {
    throw new Error(`the runtime stage must link the CLI with \`RUN ln -s ${dest}/bin/termsync.js /usr/local/bin/termsync\`, found: ${ln?.join(' ') ?? 'no ln'}`);
  }
  return { target, link };
}

/** `sh deploy/container/install-runtime.sh DEST` as the build stage runs it. */
function installStep(): { script: string; dest: string } {
  for (const instruction of instructionsOf(build, 'RUN')) {
    const w = words(instruction);
    const at = w.findIndex((word) => word.endsWith('deploy/container/install-runtime.sh'));
    if (at >= 0) return { script: join(PROJECT_ROOT, w[at] as string), dest: w[at + 1] as string };
  }
  throw new Error('the build stage of the Dockerfile does not run deploy/container/install-runtime.sh');
}

describe('the image, installed outside Docker by deploy/container/install-runtime.sh', () => {
  const { script, dest } = installStep();
  const { target, link } = runtimeLink(dest);
  let root: string; // stands for the image's file system
  let installed: Run;
  const children: Child[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'termsync-image-'));
    installed = await run('sh', [script, join(root, dest)], { cwd: PROJECT_ROOT, timeoutMs: 150_000 });
    await mkdir(dirname(join(root, link)), { recursive: true });
    await symlink(join(root, target), join(root, link));
  }, 180_000);

  afterAll(async () => {
    for (const child of children) if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  });

  it('packs the package as published and installs exactly the locked production dependencies, no dev tool', async () => {
    expect(installed.code, `install-runtime.sh failed:\n${installed.stdout}\n${installed.stderr}`).toBe(0);
    expect(installed.stdout).toContain(`installed termsync ${pkg.version}`);
    const app = join(root, dest);
    // What `npm pack` ships (package.json `files`), the lockfile and the dependencies: no sources, no tests.
    expect((await readdir(app)).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'bin', 'dist', 'node_modules', 'package-lock.json', 'package.json', 'schema']);
    // Only the bundle: no tsc output beside it, no .tsbuildinfo.
    expect(await readdir(join(app, 'dist'))).toEqual(['bundle']);
    // The code cache of the plain validate, made at install for this Node (the package ships none): V8 takes it.
    const caches = (await readdir(join(app, 'dist', 'bundle'))).filter((f) => f.endsWith('.cache'));
    expect(caches).toEqual([expect.stringMatching(/^plain-validate\.cjs\.[0-9a-f]{24}\.cache$/)]);
    const loader = join(app, 'dist', 'bundle', 'plain-validate-loader.cjs');
    const probe = await run(process.execPath, ['-e', `console.log(require(${JSON.stringify(loader)}).compilePlainValidate().script.cachedDataRejected)`], { cwd: root, env: { PATH: process.env['PATH'] ?? '', NODE_DISABLE_COMPILE_CACHE: '1' }, timeoutMs: 20_000 });
    expect(probe.stdout).toBe('false\n');
    // bin/termsync.js is CommonJS by bin/package.json: without it a plain validate cannot start
    // (install-runtime.sh runs one and fails the build otherwise).
    expect((await readdir(join(app, 'bin'))).sort()).toEqual(['package.json', 'termsync.js']);
    for (const name of Object.keys(pkg.dependencies)) {
      const manifest = JSON.parse(await readFile(join(app, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
      expect(manifest.version, `${name} in the image`).toBe(lock.packages[`node_modules/${name}`]?.version);
    }
    for (const name of Object.keys(pkg.devDependencies)) expect(existsSync(join(app, 'node_modules', name)), `dev dependency ${name} in the image`).toBe(false);
  });

  it('starts the default command against the emulator with the key in a file: /healthz, /readyz, /metrics and the HEALTHCHECK answer; SIGTERM during a run exits 0 and leaves no lock', async () => {
    const entrypoint = execForm(onlyInstruction(runtime, 'ENTRYPOINT'));
    // tini (PID 1) is a Debian package of the image, not of this machine: run what it starts,
    // `termsync`, found on PATH through the runtime stage's symlink as in the image.
    expect(entrypoint.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    const command = entrypoint.slice(2);
    expect(command[0]).toBe(basename(link));
    const cmd = execForm(onlyInstruction(runtime, 'CMD'));
    const workdir = words(onlyInstruction(runtime, 'WORKDIR'))[0] ?? '';
    const exposed = words(onlyInstruction(runtime, 'EXPOSE'))[0] ?? '';
    expect(cmd[0]).toBe('watch');
    expect(cmd).toContain(workdir);
    expect(cmd).toContain(`0.0.0.0:${exposed}`);

    const repo = join(root, workdir);
    await mkdir(repo, { recursive: true });
    await cp(join(PROJECT_ROOT, 'config'), join(repo, 'config'), { recursive: true });
    await cp(join(PROJECT_ROOT, 'glossaries'), join(repo, 'glossaries'), { recursive: true });
    const key = 'container-test-key-6f1d';
    await writeFile(join(root, 'api-key'), `${key}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${join(root, dirname(link))}${delimiter}${process.env['PATH'] ?? ''}` };
    for (const name of Object.keys(env)) if (name.startsWith('TERMSYNC_')) delete env[name];

    // The emulator of the installed package; latency keeps a run long enough to stop it half-way.
    const emulator = start(command[0] ?? '', ['emulator', '--port', '0', '--keys', key, '--faults', 'latency=100-200', '--seed', '7'], { cwd: root, env });
    children.push(emulator);
    const serviceUrl = await waitFor('the emulator to listen', 20_000, () => /listening on (http:\/\/\S+)/.exec(emulator.output.stdout)?.[1], () => emulator.output.stderr);

    // The image's CMD, with /repo and the exposed port mapped to this machine.
    const args = cmd.map((a) => (a === workdir ? repo : a === `0.0.0.0:${exposed}` ? '127.0.0.1:0' : a));
    const daemon = start(command[0] ?? '', [...command.slice(1), ...args], {
      cwd: repo,
      env: { ...env, TERMSYNC_BASE_URL: serviceUrl, TERMSYNC_API_KEY_FILE: join(root, 'api-key') },
    });
    children.push(daemon);
    const logs = (): string => `termsync watch output:\n${daemon.output.stderr}${daemon.output.stdout}`;
    const base = await waitFor('termsync watch to serve its endpoints', 20_000, () => /serving .* on (http:\/\/[\d.]+:\d+)/.exec(daemon.output.stderr)?.[1], logs);

    expect((await get(`${base}/healthz`)).status).toBe(200);
    const first = await waitFor('the start-up reconcile', 40_000, async () => {
      const status = JSON.parse((await get(`${base}/status`)).body) as { runs: { trigger: string; result: string; targets: { add?: number }[] }[] };
      return status.runs[0];
    }, logs);
    expect(first, logs()).toMatchObject({ trigger: 'startup', result: 'changed' });
    const ready = await get(`${base}/readyz`);
    expect(ready.status, ready.body).toBe(200);
    const metrics = await get(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('termsync_reconcile_runs_total{target="default",trigger="startup",result="changed"} 1');

    // The HEALTHCHECK's own command, pointed at the port this daemon got.
    const [healthFile, ...healthArgs] = execForm(onlyInstruction(runtime, 'HEALTHCHECK'));
    const port = new URL(base).port;
    const healthcheck = (): Promise<Run> => run(healthFile ?? '', healthArgs.map((a) => a.replaceAll(`:${exposed}/`, `:${port}/`)), { cwd: root, timeoutMs: 20_000 });
    expect((await healthcheck()).code, 'HEALTHCHECK while the daemon runs').toBe(0);

    // A one-term edit starts a run; SIGTERM arrives while it holds the lock.
    const lockFile = join(repo, '.termsync.lock');
    const entries = (await readdir(join(repo, 'glossaries', 'entries'))).filter((f) => f.endsWith('.tsv')).sort();
    await appendFile(join(repo, 'glossaries', 'entries', entries[0] ?? ''), 'container smoke test\tContainer-Rauchtest\n');
    await waitFor('the follow-up run to take the lock', 30_000, () => (existsSync(lockFile) ? true : undefined), logs);
    daemon.process.kill('SIGTERM');
    const exit = await Promise.race([daemon.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 45_000))]);
    expect(exit, logs()).toEqual({ code: 0, signal: null });
    expect(existsSync(lockFile), 'lock file left behind').toBe(false);
    expect((await healthcheck()).code, 'HEALTHCHECK once the daemon is gone').not.toBe(0);
    expect(`${daemon.output.stdout}${daemon.output.stderr}`).not.toContain(key);

    emulator.process.kill('SIGTERM');
    expect(await emulator.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
