import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { until } from '../helpers/until.js';
import { runCli } from '../../src/cli/main.js';
import type * as LoaderModule from '../../src/config/load-repository.js';

/** Every load of the repository (the loader's one entry point), whoever asks for it. */
const loads = vi.hoisted(() => ({ dirs: [] as string[] }));
vi.mock('../../src/config/load-repository.js', async (importOriginal) => {
  const actual = await importOriginal<typeof LoaderModule>();
  return {
    ...actual,
    loadRepository: (options: Parameters<typeof actual.loadRepository>[0]) => {
      loads.dirs.push(options.dir);
      return actual.loadRepository(options);
    },
  };
});

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-watch-auto-'));
  await cp(join(PROJECT_ROOT, 'config'), join(dir, 'config'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'glossaries'), join(dir, 'glossaries'), { recursive: true });
  const config = join(dir, 'config/termsync.yaml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('requests_per_second: 5', 'requests_per_second: 200'));
  loads.dirs.length = 0;
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * `watch --emulator auto` in this process with no TERMSYNC_* variable set (the `npm start` path),
 * until its start-up run is on /status: its stderr then, that run, and how it ended (its exit code)
 * once stopped.
 */
async function startUpRun(): Promise<{ stderr: string; run: { trigger: string; result: string }; code: number }> {
  const stop = new AbortController();
  let stderr = '';
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TERMSYNC_')));
  const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t), env, cwd: dir, signal: stop.signal };
  const running = runCli(['watch', '--emulator', 'auto', '--dir', dir, '--listen', '127.0.0.1:0', '--no-verify', '--log-level', 'warn'], io);
  try {
    const url = await until('the endpoints', () => /serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1], { timeoutMs: 20_000, context: () => stderr });
    const run = await until(
      'the start-up run',
      async () => ((await (await fetch(`${url}/status`)).json()) as { runs: { trigger: string; result: string }[] }).runs.find((r) => r.trigger === 'startup'),
      { timeoutMs: 20_000, context: () => stderr },
    );
    stop.abort();
    return { stderr, run, code: await running };
  } finally {
    stop.abort();
  }
}

describe('watch --emulator auto (npm start)', () => {
  it('reads only the config to start the emulator: the repository is loaded once, by the daemon', async () => {
    const { stderr, run, code } = await startUpRun();
    expect(stderr).toMatch(/No TERMSYNC_BASE_URL\/TERMSYNC_API_KEY set: started the built-in service emulator/);
    // The daemon reconciled with that emulator (the example's resources created).
    expect(run.result).toBe('changed');
    expect(loads.dirs).toEqual([dir]);
    expect(code).toBe(0);
  });

  it('with a config it cannot use, starts the emulator for the default variables, and the daemon reports the config', async () => {
    await writeFile(join(dir, 'config/termsync.yaml'), 'version: 1\ntargets: [nope\n');
    const { stderr, run, code } = await startUpRun();
    expect(stderr).toMatch(/No TERMSYNC_BASE_URL\/TERMSYNC_API_KEY set: started the built-in service emulator/);
    expect(run.result).toBe('invalid');
    expect(loads.dirs).toEqual([dir]);
    expect(code).toBe(0);
  });
});
