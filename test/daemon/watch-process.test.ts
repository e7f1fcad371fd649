import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { until } from '../helpers/until.js';

let dir: string;
let child: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-watch-'));
  await cp(join(PROJECT_ROOT, 'config'), join(dir, 'config'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'glossaries'), join(dir, 'glossaries'), { recursive: true });
  const config = await readFile(join(dir, 'config/termsync.yaml'), 'utf8');
  await writeFile(join(dir, 'config/termsync.yaml'), config.replace('requests_per_second: 5', 'requests_per_second: 100'));
});

afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Starts `termsync watch` as a real process with no service configured (the `npm start` path). */
function startWatch(): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('TERMSYNC_')) delete env[name];
  const proc = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/termsync.js'), 'watch', '--emulator', 'auto', '--dir', dir, '--listen', '127.0.0.1:0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  let err = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { child: proc, stderr: () => err, exited };
}

describe('termsync watch as a process', () => {
  it('with nothing configured runs the emulator in-process, converges, reloads on SIGHUP, and exits 0 on SIGTERM leaving no lock', async () => {
    const watch = startWatch();
    const url = await until('the endpoints line', () => /serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(watch.stderr())?.[1], { timeoutMs: 20_000 });
    expect(watch.stderr()).toMatch(/No TERMSYNC_BASE_URL\/TERMSYNC_API_KEY set: started the built-in service emulator on http:\/\/127\.0\.0\.1:\d+/);
    await until('the first reconcile', async () => {
      const status = (await (await fetch(`${url}/status`)).json()) as { runs: { trigger: string }[] };
      return status.runs.find((r) => r.trigger === 'startup');
    }, { timeoutMs: 20_000 });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const lines = watch.stderr().split('\n').filter((l) => l.startsWith('{'));
    const reconciled = lines.map((l) => JSON.parse(l) as { msg: string; trigger?: string; result?: string }).find((l) => l.trigger === 'startup');
    expect(reconciled).toMatchObject({ result: 'changed', msg: 'reconcile changed: Plan: 8 to add, 0 to change, 0 to destroy.' });

    watch.child.kill('SIGHUP');
    await until('a reload run', async () => {
      const status = (await (await fetch(`${url}/status`)).json()) as { runs: { trigger: string; result: string }[] };
      return status.runs.find((r) => r.trigger === 'reload' && r.result === 'converged');
    }, { timeoutMs: 20_000 });

    watch.child.kill('SIGTERM');
    expect(await watch.exited).toBe(0);
    await expect(stat(join(dir, '.termsync.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Nothing but JSON log lines and the two plain start-up lines on stderr.
    const other = watch
      .stderr()
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('{') && !l.startsWith('No TERMSYNC_') && !l.startsWith('termsync watch: serving'));
    expect(other).toEqual([]);
    // A process that starts an emulator, converges and reloads: seconds, more on a busy machine.
  }, 60_000);
});
