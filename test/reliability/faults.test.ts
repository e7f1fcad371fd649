// Faults: a large change set applied while the service throttles, runs out of glossary quota,
// fails and drops connections (the emulator's `--faults`), for several seeds. The service must end
// equal to the repository (the plan afterwards says no changes) with no
// name held twice, and stderr carries nothing but JSON log lines.
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, duplicateNames, liveState, nonLogLines, serviceEnv, writeRepo, rewriteRepo, type RunResult } from './harness.js';
import { termRepository, type RepoShape } from './term-repository.js';

const area = createArea('faults');
export const FAULTS = '429=0.2,456=0.05,529=0.05,503=0.05,reset=0.02';
const SEEDS = [1, 2, 3] as const;
const SHAPE: RepoShape = { v3: 12, v2: 4, styleLists: 4, entries: 100 };

describe(`faults: a large change set under --faults ${FAULTS}`, () => {
  const emulators: RunningEmulator[] = [];
  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
  });

  it(`for seeds ${SEEDS.join(', ')}, the service ends equal to the repository, without duplicates`, async () => {
    const outcomes = await Promise.all(
      SEEDS.map(async (seed) => {
        const emulator = await startEmulator({ port: 0, seed, faults: FAULTS, logger: pino({ level: 'info' }, pino.destination({ dest: join(area.dir, `emulator-${seed}.log`), sync: true })) });
        emulators.push(emulator);
        const dir = await area.folder(`seed-${seed}`);
        const env = serviceEnv(emulator.url);
        // The last seed logs at debug level: more lines to hunt the key in, and all must be JSON.
        const logLevel = seed === 3 ? ['--log-level', 'debug'] : [];
        const runs: { step: string; run: RunResult }[] = [];
        await writeRepo(dir, termRepository(seed, 0, SHAPE));
        runs.push({ step: 'apply version 0 (everything created)', run: await area.run(['apply', '--dir', '.', ...logLevel], { cwd: dir, env }) });
        await rewriteRepo(dir, termRepository(seed, 1, SHAPE));
        runs.push({ step: 'apply version 1 (edits, v2 and style-list replacements, deletes)', run: await area.run(['apply', '--dir', '.', ...logLevel], { cwd: dir, env }) });
        emulator.setFaults('');
        runs.push({ step: 'plan afterwards', run: await area.run(['plan', '--detailed-exitcode', '--dir', '.', ...logLevel], { cwd: dir, env }) });
        const live = await liveState(emulator.url);
        const faults = emulator.requests().filter((r) => r.fault !== undefined);
        const byKind = new Map<string, number>();
        for (const f of faults) byKind.set(f.fault as string, (byKind.get(f.fault as string) ?? 0) + 1);
        area.count('faults injected', faults.length);
        for (const { step, run } of runs) {
          const summary = run.stdout.split('\n').find((l) => /^(Plan:|No changes|Apply)/.test(l)) ?? '';
          area.tried(`seed ${seed}: ${step}: exit ${run.code} in ${(run.ms / 1000).toFixed(1)} s; ${summary}`);
        }
        area.tried(
          `seed ${seed}: ${emulator.requests().length} requests, ${faults.length} faults injected (${[...byKind].map(([k, n]) => `${k}: ${n}`).join(', ')}); ` +
            `service holds ${live.glossaries.length} glossaries and ${live.styleLists.length} style lists`,
        );
        return { seed, runs, live, faults: faults.length };
      }),
    );
    const problems: string[] = [];
    for (const { seed, runs, live, faults } of outcomes) {
      const [first, second, plan] = runs.map((r) => r.run) as [RunResult, RunResult, RunResult];
      if (first.code !== 0) problems.push(`seed ${seed}: the first apply exited ${first.code}: ${first.stderr.slice(-400)}`);
      if (second.code !== 0) problems.push(`seed ${seed}: the second apply exited ${second.code}: ${second.stderr.slice(-400)}`);
      if (plan.code !== 0) problems.push(`seed ${seed}: the plan afterwards exited ${plan.code} (0 = no changes): ${plan.stdout.slice(0, 600)}`);
      const duplicates = duplicateNames(live);
      if (duplicates.length > 0) problems.push(`seed ${seed}: held twice: ${duplicates.join(', ')}`);
      const declared = Object.keys(termRepository(seed, 1, SHAPE)).filter((f) => f.endsWith('.yaml') && !f.startsWith('config/')).length;
      if (live.glossaries.length + live.styleLists.length !== declared) problems.push(`seed ${seed}: the service holds ${live.glossaries.length + live.styleLists.length} resources, the repository declares ${declared}`);
      if (faults < 30) problems.push(`seed ${seed}: only ${faults} faults were injected`);
      for (const { step, run } of runs) {
        const stray = nonLogLines(run.stderr);
        if (stray.length > 0) problems.push(`seed ${seed}: ${step}: stderr lines that are not log lines: ${stray.slice(0, 3).join(' | ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (outputs, repositories, emulator logs) for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(10);
    expect(hits).toEqual([]);
  });
});
