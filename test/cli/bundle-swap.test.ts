/**
 * A build while the CLI runs (`npm test` rebuilds first; another terminal runs a command): the
 * build writes its bundle into a folder of its own and renames it into place (scripts/bundle.js),
 * so a command started meanwhile runs the old bundle or the new one, whole, never a half-written
 * one; and a build that fails leaves the old bundle as it was. Checked on a copy of the project
 * (its bin/, scripts/, dist/, the dashboard's page script it bundles from source, and example, node_modules linked), so the tree other tests run from is
 * never rebuilt under them.
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let project: string;

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'termsync-build-swap-'));
  for (const entry of ['bin', 'scripts', 'dist', 'src/daemon/dashboard/client', 'config', 'glossaries', 'package.json']) await cp(path.join(ROOT, entry), path.join(project, entry), { recursive: true });
  await symlink(path.join(ROOT, 'node_modules'), path.join(project, 'node_modules'), 'dir');
}, 60_000);

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

function run(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: project, env: { PATH: process.env['PATH'] ?? '' } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

/** Runs the build; while it lasts, runs `commands` one after the other, round and round. */
async function buildWhileRunning(commands: readonly (readonly string[])[]): Promise<{ build: number; runs: { args: readonly string[]; code: number; stderr: string }[] }> {
  const build = spawn(process.execPath, [path.join(project, 'scripts', 'bundle.js')], { cwd: project, stdio: ['ignore', 'ignore', 'pipe'] });
  let done = false;
  const ended = new Promise<number>((resolve) => build.on('close', (code) => resolve(code ?? -1)));
  void ended.then(() => (done = true));
  const runs: { args: readonly string[]; code: number; stderr: string }[] = [];
  for (let i = 0; !done; i += 1) {
    const args = commands[i % commands.length] ?? [];
    const result = await run([path.join(project, 'bin', 'termsync.js'), ...args]);
    runs.push({ args, code: result.code, stderr: result.stderr });
  }
  return { build: await ended, runs };
}

async function bundleFiles(): Promise<{ names: string[]; entry: string }> {
  const names = (await readdir(path.join(project, 'dist', 'bundle'))).sort();
  return { names, entry: await readFile(path.join(project, 'dist', 'bundle', 'termsync.js'), 'utf8') };
}

async function leftovers(): Promise<string[]> {
  return (await readdir(path.join(project, 'dist'))).filter((name) => name.startsWith('bundle') && name !== 'bundle');
}

describe('the build and a running CLI', () => {
  it('a command started while the bundle is rebuilt runs a whole bundle: every run succeeds', async () => {
    const { build, runs } = await buildWhileRunning([['--version'], ['validate'], ['plan', '--help']]);
    expect(build).toBe(0);
    // Enough runs fell inside the build for the check to mean something.
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs.filter((r) => r.code !== 0).map((r) => `${r.args.join(' ')}: exit ${r.code}: ${r.stderr.trim()}`)).toEqual([]);
    expect(await leftovers()).toEqual([]);
    expect((await bundleFiles()).names).toEqual(expect.arrayContaining(['termsync.js', 'load-worker.js', 'plain-validate.cjs', 'plain-validate-loader.cjs', 'validate-options.cjs']));
  }, 120_000);

  it('a build that fails leaves the bundle as it was, and no folder of its own', async () => {
    const before = await bundleFiles();
    // The build validates the example with the new bundle last: an invalid example fails it then, all written.
    const config = path.join(project, 'config', 'termsync.yaml');
    const text = await readFile(config, 'utf8');
    await writeFile(config, text.replace(/^version: 1$/m, 'version: 99'));
    try {
      const { build } = await buildWhileRunning([['--version']]);
      expect(build).not.toBe(0);
    } finally {
      await writeFile(config, text);
    }
    expect(await bundleFiles()).toEqual(before);
    expect(await leftovers()).toEqual([]);
  }, 120_000);

  it('a build over the bundle of other sources keeps the old chunks on disk for a command still running on it, and the package (npm pack) holds exactly the files of a clean build', async () => {
    const build = (): Promise<{ code: number; stdout: string; stderr: string }> => run([path.join(project, 'scripts', 'bundle.js')]);
    const packed = async (): Promise<string[]> => {
      const pack = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: project, env: { PATH: process.env['PATH'] ?? '', HOME: project, npm_config_update_notifier: 'false' } }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
        });
      });
      expect(pack.code, pack.stderr).toBe(0);
      const report = JSON.parse(pack.stdout) as { files: { path: string }[] }[];
      return (report[0]?.files ?? []).map((f) => f.path).filter((f) => f.startsWith('dist/bundle/')).map((f) => f.slice('dist/bundle/'.length)).sort();
    };
    await rm(path.join(project, 'dist', 'bundle'), { recursive: true, force: true });
    expect((await build()).code).toBe(0);
    const old = (await bundleFiles()).names;
    // Other sources: plan's command module says one message otherwise, so its chunk has another name.
    const planModule = path.join(project, 'dist', 'cli', 'commands', 'plan.js');
    const source = await readFile(planModule, 'utf8');
    expect(source).toContain('--out saves the plan of one target');
    await writeFile(planModule, source.replace('--out saves the plan of one target', '--out saves the plan of a single target'));
    try {
      expect((await build()).code).toBe(0);
      // Code caches are named after each build (and never packed): left out of the comparison.
      const over = (await bundleFiles()).names.filter((name) => !name.endsWith('.cache'));
      const pack = await packed();
      // A clean build of the same sources: what the package must hold.
      await rm(path.join(project, 'dist', 'bundle'), { recursive: true, force: true });
      expect((await build()).code).toBe(0);
      const clean = (await bundleFiles()).names.filter((name) => !name.endsWith('.cache'));
      expect(pack).toEqual(clean);
      const carried = over.filter((name) => !clean.includes(name) && name !== '.npmignore');
      expect(carried.length, 'old chunks the new bundle lacks are kept on disk').toBeGreaterThan(0);
      expect(carried.filter((name) => !old.includes(name) || !/-[A-Z0-9]{8}\.js$/.test(name)), 'only chunks of the old bundle').toEqual([]);
    } finally {
      await writeFile(planModule, source);
    }
  }, 180_000);
});
