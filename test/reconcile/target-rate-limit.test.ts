import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { reconcile, type RunOutcome } from '../../src/reconcile/index.js';

// A target's own `rate_limit` replaces the config's for that target's client (every command and the
// daemon open it the same way, reconcile/open-client.ts); a target without one keeps the config's.
// The emulator and the client share a virtual clock: the arrival times it logs are the pacing.

const GLOSSARIES = 6;

async function repository(config: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-target-rate-'));
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'termsync.yaml'), config);
  for (let g = 0; g < GLOSSARIES; g++) {
    await writeFile(path.join(dir, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: G${g}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      cart: Warenkorb ${g}\n`);
  }
  return dir;
}

/** Gaps in ms between one account's request arrivals, in order. */
function gaps(emulator: RunningEmulator, account: string): number[] {
  const times = emulator
    .requests()
    .filter((r) => r.account === account)
    .map((r) => r.time);
  return times.slice(1).map((t, i) => t - (times[i] as number));
}

describe('a target with its own rate_limit', () => {
  const dirs: string[] = [];
  const emulators: RunningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(emulators.splice(0).map((e) => e.close()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('is paced by its own rate; a target without one by the top-level rate', async () => {
    const clock = createVirtualClock();
    // acct-1 is the key of `own`, acct-2 the key of `shared`.
    const emulator = await startEmulator({ port: 0, clock, seed: 3, keys: ['key-own', 'key-shared'] });
    emulators.push(emulator);
    const dir = await repository(
      'version: 1\nrate_limit: { requests_per_second: 2, concurrency: 1 }\ntargets:\n' +
        '  - name: own\n    api_key_env: TERMSYNC_KEY_OWN\n    rate_limit: { requests_per_second: 50, concurrency: 1 }\n' +
        '  - name: shared\n    api_key_env: TERMSYNC_KEY_SHARED\n',
    );
    dirs.push(dir);
    const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_KEY_OWN: 'key-own', TERMSYNC_KEY_SHARED: 'key-shared' };
    const outcome: RunOutcome = await reconcile({ dir, mode: 'apply' }, { env, signal: new AbortController().signal, logger: silentLogger, clock });
    expect(outcome.kind === 'done' && outcome.targets.map((t) => [t.target, t.kind])).toEqual([
      ['own', 'changed'],
      ['shared', 'changed'],
    ]);

    // Both targets listed and created the same glossaries: the same requests, at their own pace.
    const own = gaps(emulator, 'acct-1');
    const shared = gaps(emulator, 'acct-2');
    expect(own.length).toBeGreaterThanOrEqual(GLOSSARIES);
    expect(shared).toHaveLength(own.length);
    // 50 requests/s: 20 ms apart, never the top-level 500 ms.
    expect(Math.min(...own)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...own)).toBeLessThan(500);
    // 2 requests/s: 500 ms apart.
    expect(Math.min(...shared)).toBeGreaterThanOrEqual(500);
  });

  it('is loaded with its own concurrency following its own rate; the others keep the top-level one', async () => {
    const dir = await repository(
      'version: 1\nrate_limit: { requests_per_second: 3, concurrency: 2 }\ntargets:\n' +
        '  - name: own\n    rate_limit: { requests_per_second: 20 }\n' +
        '  - name: shared\n    api_key_env: TERMSYNC_KEY_SHARED\n',
    );
    dirs.push(dir);
    const { desired, diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([]);
    expect(desired?.config.rateLimit).toEqual({ requestsPerSecond: 3, concurrency: 2 });
    expect(desired?.config.targets.map((t) => [t.name, t.rateLimit])).toEqual([
      ['own', { requestsPerSecond: 20, concurrency: 8 }],
      ['shared', undefined],
    ]);
  });

  it('is refused where it is written when it is not a rate', async () => {
    const dir = await repository('version: 1\ntargets:\n  - name: own\n    rate_limit:\n      requests_per_second: 0\n');
    dirs.push(dir);
    const { desired, diagnostics } = await loadRepository({ dir });
    expect(desired).toBeUndefined();
    expect(diagnostics.map((d) => [d.file, d.line, d.message])).toEqual([['termsync.yaml', 5, expect.stringContaining('`targets.0.rate_limit.requests_per_second`')]]);
  });
});
