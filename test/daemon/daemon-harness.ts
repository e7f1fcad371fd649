import { createDaemonMetrics } from '../../src/daemon/daemon-metrics.js';
import type { Ticker } from '../../src/daemon/schedule.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon/start-daemon.js';
import { watchFiles, type FileWatcher } from '../../src/daemon/watch-files.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';
import { until } from '../helpers/until.js';

/*
 * The daemon on a fake clock. Its timers (retry back-off, git pulls, root checks, the watcher's
 * batching) fire only when a test moves the clock, and its schedule only when a test ticks it, so
 * a test causes each run itself and then waits for that run to end: no sleeps, no waiting for
 * something not to happen. Real time passes only for real I/O: the service (an in-process
 * emulator), git, and the file system's change events.
 */

export const DEBOUNCE_MS = 100;
export const RETRY_BASE_MS = 200;

export interface TestDaemon {
  readonly daemon: Daemon;
  readonly clock: VirtualClock;
  /** The cron expressions the schedule was started with, in order. */
  readonly schedules: readonly string[];
  /** A scheduled full reconcile, as the cron expression's next match would start it. */
  tick(): void;
  /** After a file edit: waits for the watcher to report it, then lets its batch go (the debounce). */
  edited(): Promise<void>;
}

/** Resolves once `probe` holds for the daemon's status, checked now and at each change of it. */
export function whenStatus<T>(d: Daemon, what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = (): boolean => {
      const value = probe();
      if (value === undefined || value === false) return false;
      unsubscribe();
      clearTimeout(timer);
      resolve(value);
      return true;
    };
    const unsubscribe = d.status.subscribe(() => void check());
    // A bound on real time, so that a daemon that never gets there fails the test instead of hanging it.
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    check();
  });
}

/** The run that follows the `count` runs already recorded, once it has finished. */
export function nextRun(d: Daemon, count: number): Promise<NonNullable<Daemon['status']['runs'][number]>> {
  return whenStatus(d, 'a reconcile run', () => (d.status.runs.length > count && d.status.running === undefined ? d.status.runs[0] : undefined));
}

export async function startTestDaemon(options: Partial<DaemonOptions> & Pick<DaemonOptions, 'dir' | 'env'>): Promise<TestDaemon> {
  const clock = createVirtualClock({ manual: true });
  const schedules: string[] = [];
  let tick: (() => void) | undefined;
  const ticker: Ticker = (expression, fire) => {
    schedules.push(expression);
    tick = fire;
    return { stop: () => (tick = tick === fire ? undefined : tick) };
  };
  let watcher: FileWatcher | undefined;
  const daemon = await startDaemon({
    logger: silentLogger,
    debounceMs: DEBOUNCE_MS,
    stopGraceMs: 5000,
    retryBaseMs: RETRY_BASE_MS,
    metrics: createDaemonMetrics({ defaultMetrics: false }),
    clock,
    ticker,
    watch: (o) => (watcher = watchFiles(o)),
    ...options,
  });
  return {
    daemon,
    clock,
    schedules,
    tick: () => {
      if (tick === undefined) throw new Error('no schedule is running');
      tick();
    },
    edited: async () => {
      await until('the watcher to report the edit', () => (watcher?.pending() ?? 0) > 0);
      clock.advance(DEBOUNCE_MS);
    },
  };
}
