import { loadDesired, type LoadedRepository } from '../reconcile/load-desired.js';
import { fileClockNow, fileClockPast } from './file-clock.js';

/**
 * The daemon's first load, begun before the rest of the daemon is imported: the service client,
 * the HTTP server, the dashboard, the metrics and the file watcher (about 0.15 s of CPU) are then
 * loaded while the repository is read, where a second thread shares the load (parallel-load.ts).
 * This module imports the loader alone.
 */
export interface FirstLoad {
  /** The file clock when it began (fileClockNow): the watcher reports what changed since (WatchOptions.changedSince). */
  readonly startedAt: number;
  /** The load, with the daemon's options (the memo kept for the next one). */
  readonly loaded: Promise<LoadedRepository>;
  /** Stops the load (after the file in hand): the daemon did not start, or is stopping (`reason`). */
  cancel(reason?: Error): void;
}

/**
 * Begins the load the daemon's start-up run takes (DaemonOptions.firstLoad). Not with `--git-pull`:
 * that run pulls before it reads.
 */
export function beginFirstLoad(dir: string, configPath?: string): FirstLoad {
  const startedAt = fileClockNow();
  const stop = new AbortController();
  const loaded = (async () => {
    // Every file is read in a later tick of the file clock than `startedAt` (see fileClockPast).
    await fileClockPast(startedAt);
    return loadDesired(dir, configPath, stop.signal, { remember: true });
  })();
  // Awaited by the start-up run; a daemon that failed to start cancels it and never awaits it.
  loaded.catch(() => undefined);
  return { startedAt, loaded, cancel: (reason) => stop.abort(reason ?? new Error('the daemon did not start')) };
}
