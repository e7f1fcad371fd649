// An interrupted apply tells the truth: SIGINT or SIGTERM to a real `apply` process while its writes
// go out (each answer takes a few hundred milliseconds, two in flight at a time). The run exits 130;
// the operations that never started are skipped (`not started`), those whose request was in flight
// report what the service did, and the totals line says the run was interrupted. What the result
// says was applied is exactly what the service holds; the next apply finishes the job.
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createArea, liveState, looksLikeStackTrace, SECRET_KEY, serviceEnv, writeRepo, type RepoFiles } from './harness.js';

const area = createArea('interrupted-apply');
const GLOSSARIES = 16;

function repository(): RepoFiles {
  const files: RepoFiles = { 'config/termsync.yaml': 'version: 1\nrate_limit:\n  requests_per_second: 50\n  concurrency: 2\ntargets:\n  - name: default\n' };
  for (let i = 0; i < GLOSSARIES; i++) {
    files[`glossaries/g${i}.yaml`] = `kind: glossary\nname: interrupted ${String(i).padStart(2, '0')}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      term ${i}: Begriff ${i}\n`;
  }
  return files;
}

describe('an interrupted apply tells the truth', () => {
  const emulators: RunningEmulator[] = [];
  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} while the writes go out: exit 130, not started = skipped, in flight = what the service did, "interrupted"`, async () => {
      const emulator = await startEmulator({ port: 0, seed: 81, keys: [SECRET_KEY], faults: 'latency=250-350' });
      emulators.push(emulator);
      const dir = await area.folder(`repo-${signal}`);
      await writeRepo(dir, repository());
      const posts = (): number => emulator.requests().filter((r) => r.method === 'POST').length;
      let child: ChildProcess | undefined;
      let sentAtSignal = -1;
      const running = area.run(['apply', '--dir', '.'], { cwd: dir, env: serviceEnv(emulator.url), timeoutMs: 120_000, onSpawn: (c) => (child = c) });
      // The signal once four creates have reached the service: two answered, two in flight.
      const watcher = setInterval(() => {
        if (sentAtSignal < 0 && posts() >= 4) {
          sentAtSignal = posts();
          child?.kill(signal);
        }
      }, 5);
      const run = await running;
      clearInterval(watcher);
      const live = await liveState(emulator.url);
      const lines = run.stdout.split('\n');
      const appliedNames = lines.filter((l) => l.startsWith('  ✓ ')).map((l) => /glossary "([^"]+)"/.exec(l)?.[1] ?? l);
      const notStarted = lines.filter((l) => l.startsWith('  - ') && l.endsWith(': skipped (not started)'));
      const failed = lines.filter((l) => l.startsWith('  ✗ '));
      const totals = lines.find((l) => l.startsWith('Apply ')) ?? '';
      area.tried(
        `${signal} after ${sentAtSignal} creates had reached the service: exit ${run.code ?? run.signal}; ${appliedNames.length} reported applied, ${failed.length} failed, ${notStarted.length} not started; ` +
          `${posts()} creates reached the service, which holds ${live.glossaries.length} glossaries; said: ${totals} | ${run.stderr.trim().split('\n').join(' | ')}`,
      );
      expect(sentAtSignal).toBeGreaterThan(0);
      expect(run.code).toBe(130);
      expect(looksLikeStackTrace(run.stdout + run.stderr)).toBe(false);
      // Nothing reported as failed: each operation either never started or was answered.
      expect(failed).toEqual([]);
      expect(notStarted.length).toBeGreaterThan(0);
      expect(appliedNames.length + notStarted.length).toBe(GLOSSARIES);
      // What the result says was applied is what the service holds, the writes in flight at the signal included.
      expect(live.glossaries.map((g) => g.name).sort()).toEqual([...appliedNames].sort());
      expect(posts()).toBe(appliedNames.length);
      expect(appliedNames.length).toBeGreaterThanOrEqual(sentAtSignal);
      expect(totals).toBe(`Apply interrupted: ${appliedNames.length} applied, 0 failed, ${notStarted.length} skipped (${notStarted.length} not started). Run apply again to finish.`);
      expect(run.stderr).toContain('Interrupted: no further request is sent; the writes in flight are answered first');

      // The next apply finishes: every glossary once.
      const again = await area.run(['apply', '--dir', '.'], { cwd: dir, env: serviceEnv(emulator.url), timeoutMs: 120_000 });
      const after = await liveState(emulator.url);
      area.tried(`apply again: exit ${again.code}; the service holds ${after.glossaries.length} glossaries; said: ${again.stdout.trim().split('\n').pop() ?? ''}`);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`Apply complete: ${notStarted.length} applied, 0 failed, 0 skipped.`);
      expect(after.glossaries).toHaveLength(GLOSSARIES);
    });
  }

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(5);
    expect(hits).toEqual([]);
  });
});
