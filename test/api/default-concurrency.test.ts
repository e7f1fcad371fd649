import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { loadRepository } from '../../src/config/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { CONCURRENCY_RULE, DEFAULTS, defaultConcurrency } from '../../src/lib/defaults.js';
import { createWorld, type World } from '../e2e/harness.js';

// `rate_limit.concurrency` left out of the config follows the rate: ceil(rate × 0.4) kept between
// 4 and 16. A concurrency the config sets always wins.

describe('defaultConcurrency', () => {
  it('keeps 4 at the default rate and up to 10 requests/s', () => {
    expect(defaultConcurrency(DEFAULTS.requestsPerSecond)).toBe(DEFAULTS.concurrency);
    for (const rate of [0.5, 1, 5, 7.5, 10]) expect(defaultConcurrency(rate)).toBe(4);
  });

  it('follows the rate above that: ceil(rate × 0.4)', () => {
    expect(defaultConcurrency(10.1)).toBe(5);
    expect(defaultConcurrency(20)).toBe(8);
    expect(defaultConcurrency(25)).toBe(10);
    // 30 × 0.4 is 12.000000000000002 in floating point: still 12.
    expect(defaultConcurrency(30)).toBe(12);
    expect(defaultConcurrency(37.5)).toBe(15);
  });

  it('never goes above 16', () => {
    for (const rate of [40, 100, 1000, 1e9]) expect(defaultConcurrency(rate)).toBe(CONCURRENCY_RULE.max);
  });

  it('never decreases as the rate rises', () => {
    let previous = 0;
    for (let rate = 0.25; rate <= 60; rate += 0.25) {
      const c = defaultConcurrency(rate);
      expect(c).toBeGreaterThanOrEqual(previous);
      previous = c;
    }
  });
});

describe('the project config', () => {
  const temps: string[] = [];
  afterEach(async () => {
    await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  const repo = async (): Promise<string> => {
    const dir = await mkdtemp(path.join(tmpdir(), 'termsync-concurrency-'));
    temps.push(dir);
    await mkdir(path.join(dir, 'glossaries'));
    return dir;
  };
  const load = async (rateLimit: string | undefined): Promise<unknown> => {
    const dir = await repo();
    const config = `version: 1\n${rateLimit === undefined ? '' : `rate_limit: ${rateLimit}\n`}targets:\n  - name: default\n`;
    await writeFile(path.join(dir, 'termsync.yaml'), config);
    const { desired, diagnostics } = await loadRepository({ dir });
    expect(diagnostics).toEqual([]);
    return desired?.config.rateLimit;
  };

  it('gives the concurrency of the rate when it sets none', async () => {
    expect(await load(undefined)).toEqual({ requestsPerSecond: 5, concurrency: 4 });
    expect(await load('{}')).toEqual({ requestsPerSecond: 5, concurrency: 4 });
    expect(await load('{ requests_per_second: 20 }')).toEqual({ requestsPerSecond: 20, concurrency: 8 });
    expect(await load('{ requests_per_second: 100 }')).toEqual({ requestsPerSecond: 100, concurrency: 16 });
  });

  it('keeps the concurrency it sets, whatever the rate', async () => {
    expect(await load('{ requests_per_second: 20, concurrency: 4 }')).toEqual({ requestsPerSecond: 20, concurrency: 4 });
    expect(await load('{ requests_per_second: 1, concurrency: 32 }')).toEqual({ requestsPerSecond: 1, concurrency: 32 });
    expect(await load('{ concurrency: 1 }')).toEqual({ requestsPerSecond: 5, concurrency: 1 });
  });

  it('still refuses a concurrency below 1, where it is written', async () => {
    const dir = await repo();
    await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\nrate_limit:\n  concurrency: 0\ntargets:\n  - name: default\n');
    const { desired, diagnostics } = await loadRepository({ dir });
    expect(desired).toBeUndefined();
    expect(diagnostics.map((d) => [d.line, d.message])).toEqual([[3, expect.stringContaining('rate_limit.concurrency')]]);
  });
});

describe('createClient', () => {
  const client = (options: { requestsPerSecond?: number; concurrency?: number }): number =>
    createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k', dispatcher: new MockAgent(), ...options }).concurrency;

  it('sends as many requests at once as the rate needs when given no concurrency', () => {
    expect(client({})).toBe(4);
    expect(client({ requestsPerSecond: 20 })).toBe(8);
    expect(client({ requestsPerSecond: 1000 })).toBe(16);
  });

  it('keeps a concurrency it is given', () => {
    expect(client({ requestsPerSecond: 20, concurrency: 4 })).toBe(4);
    expect(client({ requestsPerSecond: 2, concurrency: 12 })).toBe(12);
  });
});

describe('the queue at the concurrency of the rate', () => {
  it.each([20, 40])('never sends more than %i requests in any second against a service that allows that many', async (rate) => {
    const clock = createVirtualClock();
    const emulator = await startEmulator({ port: 0, clock, seed: 7, rateLimit: rate });
    const client = createClient({ baseUrl: emulator.url, apiKey: 'k', clock, requestsPerSecond: rate });
    try {
      expect(client.concurrency).toBe(defaultConcurrency(rate));
      await Promise.all(Array.from({ length: 5 * rate }, () => client.listGlossaries()));
      const log = emulator.requests();
      expect(log.filter((e) => e.status === 429)).toEqual([]);
      expect(log).toHaveLength(5 * rate);
      // No window of one second holds more than `rate` arrivals.
      const times = log.map((e) => e.time);
      for (let i = rate; i < times.length; i++) expect((times[i] ?? 0) - (times[i - rate] ?? 0)).toBeGreaterThanOrEqual(1000);
    } finally {
      await client.close();
      await emulator.close();
    }
  });
});

describe('plan and apply with the concurrency of the rate', () => {
  const worlds: World[] = [];
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((w) => w.close()));
  });

  /** A plan and an apply of the basic fixture: their output, and every request the service saw (sorted: the order varies with concurrency). */
  const run = async (rateLimit: string): Promise<{ plan: string; apply: string; requests: string[] }> => {
    const world = await createWorld('basic');
    worlds.push(world);
    await world.write('config/termsync.yaml', `version: 1\nresources: [glossaries]\nrate_limit: ${rateLimit}\ntargets:\n  - name: default\n`);
    const plan = await world.cli(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    const apply = await world.cli(['apply']);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    const requests = world.emulator
      .requests()
      .map((r) => `${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`)
      .sort();
    return { plan: plan.stdout, apply: apply.stdout.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}').replace(/\d+(\.\d+)? ?m?s\b/g, 'T'), requests };
  };

  it('makes the same plan and the same requests as an explicit concurrency of 4', async () => {
    // 1000 requests/s: the default concurrency is 16, four times the explicit one.
    const following = await run('{ requests_per_second: 1000 }');
    const explicit = await run('{ requests_per_second: 1000, concurrency: 4 }');
    expect(following.plan).toBe(explicit.plan);
    expect(following.apply).toBe(explicit.apply);
    expect(following.requests).toEqual(explicit.requests);
    expect(following.requests.length).toBeGreaterThan(5);
  });
});
