import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { systemClock, type ClockTimer, type TimerClock } from '../lib/clock.js';
import { ENTRIES_EXTENSIONS } from '../formats/registry.js';
import type { Logger } from '../lib/logger.js';

/** Files a change of which can change what termsync does: resources, entries (every format's extension) and the config. */
const RELEVANT = new RegExp(`\\.(ya?ml|${ENTRIES_EXTENSIONS.map((e) => e.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`, 'i');
/** Editor swap and backup files, and files written next to the repository by termsync itself. */
const NOISE = /(^|[\\/])(\.git|node_modules)([\\/]|$)|(^|[\\/])(\.#[^\\/]*|#[^\\/]*#|4913|\.DS_Store|\.termsync\.lock[^\\/]*)$|(\.swp|\.swx|\.swo|~|\.tmp|\.bak)$/;

export interface FileWatcher {
  /** Watches exactly these paths (absolute): the resource folders and the config file. */
  setPaths(paths: readonly string[]): void;
  /** Files changed and not yet reported (the batch waiting for quiet). */
  pending(): number;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** The repository root the reported paths are relative to (its real path: the root may be a link). */
  readonly root: () => string;
  /** Quiet time after the last change before the batch is reported. */
  readonly debounceMs: number;
  /** A batch is reported at the latest this long after its first change, however busy the folder. */
  readonly maxWaitMs: number;
  /** chokidar's wait for a file's size to settle (a write in progress is not read half-done). */
  readonly writeFinishMs: number;
  readonly logger: Logger;
  /** Polling, for file systems without change events (some network and container mounts). */
  readonly usePolling?: boolean;
  /** Repository-relative paths (forward slashes) of the files that changed, once per batch. */
  readonly onChange: (files: readonly string[]) => void;
  /** The clock of the batching (default: the system clock); chokidar's own polling is real time. */
  readonly clock?: TimerClock;
}

/**
 * Watches the repository with chokidar and reports changed files in debounced batches: a burst of
 * writes (an editor saving, `git checkout`) becomes one batch.
 */
export function watchFiles(options: WatchOptions): FileWatcher {
  let watcher: FSWatcher | undefined;
  let watched: readonly string[] = [];
  const clock = options.clock ?? systemClock;
  let batch = new Set<string>();
  let quiet: ClockTimer | undefined;
  let deadline: ClockTimer | undefined;
  const flush = (): void => {
    quiet?.cancel();
    deadline?.cancel();
    quiet = undefined;
    deadline = undefined;
    if (batch.size === 0) return;
    const files = [...batch].sort();
    batch = new Set();
    options.onChange(files);
  };
  const onEvent = (file: string): void => {
    if (!RELEVANT.test(file) || NOISE.test(file)) return;
    const root = options.root();
    const rel = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
    // A file of a checkout the root no longer points at (a swapped link) is not the repository's.
    if (rel.startsWith('../')) return;
    batch.add(rel);
    quiet?.cancel();
    quiet = clock.setTimer(options.debounceMs, flush);
    deadline ??= clock.setTimer(options.maxWaitMs, flush);
  };
  const start = (paths: readonly string[]): void => {
    watcher = watch([...paths], {
      ignoreInitial: true,
      ignored: (p: string) => NOISE.test(p),
      awaitWriteFinish: { stabilityThreshold: options.writeFinishMs, pollInterval: Math.max(10, Math.floor(options.writeFinishMs / 4)) },
      ...(options.usePolling === true ? { usePolling: true, interval: 500 } : {}),
    });
    for (const event of ['add', 'change', 'unlink'] as const) watcher.on(event, onEvent);
    watcher.on('error', (error) => options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'file watcher error'));
  };
  return {
    setPaths: (paths) => {
      const next = [...paths].sort();
      if (next.length === watched.length && next.every((p, i) => p === watched[i])) return;
      watched = next;
      const old = watcher;
      start(next);
      if (old) void old.close();
    },
    pending: () => batch.size,
    close: async () => {
      quiet?.cancel();
      deadline?.cancel();
      await watcher?.close();
    },
  };
}
