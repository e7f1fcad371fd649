import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../src/daemon/daemon-metrics.js';
import { startDaemon, type Daemon } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { TimerClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import type { Emulator } from '../e2e/harness.js';
import { whenStatus } from './daemon-harness.js';

/*
 * What an idle daemon of many targets keeps armed on its clock: the repository root's check and the
 * schedule's sleep until its next match, however many targets (bench/daemon-idle.js measures the
 * CPU; this says which timers there are). The schedule is the default one (sleeping on the daemon's
 * clock), not a test's ticker.
 */

const TARGETS = Array.from({ length: 200 }, (_, i) => `t${String(i).padStart(3, '0')}`);
const HOUR = 3_600_000;

let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-idle-timers-'));
  await mkdir(join(dir, 'config'));
  await mkdir(join(dir, 'glossaries'));
  await writeFile(
    join(dir, 'config/termsync.yaml'),
    'version: 1\nresources: [glossaries]\nprune: "off"\nrate_limit: { requests_per_second: 1000, concurrency: 8 }\nschedule: "17 3 * * *"\nparallel_targets: 50\ntargets:\n' +
      TARGETS.map((t) => `  - name: ${t}\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_KEY_${t.toUpperCase()}\n`).join(''),
  );
  await writeFile(join(dir, 'glossaries/shop.yaml'), 'kind: glossary\nname: Shop\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: shop.en-de.tsv\n');
  await writeFile(join(dir, 'glossaries/shop.en-de.tsv'), 'cart\tWarenkorb\ncheckout\tKasse\n');
  emulator = await startEmulator({ port: 0 });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every target's last run, once each has one and none is running; undefined before. */
const allEnded = (d: Daemon): string[] | undefined => {
  const results: string[] = [];
  for (const t of TARGETS) {
    const report = d.status.targets.report(t);
    if (report.running !== null || report.last === null) return undefined;
    results.push(`${report.last.trigger}:${report.last.result}`);
  }
  return results;
};

describe('an idle daemon of 200 targets', () => {
  it('keeps two timers armed (the root check, the sleep until the schedule matches); between matches only the root check fires', { timeout: 120_000 }, async () => {
    const clock = createVirtualClock({ manual: true });
    // The daemon's clock, counting the timers it arms and those that fire.
    let fired = 0;
    const counted: TimerClock = {
      now: () => clock.now(),
      sleep: (ms, signal) => clock.sleep(ms, signal),
      setTimer: (ms, fn, options) =>
        clock.setTimer(
          ms,
          () => {
            fired += 1;
            fn();
          },
          options,
        ),
    };
    const env = { TERMSYNC_BASE_URL: emulator.url, ...Object.fromEntries(TARGETS.map((t) => [`TERMSYNC_KEY_${t.toUpperCase()}`, `key-of-${t}`])) };
    daemon = await startDaemon({ dir, env, logger: silentLogger, metrics: createDaemonMetrics({ defaultMetrics: false }), clock: counted, rootCheckMs: HOUR, stopGraceMs: 5000 });
    const d = daemon;
    const first = await whenStatus(d, 'the first run of every target', () => allEnded(d), 90_000);
    expect(new Set(first)).toEqual(new Set(['startup:changed']));

    // Idle: two timers, not one per target (a back-off, a rate limit, a health check each would add 200).
    expect(clock.pendingSleeps()).toBe(2);
    const next = Date.parse(d.status.nextScheduledAt ?? '');
    expect(next).toBeGreaterThan(clock.now());
    // Up to a millisecond before the schedule's match: only the hourly root checks fire, and no run starts.
    const span = next - 1 - clock.now();
    fired = 0;
    clock.advance(span);
    expect(fired).toBe(Math.floor(span / HOUR));
    expect(clock.pendingSleeps()).toBe(2);
    expect(allEnded(d)).toEqual(first);

    // The match: one full reconcile of every target, then the same two timers again.
    clock.advance(1);
    await whenStatus(d, 'the scheduled run of every target', () => allEnded(d)?.every((r) => r === 'schedule:converged'), 90_000);
    expect(clock.pendingSleeps()).toBe(2);
  });
});
