/**
 * The action's install step (action.yml, "Install termsync") as the runner runs it: bash with the
 * runner's variables. It installs the released package of the action's own version (or the one the
 * `version` input names) with its production dependencies only, no build and no lifecycle script,
 * into the runner's temporary folder, and puts its bin on PATH. bench/action-install.js times it
 * from a cold cache.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../e2e/harness.js';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
}

const action = parseYaml(await readFile(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as { runs: { steps: { name?: string; run?: string; env?: Record<string, string> }[] } };
const install = action.runs.steps.find((s) => s.name === 'Install termsync');
const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

let scratch: string;
let runs = 0;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'termsync-action-install-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The step in a runner-like folder of its own: RUNNER_TEMP, GITHUB_PATH, the action checked out at this checkout. */
async function installStep(version: string, path: string): Promise<Run & { temp: string; githubPath: string }> {
  const dir = join(scratch, `run-${++runs}`);
  const temp = join(dir, 'runner-temp');
  await mkdir(temp, { recursive: true });
  const githubPath = join(dir, 'github-path');
  await writeFile(githubPath, '');
  expect(install?.env).toEqual({ INPUT_VERSION: '${{ inputs.version }}' });
  // This machine's environment otherwise (its npm cache, certificates and registry settings).
  const result = await run('bash', ['-e', '-c', install?.run ?? ''], { ...process.env, PATH: path, RUNNER_TEMP: temp, GITHUB_PATH: githubPath, GITHUB_ACTION_PATH: PROJECT_ROOT, INPUT_VERSION: version, npm_config_update_notifier: 'false' }, dir);
  return { ...result, temp, githubPath };
}

describe('the action installs termsync', () => {
  it('the release of its own version by default, a version or any install spec when asked: the command line it gives npm', async () => {
    // A stand-in npm that records its arguments and installs a termsync that prints its version.
    const fake = join(scratch, 'fake-npm');
    await mkdir(fake);
    await writeFile(
      join(fake, 'npm'),
      '#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$RUNNER_TEMP/npm-args"\nwhile [ $# -gt 0 ]; do if [ "$1" = --prefix ]; then prefix=$2; fi; shift; done\nmkdir -p "$prefix/bin"\nprintf "#!/bin/sh\\necho installed\\n" > "$prefix/bin/termsync"\nchmod +x "$prefix/bin/termsync"\n',
    );
    await chmod(join(fake, 'npm'), 0o755);
    const path = `${fake}:${process.env['PATH'] ?? ''}`;
    for (const [version, spec] of [
      ['', `termsync@${pkg.version}`],
      ['0.0.9', 'termsync@0.0.9'],
      ['https://registry.example.com/termsync/-/termsync-0.1.0.tgz', 'https://registry.example.com/termsync/-/termsync-0.1.0.tgz'],
    ] as const) {
      const step = await installStep(version, path);
      expect(step.code, step.stderr).toBe(0);
      expect(step.stdout).toBe('installed\n');
      const prefix = join(step.temp, 'termsync-cli');
      expect((await readFile(join(step.temp, 'npm-args'), 'utf8')).trim().split('\n')).toEqual(['install', '--global', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', spec]);
      expect(await readFile(step.githubPath, 'utf8')).toBe(`${join(prefix, 'bin')}\n`);
    }
  });

  it('really: the packed package with its production dependencies from the registry, no build, no development tool', async () => {
    const packed = join(scratch, 'pack');
    await mkdir(packed);
    const pack = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packed], { ...process.env, npm_config_loglevel: 'error' }, PROJECT_ROOT);
    expect(pack.code, pack.stderr).toBe(0);
    const tarball = join(packed, pack.stdout.trim().split('\n').at(-1) ?? '');
    const step = await installStep(tarball, process.env['PATH'] ?? '');
    expect(step.code, step.stderr).toBe(0);
    // npm's count of what it added, then the installed CLI's --version.
    expect(step.stdout).toMatch(new RegExp(`^\\s*added \\d+ packages in [\\d.]+m?s\\n${pkg.version.replace(/\./g, '\\.')}\\n$`));
    const app = join(step.temp, 'termsync-cli', 'lib', 'node_modules', 'termsync');
    expect(await readdir(join(app, 'dist'))).toEqual(['bundle']);
    for (const name of Object.keys(pkg.devDependencies)) expect(existsSync(join(app, 'node_modules', name)), `dev dependency ${name}`).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'exceljs'))).toBe(false);
    // The bin the step put on PATH runs a plain validate of the example repository.
    const bin = join((await readFile(step.githubPath, 'utf8')).trim(), 'termsync');
    const validate = await run(bin, ['validate', '--dir', PROJECT_ROOT], { PATH: process.env['PATH'] ?? '', XDG_CACHE_HOME: join(scratch, 'cache') }, scratch);
    expect(validate).toEqual({ code: 0, stdout: 'No problems in 18 files.\n', stderr: '' });
  }, 180_000);
});
