import path from 'node:path';
import type { Stats } from 'node:fs';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import { systemClock, type ClockTimer, type TimerClock } from '../lib/clock.js';
import { ENTRIES_EXTENSIONS } from '../formats/registry.js';
import type { Logger } from '../lib/logger.js';

/** Files a change of which can change what termsync does: resources, entries (every format's extension) and the config. */
const RELEVANT = new RegExp(`\\.(ya?ml|${ENTRIES_EXTENSIONS.map((e) => e.slice(1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`, 'i');
/** Editor swap and backup files, and files written next to the repository by termsync itself. */
const NOISE = /(^|[\\/])(\.git|node_modules)([\\/]|$)|(^|[\\/])(\.#[^\\/]*|#[^\\/]*#|4913|\.DS_Store|\.termsync\.lock[^\\/]*)$|(\.swp|\.swx|\.swo|~|\.tmp|\.bak)$/;

/**
 * What a closed watcher watches, for good: `setPaths` starts no watcher again (a run that was loading
 * when the daemon stopped follows its config afterwards; a new watcher's handles would keep the
 * stopped daemon's process alive) and `reports` covers no file.
 */
const CLOSED: readonly string[] = [];

export interface FileWatcher {
  /** Watches exactly these paths (absolute): the resource folders and the config file. */
  setPaths(paths: readonly string[]): void;
  /** Files changed and not yet reported (the batch waiting for quiet). */
  pending(): number;
  /**
   * Which unbroken watch is on: a number that changes whenever a change may have gone unreported
   * (new paths, a watcher error), given once the watcher is ready (it has its paths in hand and
   * reports every change from then on); undefined while it is not. Two equal answers: every change
   * of a file `reports` covers between them was (or is about to be) reported. The catch-up watch
   * (WatchOptions.changedSince) counts as on from the start: its first scan reports what changed
   * since that time, as a watch on since then would have, so it answers from before it starts (and
   * while it scans) until something breaks it (a folder changed since that time, an error).
   */
  unbroken(): number | undefined;
  /** Whether a change of this repository-relative file (forward slashes) is reported: under a watched path, and not one ignored. */
  reports(file: string): boolean;
  /** Stops for good: `setPaths` starts nothing afterwards (a run that was loading when the daemon stopped follows its config after this). */
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
  /**
   * A time of the file system's clock (fileClockNow): the first watch also reports what its first
   * scan finds changed after this time (a file's or a folder's ctime or mtime), as if it had
   * been watching since. The daemon starts watching (unless polling) once its first load is done (a scan of
   * thousands of files beside the load slowed the load down), and passes the time it started: an
   * edit, a new file, a rename or a deletion made while the first load read the files is then not
   * lost. A folder that changed is reported as itself (the files it lost cannot be named).
   */
  readonly changedSince?: number;
}

/** When a file or folder last changed: its contents (mtime), or its name, links or mode (ctime: a rename moves no mtime). */
function changedAt(stats: Stats): number {
  return Math.max(stats.ctimeMs, stats.mtimeMs);
}

/**
 * Watches the repository with chokidar and reports changed files in debounced batches: a burst of
 * writes (an editor saving, `git checkout`) becomes one batch.
 */
export function watchFiles(options: WatchOptions): FileWatcher {
  let watcher: FSWatcher | undefined;
  let watched: readonly string[] = [];
  /** The current watch (see `unbroken`): counted up at each new watcher and each folder added or removed; `ready` once the current watcher is, until an error. */
  let watch = 0;
  let ready = false;
  /** The catch-up watch's number (the first watch's, with WatchOptions.changedSince) until something breaks it: `unbroken` answers it before that watch is ready. */
  let catchUpWatch = options.changedSince === undefined ? undefined : 1;
  /** The watched paths relative to the root (forward slashes), for `reports`: computed again when either changes. */
  let prefixes: { readonly root: string; readonly of: readonly string[]; readonly relative: readonly string[] } | undefined;
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
    add(file);
  };
  const add = (file: string): void => {
    const root = options.root();
    const rel = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
    // A file of a checkout the root no longer points at (a swapped link) is not the repository's.
    if (rel.startsWith('../')) return;
    batch.add(rel);
    quiet?.cancel();
    quiet = clock.setTimer(options.debounceMs, flush);
    deadline ??= clock.setTimer(options.maxWaitMs, flush);
  };
  /**
   * The first scan's finds changed since `since` (see WatchOptions.changedSince); later events as they come. A folder
   * the scan finds unchanged is no break of the watch; one changed since is, and so is one added or removed after.
   */
  const catchUp = (w: FSWatcher, since: number): void => {
    let scanning = true;
    w.on('ready', () => (scanning = false));
    w.on('add', (file, stats) => {
      if (!scanning || stats === undefined || changedAt(stats) > since) onEvent(file);
    });
    w.on('addDir', (dir, stats) => {
      if (scanning && stats !== undefined && changedAt(stats) <= since) return;
      if (watcher === w) watch++;
      if (scanning && !NOISE.test(dir)) add(dir);
    });
  };
  let since = options.changedSince;
  const start = (paths: readonly string[]): void => {
    const catchingUp = since;
    since = undefined;
    watch++;
    ready = false;
    const started = chokidarWatch([...paths], {
      ignoreInitial: catchingUp === undefined,
      ignored: (p: string) => NOISE.test(p),
      awaitWriteFinish: { stabilityThreshold: options.writeFinishMs, pollInterval: Math.max(10, Math.floor(options.writeFinishMs / 4)) },
      ...(options.usePolling === true ? { usePolling: true, interval: 500 } : {}),
    });
    watcher = started;
    // The first watch after start-up reports, from its scan, what changed since the daemon started.
    if (catchingUp === undefined) started.on('add', onEvent);
    else catchUp(started, catchingUp);
    for (const event of ['change', 'unlink'] as const) started.on(event, onEvent);
    started.on('ready', () => {
      if (watcher === started) ready = true;
    });
    // A folder added or removed as a whole: its files' events are reported one by one, but what a
    // load took as unchanged before is not vouched for across it (a folder the catch-up scan finds: see catchUp).
    const broken = (): void => {
      if (watcher === started) watch++;
    };
    if (catchingUp === undefined) started.on('addDir', broken);
    started.on('unlinkDir', broken);
    started.on('error', (error) => {
      // A change may have gone unreported (a path no longer watched): nothing is vouched for until new paths are watched.
      if (watcher === started) ready = false;
      catchUpWatch = undefined;
      options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'file watcher error');
    });
  };
  return {
    setPaths: (paths) => {
      const next = [...paths].sort();
      if (watched === CLOSED || (next.length === watched.length && next.every((p, i) => p === watched[i]))) return;
      watched = next;
      const old = watcher;
      start(next);
      if (old) void old.close();
    },
    pending: () => batch.size,
    unbroken: () => (ready ? watch : catchUpWatch !== undefined && watch <= catchUpWatch ? catchUpWatch : undefined),
    reports: (file) => {
      if (!RELEVANT.test(file) || NOISE.test(file) || file.startsWith('../')) return false;
      const root = options.root();
      if (prefixes === undefined || prefixes.root !== root || prefixes.of !== watched) {
        prefixes = { root, of: watched, relative: watched.map((p) => path.relative(root, p).split(path.sep).join('/')) };
      }
      return prefixes.relative.some((p) => p === '' || file === p || file.startsWith(`${p}/`));
    },
    close: async () => {
      watched = CLOSED;
      quiet?.cancel();
      deadline?.cancel();
      await watcher?.close();
    },
  };
}
