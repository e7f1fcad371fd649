// Concurrency checks of the lock itself: a lock path that is a symbolic link, and stale locks taken
// over atomically.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, duplicateNames, exists, liveState, seeded, serviceEnv, writeRepo, type RunResult } from './harness.js';
import { startKillProxy, type KillProxy } from './kill-proxy.js';
import { termRepository, type RepoShape } from './term-repository.js';

const area = createArea('concurrency-locks');
const SHAPE: RepoShape = { v3: 6, v2: 2, styleLists: 2, entries: 20 };

describe('concurrency: locks that are not what they seem, and runners that share no lock', () => {
  const emulators: RunningEmulator[] = [];
  const proxies: KillProxy[] = [];
  afterAll(async () => {
    for (const p of proxies) await p.close();
    await Promise.all(emulators.map((e) => e.close()));
  });

  it('a lock path that is a symbolic link (dangling, or to a file elsewhere) is exit 5, promptly, nothing written through it', async () => {
    const emulator = await startEmulator({ port: 0, seed: 71 });
    emulators.push(emulator);
    const env = serviceEnv(emulator.url);
    const problems: string[] = [];
    const elsewhere = join(await area.folder('elsewhere'), 'precious.txt');
    await writeRepo(area.dir, { 'elsewhere/precious.txt': 'keep me\n' });
    for (const [name, target] of [
      ['dangling', 'no-such-file'],
      ['to a file elsewhere', elsewhere],
    ] as const) {
      const dir = await area.folder(`lock-link-${name.replace(/ /g, '-')}`);
      await writeRepo(dir, { ...termRepository(71, 0, SHAPE), '.termsync.lock': { symlink: target } });
      const run = await area.run(['apply', '--dir', '.'], { cwd: dir, env, timeoutMs: 60_000 });
      const writes = emulator.requests().filter((r) => r.method !== 'GET').length;
      area.tried(`lock path a symbolic link (${name}): apply exit ${run.code ?? run.signal} in ${(run.ms / 1000).toFixed(1)} s, ${writes} writes so far; said: ${run.stderr.trim().split('\n').pop() ?? ''}`);
      if (run.code !== 5) problems.push(`${name}: exit ${run.code ?? run.signal} (expected 5)`);
      if (writes !== 0) problems.push(`${name}: ${writes} writes reached the service`);
    }
    const precious = await import('node:fs/promises').then((fs) => fs.readFile(elsewhere, 'utf8'));
    if (precious !== 'keep me\n') problems.push(`the file the lock pointed at was changed: ${JSON.stringify(precious)}`);
    expect(problems).toEqual([]);
  });

  it('two runs racing for one stale lock: exactly one gets it, in every trial', async () => {
    const emulator = await startEmulator({ port: 0, seed: 72 });
    emulators.push(emulator);
    const proxy = await startKillProxy(emulator.url);
    proxies.push(proxy);
    const dir = await area.folder('stale-race');
    const env = serviceEnv(proxy.url);
    const random = seeded(72);
    const problems: string[] = [];
    const TRIALS = 5;
    for (let trial = 1; trial <= TRIALS; trial++) {
      await writeRepo(dir, { ...termRepository(72, trial, SHAPE), '.termsync.lock': `${JSON.stringify({ pid: 4_194_305, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' })}\n` });
      proxy.hold();
      const stagger = Math.floor(random() * 20);
      const first = area.run(['apply', '--dir', '.'], { cwd: dir, env });
      await new Promise((r) => setTimeout(r, stagger));
      const second = area.run(['apply', '--dir', '.'], { cwd: dir, env });
      const loser = await Promise.race([first, second]);
      proxy.release();
      const runs: RunResult[] = await Promise.all([first, second]);
      const codes = runs.map((r) => r.code).sort();
      area.tried(`stale-lock race ${trial} (second started ${stagger} ms later): exits ${runs.map((r) => r.code).join(' and ')}; the refused one said: ${loser.stderr.trim().split('\n').pop() ?? ''}`);
      if (codes.join(',') !== '0,5') problems.push(`trial ${trial}: exits ${codes.join(', ')} (expected one 0 and one 5)`);
      if (await exists(join(dir, '.termsync.lock'))) problems.push(`trial ${trial}: the lock file is left behind`);
    }
    const duplicates = duplicateNames(await liveState(emulator.url));
    if (duplicates.length > 0) problems.push(`held twice: ${duplicates.join(', ')}`);
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (outputs, repositories) for the key: ${hits.length} found`);
    // A search of nothing finds nothing: 127 files in a full run (12 runs × command, stdout and
    // stderr, the three repositories, the log).
    expect(places).toBeGreaterThan(100);
    expect(hits).toEqual([]);
  });
});
