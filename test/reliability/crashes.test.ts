// Crashes: termsync SIGKILLed at 20 seeded points (a write request, before it reaches the service
// or after the service did it) of applies that replace v2 glossaries and style lists, edit
// dictionaries in place, create and delete. Each rerun must converge (the plan after it says no
// changes, no name held twice), and a watcher reading the service all along must never see a
// moment without a usable glossary or style list of a name the repository declares throughout.
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, duplicateNames, liveState, rewriteRepo, seeded, serviceEnv, writeRepo } from './harness.js';
import { startKillProxy, type KillPoint, type KillProxy } from './kill-proxy.js';
import { stableNames, termRepository, type RepoShape } from './term-repository.js';

const area = createArea('crashes');
const SHAPE: RepoShape = { v3: 6, v2: 4, styleLists: 4, entries: 20 };
/** Two independent chains of kill points run side by side (one emulator, proxy and repository each). */
const CHAINS = [{ seed: 101 }, { seed: 202 }] as const;
const KILLS_PER_CHAIN = 10;

interface Watch {
  stop(): Promise<{ snapshots: number; gaps: string[] }>;
}

/** Reads the service every few milliseconds; notes every moment a declared name has nothing usable. */
function watchService(url: string, names: { glossaries: string[]; styleLists: string[] }): Watch {
  let running = true;
  let snapshots = 0;
  const gaps: string[] = [];
  const loop = (async () => {
    while (running) {
      const live = await liveState(url);
      snapshots += 1;
      for (const name of names.glossaries) {
        const usable = live.glossaries.some((g) => g.name === name && g.dictionaries.length > 0 && g.dictionaries.every((d) => d.entry_count > 0));
        if (!usable) gaps.push(`snapshot ${snapshots}: no usable glossary "${name}"`);
      }
      for (const name of names.styleLists) {
        if (!live.styleLists.some((s) => s.name === name)) gaps.push(`snapshot ${snapshots}: no style list "${name}"`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { snapshots, gaps };
    },
  };
}

describe('crashes: SIGKILL at 20 seeded points of applies with v2 and style-list replacements', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('every rerun converges, with no duplicate and no moment without a usable declared resource', async () => {
    const problems: string[] = [];
    const chain = async ({ seed }: { seed: number }): Promise<void> => {
      const random = seeded(seed);
      const emulator: RunningEmulator = await startEmulator({ port: 0, seed });
      const proxy: KillProxy = await startKillProxy(emulator.url);
      closers.push(() => proxy.close(), () => emulator.close());
      const dir = await area.folder(`chain-${seed}`);
      const env = serviceEnv(proxy.url);
      const direct = serviceEnv(emulator.url);
      const names = stableNames(SHAPE);

      // Version 0 creates everything; version 1 is a full change set without a kill, to count its writes.
      await writeRepo(dir, termRepository(seed, 0, SHAPE));
      const setup = await area.run(['apply', '--dir', '.'], { cwd: dir, env });
      if (setup.code !== 0) throw new Error(`chain ${seed}: the first apply exited ${setup.code}: ${setup.stderr}`);
      await rewriteRepo(dir, termRepository(seed, 1, SHAPE));
      proxy.disarm();
      const measured = await area.run(['apply', '--dir', '.'], { cwd: dir, env });
      const writesPerApply = proxy.writes();
      if (measured.code !== 0) throw new Error(`chain ${seed}: the second apply exited ${measured.code}: ${measured.stderr}`);
      area.tried(`chain ${seed}: version 0 applied, version 1 applied with ${writesPerApply} writes: ${measured.stdout.split('\n').find((l) => l.startsWith('Plan:')) ?? ''}`);

      for (let i = 0; i < KILLS_PER_CHAIN; i++) {
        const version = 2 + i;
        const point: KillPoint = { write: 1 + Math.floor(random() * Math.max(1, writesPerApply - 4)), phase: random() < 0.5 ? 'before' : 'after' };
        await rewriteRepo(dir, termRepository(seed, version, SHAPE));
        const watch = watchService(emulator.url, names);
        const killed = await area.run(['apply', '--dir', '.'], { cwd: dir, env, onSpawn: (child) => proxy.arm(point, child) });
        const at = proxy.killedAt();
        proxy.disarm();
        const rerun = await area.run(['apply', '--dir', '.'], { cwd: dir, env });
        const { snapshots, gaps } = await watch.stop();
        const plan = await area.runInProcess(['plan', '--detailed-exitcode', '--dir', '.'], { cwd: dir, env: direct });
        const duplicates = duplicateNames(await liveState(emulator.url));
        area.count('kill points', 1);
        const label = `chain ${seed}, kill ${i + 1} (version ${version}): write ${point.write} ${point.phase}`;
        area.tried(
          `${label}: killed at ${at ?? '(never: the apply ended first)'} → ${killed.signal ?? `exit ${killed.code}`}; ` +
            `rerun exit ${rerun.code} in ${(rerun.ms / 1000).toFixed(1)} s (${rerun.stdout.split('\n').find((l) => l.startsWith('Plan:')) ?? 'no plan line'}); ` +
            `plan after: exit ${plan.code}; ${duplicates.length} duplicates; watcher: ${snapshots} snapshots, ${gaps.length} gaps`,
        );
        if (killed.signal !== 'SIGKILL' || at === undefined) problems.push(`${label}: the apply was not killed (exit ${killed.code})`);
        if (rerun.code !== 0) problems.push(`${label}: the rerun exited ${rerun.code}: ${rerun.stderr.slice(-500)}`);
        if (plan.code !== 0) problems.push(`${label}: the plan after the rerun exited ${plan.code}: ${plan.stdout.slice(0, 500)}`);
        if (duplicates.length > 0) problems.push(`${label}: held twice: ${duplicates.join(', ')}`);
        if (gaps.length > 0) problems.push(`${label}: ${gaps.length} gaps, first: ${gaps.slice(0, 3).join('; ')}`);
        if (snapshots < 3) problems.push(`${label}: the watcher read the service only ${snapshots} times`);
      }
    };
    await Promise.all(CHAINS.map(chain));
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (outputs, repositories, lock files) for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(40);
    expect(hits).toEqual([]);
  });
});
