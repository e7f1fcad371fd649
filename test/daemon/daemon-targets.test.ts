import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../e2e/harness.js';
import { until } from '../helpers/until.js';
import { RETRY_BASE_MS, startTestDaemon, whenStatus } from './daemon-harness.js';

/*
 * Targets side by side in one daemon: one whose service never answers and one whose service fails
 * do not hold up the others, and the failing one backs off on its own.
 */

let dir: string;
let healthy: Emulator;
let failing: Emulator;
let stall: { server: Server; held: ServerResponse[]; url: string };
let daemon: Daemon | undefined;

const TARGETS = ['stalled', 'failing', 'a', 'b'];

async function writeRepo(parallel: number): Promise<void> {
  await mkdir(join(dir, 'config'), { recursive: true });
  await mkdir(join(dir, 'glossaries'), { recursive: true });
  await writeFile(
    join(dir, 'config/termsync.yaml'),
    `version: 1\nrate_limit: { requests_per_second: 200 }\nschedule: "*/15 * * * *"\nparallel_targets: ${parallel}\ntargets:\n` +
      TARGETS.map((t) => `  - name: ${t}\n    base_url_env: TERMSYNC_URL_${t.toUpperCase()}\n    api_key_env: TERMSYNC_KEY_${t.toUpperCase()}\n`).join(''),
  );
  await writeFile(join(dir, 'glossaries/shop.yaml'), 'kind: glossary\nname: Shop\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: shop.en-de.tsv\n');
  await writeFile(join(dir, 'glossaries/shop.en-de.tsv'), 'cart\tWarenkorb\ncheckout\tKasse\n');
}

function env(): Record<string, string> {
  return {
    TERMSYNC_URL_STALLED: stall.url,
    TERMSYNC_URL_FAILING: failing.url,
    TERMSYNC_URL_A: healthy.url,
    TERMSYNC_URL_B: healthy.url,
    ...Object.fromEntries(TARGETS.map((t) => [`TERMSYNC_KEY_${t.toUpperCase()}`, `key-of-${t}`])),
    TERMSYNC_MAX_ATTEMPTS: '1',
  };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-daemon-targets-'));
  healthy = await startEmulator({ port: 0 });
  failing = await startEmulator({ port: 0, faults: '503=1' });
  const held: ServerResponse[] = [];
  // A service that takes every request and never answers it.
  const server = createServer((_req, res) => void held.push(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stall = { server, held, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
});

afterEach(async () => {
  // Let the stalled run end (its service answers at last) so that the stop does not wait for it.
  for (const res of stall.held.splice(0)) res.writeHead(503).end();
  await daemon?.stop();
  daemon = undefined;
  stall.server.closeAllConnections();
  await new Promise((resolve) => stall.server.close(resolve));
  await healthy.close();
  await failing.close();
  await rm(dir, { recursive: true, force: true });
});

const last = (d: Daemon, target: string): { trigger: string; result: string } | undefined => d.status.targets.report(target).last ?? undefined;

describe('targets side by side in one daemon', () => {
  it('converges the healthy targets while one stalls and one fails; the failing one backs off alone', async () => {
    await writeRepo(4);
    const t = await startTestDaemon({ dir, env: env() });
    daemon = t.daemon;
    const d = t.daemon;

    await whenStatus(d, 'a and b converged, failing failed', () => last(d, 'a')?.result === 'changed' && last(d, 'b')?.result === 'changed' && last(d, 'failing')?.result === 'unreachable');
    // The stalled service holds a request (real I/O: polled).
    await until('the stalled service to hold a request', () => stall.held.length > 0);
    expect(d.status.targets.report('stalled').running).not.toBeNull();
    expect(d.status.targets.report('stalled').last).toBeNull();
    // Each target has its own back-off: only the failing one waits for a retry.
    const failedAt = t.clock.now();
    expect(d.status.targets.report('failing')).toMatchObject({ failures: 1, nextRetryAt: new Date(failedAt + RETRY_BASE_MS).toISOString() });
    for (const ok of ['a', 'b']) expect(d.status.targets.report(ok)).toMatchObject({ failures: 0, nextRetryAt: null });
    expect(d.status.readiness()).toMatchObject({ ready: false, reason: 'the last reconcile of target "failing" ended unreachable' });
    const json = JSON.parse(JSON.stringify(d.status)) as { targets: Record<string, unknown>; shard: unknown };
    expect(Object.keys(json.targets)).toEqual(TARGETS);
    expect(json.shard).toBeNull();

    // The failing target's back-off passes: it alone runs again (and fails again: the wait doubles).
    const healthyRequests = healthy.requests().length;
    t.clock.advance(RETRY_BASE_MS);
    await whenStatus(d, 'the retry of the failing target', () => last(d, 'failing')?.trigger === 'retry' && d.status.targets.report('failing').running === null);
    expect(d.status.targets.report('failing')).toMatchObject({ failures: 2, nextRetryAt: new Date(t.clock.now() + 2 * RETRY_BASE_MS).toISOString() });
    expect(healthy.requests().length).toBe(healthyRequests);
    expect(last(d, 'a')?.trigger).toBe('startup');

    // The failing service recovers; a scheduled run while the stalled target still hangs: the others
    // run it and finish, the failing one converges and its back-off starts over.
    failing.setFaults('');
    t.tick();
    await whenStatus(d, 'a and b ran the schedule', () => last(d, 'a')?.trigger === 'schedule' && last(d, 'b')?.trigger === 'schedule');
    expect([last(d, 'a')?.result, last(d, 'b')?.result]).toEqual(['converged', 'converged']);
    expect(d.status.targets.report('stalled').running).not.toBeNull();

    await whenStatus(d, 'the schedule reached the failing target', () => d.status.targets.report('failing').running === null && last(d, 'failing')?.trigger === 'schedule');
    expect(d.status.targets.report('failing')).toMatchObject({ failures: 0, nextRetryAt: null });
    expect(last(d, 'failing')?.result).toBe('changed');

    // The stalled service answers at last (503): that target fails and backs off on its own too.
    for (const res of stall.held.splice(0)) res.writeHead(503).end();
    await whenStatus(d, 'the stalled target to end', () => last(d, 'stalled')?.result === 'unreachable');
    expect(d.status.targets.report('stalled').failures).toBe(1);
    expect(d.status.targets.report('a').failures).toBe(0);
  });

  it('runs at most parallel_targets at once', async () => {
    await writeRepo(1);
    const t = await startTestDaemon({ dir, env: env() });
    daemon = t.daemon;
    const d = t.daemon;
    // One at a time, in the config's order: the stalled target holds the only slot.
    await until('the stalled service to hold a request', () => stall.held.length > 0);
    expect(TARGETS.slice(1).map((name) => d.status.targets.report(name).running)).toEqual([null, null, null]);
    expect(healthy.requests()).toEqual([]);
    for (const res of stall.held.splice(0)) res.writeHead(503).end();
    await whenStatus(d, 'every target ran', () => TARGETS.every((name) => last(d, name) !== undefined && d.status.targets.report(name).running === null));
    expect(TARGETS.map((name) => last(d, name)?.result)).toEqual(['unreachable', 'unreachable', 'changed', 'changed']);
  });
});
