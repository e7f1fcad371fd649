import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDaemonMetrics } from '../../src/daemon/daemon-metrics.js';
import type { Ticker } from '../../src/daemon/schedule.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon/start-daemon.js';
import { watchFiles, type FileWatcher } from '../../src/daemon/watch-files.js';
import { silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { until } from '../helpers/until.js';

/*
 * The daemon on a fake clock. Its timers (retry back-off, git pulls, root checks, the watcher's
 * batching) fire only when a test moves the clock, and its schedule only when a test ticks it, so
 * a test causes each run itself and then waits for that run to end: no sleeps, no waiting for
 * something not to happen. Real time passes only for real I/O: the service (an in-process
 * emulator), git, and the file system's change events. A test edits a watched file with one
 * append or a synchronous write (writeFileSync): the watcher runs in the test's process, so it
 * never sees the file truncated and not yet written, however long the machine stalls between
 * the two (an awaited writeFile yields to the event loop in between).
 */

export const DEBOUNCE_MS = 100;

/** The example repository (its config and glossaries) copied into `dest`, at 200 requests/s. */
export async function copyExample(dest: string): Promise<void> {
  await mkdir(dest, { recursive: true });
  await cp(join(PROJECT_ROOT, 'config'), join(dest, 'config'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'glossaries'), join(dest, 'glossaries'), { recursive: true });
  const config = join(dest, 'config/termsync.yaml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('requests_per_second: 5', 'requests_per_second: 200'));
}

/** git in `cwd`, with an author and a committer (the tests' commits). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
}

/** The files of `work` committed on main and pushed to a new bare remote in `dir`; and a clone of it on main, what the daemon reads with --git-pull. */
export function pushToBareRemote(dir: string, work: string): { remote: string; clone: string } {
  const remote = join(dir, 'remote.git');
  const clone = join(dir, 'clone');
  git(dir, 'init', '--quiet', '--bare', '-b', 'main', remote);
  git(work, 'init', '--quiet', '-b', 'main');
  git(work, 'add', '.');
  git(work, 'commit', '--quiet', '-m', 'terms');
  git(work, 'remote', 'add', 'origin', remote);
  git(work, 'push', '--quiet', 'origin', 'main');
  git(dir, 'clone', '--quiet', '-b', 'main', remote, clone);
  return { remote, clone };
}
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
