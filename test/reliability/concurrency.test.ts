// Concurrency: two applies in one folder (the second finds the lock: exit 5, and the service ends
// as the first made it), a lock left by a run that died (taken over), and two clones applying at
// once with no lock in common (the next plan shows the duplicates, the next apply removes them).
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, duplicateNames, exists, liveState, serviceEnv, writeRepo } from './harness.js';
import { until } from '../helpers/until.js';
import { startKillProxy } from './kill-proxy.js';
import { termRepository, type RepoShape } from './term-repository.js';

const area = createArea('concurrency');
const SHAPE: RepoShape = { v3: 6, v2: 2, styleLists: 2, entries: 20 };

describe('concurrency: two runners', () => {
  const emulators: RunningEmulator[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
    await Promise.all(emulators.map((e) => e.close()));
  });

  it('two applies in one folder: the second exits 5 naming the lock, the first converges', async () => {
    const emulator = await startEmulator({ port: 0, seed: 31 });
    emulators.push(emulator);
    // The first apply's requests are held at a proxy until the second has ended: it is surely busy.
    const proxy = await startKillProxy(emulator.url);
    closers.push(() => proxy.close());
    const dir = await area.folder('one-folder');
    const env = serviceEnv(proxy.url);
    const problems: string[] = [];
    for (const [trial, version] of [
      ['the second starts while the first holds the lock', 0],
      ['both start at the same moment', 1],
    ] as const) {
      await writeRepo(dir, termRepository(31, version, SHAPE));
      proxy.hold();
      const first = area.run(['apply', '--dir', '.'], { cwd: dir, env });
      const tookLock = (): Promise<boolean> => until('the first apply to take the lock', async () => (await exists(join(dir, '.termsync.lock'))) && proxy.held() > 0, { timeoutMs: 60_000, everyMs: 5 }).then(() => true, () => false);
      if (version === 0 && !(await tookLock())) {
        problems.push(`${trial}: the first apply never took the lock`);
      }
      const second = area.run(['apply', '--dir', '.'], { cwd: dir, env });
      // Whichever lost ends on its own; then the winner's requests go through.
      const loser = await Promise.race([first, second]);
      proxy.release();
      const runs = await Promise.all([first, second]);
      const codes = runs.map((r) => r.code).sort();
      area.tried(`${trial}: exits ${runs.map((r) => r.code).join(' and ')}; the refused one said: ${loser.stderr.trim().split('\n').pop() ?? ''}`);
      if (codes.join(',') !== '0,5') problems.push(`${trial}: exits ${codes.join(', ')} (expected one 0 and one 5)`);
      if (loser.code !== 5 || !/another termsync run holds the lock .*\.termsync\.lock: pid \d+ on host /.test(loser.stderr)) problems.push(`${trial}: the refusal does not name the lock and its holder: ${loser.stderr}`);
      if (await exists(join(dir, '.termsync.lock'))) problems.push(`${trial}: the lock file is left behind`);
    }
    const plan = await area.runInProcess(['plan', '--detailed-exitcode', '--dir', '.'], { cwd: dir, env: serviceEnv(emulator.url) });
    const duplicates = duplicateNames(await liveState(emulator.url));
    area.tried(`after both trials: plan exit ${plan.code}, ${duplicates.length} duplicates`);
    if (plan.code !== 0) problems.push(`plan afterwards exited ${plan.code}: ${plan.stdout.slice(0, 400)}`);
    if (duplicates.length > 0) problems.push(`held twice: ${duplicates.join(', ')}`);
    expect(problems).toEqual([]);
  });

  it('a lock left by a run that died on this host is taken over; a live holder elsewhere is not', async () => {
    const emulator = await startEmulator({ port: 0, seed: 32 });
    emulators.push(emulator);
    const dir = await area.folder('stale-lock');
    await writeRepo(dir, termRepository(32, 0, SHAPE));
    const env = serviceEnv(emulator.url);
    // 2^22 + 1 is above the largest pid Linux gives out: no process has it.
    await writeRepo(dir, { '.termsync.lock': `${JSON.stringify({ pid: 4_194_305, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' })}\n` });
    const dead = await area.run(['apply', '--dir', '.'], { cwd: dir, env });
    await writeRepo(dir, { '.termsync.lock': `${JSON.stringify({ pid: 4_194_305, host: 'another-machine', startedAt: '2026-01-01T00:00:00.000Z' })}\n` });
    const before = emulator.requests().length;
    const elsewhere = await area.run(['apply', '--dir', '.'], { cwd: dir, env });
    const sentElsewhere = emulator.requests().length - before;
    area.tried(`lock of a dead pid on this host: apply exit ${dead.code}; lock of another host: apply exit ${elsewhere.code} (${sentElsewhere} writes sent): ${elsewhere.stderr.trim().split('\n').pop() ?? ''}`);
    expect(dead.code).toBe(0);
    expect(elsewhere.code).toBe(5);
    expect(emulator.requests().slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('two clones applying at once (prune: off): the next plan shows the duplicates, the next apply leaves one of each', async () => {
    const emulator = await startEmulator({ port: 0, seed: 73 });
    emulators.push(emulator);
    const proxy = await startKillProxy(emulator.url);
    closers.push(() => proxy.close());
    const shape: RepoShape = { ...SHAPE, prune: 'off' };
    const clones = [await area.folder('clone-a'), await area.folder('clone-b')];
    for (const dir of clones) await writeRepo(dir, termRepository(73, 0, shape));
    const env = serviceEnv(proxy.url);
    // Both read the (empty) service before either writes: the race two CI jobs run.
    proxy.hold();
    const runs = clones.map((dir) => area.run(['apply', '--dir', '.'], { cwd: dir, env }));
    const bothRead = await until('both applies to read', () => proxy.held() >= 6, { timeoutMs: 60_000, everyMs: 5 }).then(() => true, () => false);
    proxy.release();
    const applied = await Promise.all(runs);
    const afterRace = duplicateNames(await liveState(emulator.url));
    const plan = await area.run(['plan', '--detailed-exitcode', '--dir', '.'], { cwd: clones[0] as string, env: serviceEnv(emulator.url) });
    const next = await area.run(['apply', '--dir', '.'], { cwd: clones[0] as string, env: serviceEnv(emulator.url) });
    const afterNext = duplicateNames(await liveState(emulator.url));
    const planAfter = await area.runInProcess(['plan', '--detailed-exitcode', '--dir', '.'], { cwd: clones[1] as string, env: serviceEnv(emulator.url) });
    area.tried(
      `two clones at once: exits ${applied.map((r) => r.code).join(' and ')}, ${afterRace.length} names held twice; plan from clone A: exit ${plan.code} ` +
        `(${plan.stdout.split('\n').find((l) => l.startsWith('Plan:')) ?? ''}); next apply exit ${next.code}: ${afterNext.length} held twice; plan from clone B: exit ${planAfter.code}`,
    );
    expect(bothRead).toBe(true);
    expect(applied.map((r) => r.code)).toEqual([0, 0]);
    expect(afterRace.length).toBeGreaterThan(0);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/duplicate|twice|more than one/i);
    expect(next.code).toBe(0);
    expect(afterNext).toEqual([]);
    expect(planAfter.code).toBe(0);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (outputs, repositories) for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(10);
    expect(hits).toEqual([]);
  });
});
