import PQueue from 'p-queue';
import type { TimerClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState } from '../model/desired.js';
import type { ReconcileMode } from '../reconcile/index.js';
import type { DaemonStatus } from './daemon-status.js';
import type { RunEnd } from './run-end.js';
import { owns, type Shard } from './shard.js';
import type { LoadedDesired, TargetWork } from './target-run.js';
import { mergeRequests, requestFor } from './triggers.js';
import { createWorkQueue, exponentialBackoff, type WorkQueue } from './work-queue.js';

/** Targets reconciled at once when neither `--parallel-targets` nor the config's `parallel_targets` says. */
export const DEFAULT_PARALLEL_TARGETS = 8;

/** Two requests for one target as one run: the request covers both; whether it may write is the latest full request's say. */
export function mergeWork(queued: TargetWork, added: TargetWork): TargetWork {
  return { request: mergeRequests(queued.request, added.request), mode: added.request.full || !queued.request.full ? added.mode : queued.mode };
}

/** The targets of `desired` this daemon reconciles: its `--target` (or all), those of its shard. */
export function ownedTargets(desired: DesiredState, target: string | undefined, shard: Shard | undefined): string[] {
  return desired.config.targets.map((t) => t.name).filter((name) => (target === undefined || name === target) && owns(shard, name));
}

export interface TargetRunsOptions {
  readonly clock: TimerClock;
  readonly status: DaemonStatus;
  readonly logger: Logger;
  /** The daemon's `--target`. */
  readonly target?: string;
  readonly shard?: Shard;
  /** `--parallel-targets`: overrides the config's `parallel_targets`. */
  readonly parallel?: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** What a retry may do: write (apply) or only plan (`--on-drift report`). */
  readonly retryMode: ReconcileMode;
  /** One run of one target (target-run.ts). */
  readonly run: (target: string, work: TargetWork, loaded: LoadedDesired) => Promise<void>;
  /** A run that threw (a bug): logged and counted by the caller; it is retried like a failed run. */
  readonly crashed: (target: string, work: TargetWork, error: unknown) => void;
}

/** The targets' side of the daemon: a work queue keyed by target, worked by a pool of parallel runs. */
export interface TargetRuns {
  /** The repository was loaded: every target this daemon owns runs `request` (coalesced with what waits for it). */
  fanOut(request: TargetWork['request'], loaded: LoadedDesired, mode: ReconcileMode): void;
  /** The repository has errors now: runs that start meanwhile do nothing. */
  invalidate(): void;
  /** How the target's run ended: a failure comes back after the target's own back-off, a success resets it. */
  ended(target: string, end: RunEnd): void;
  /** When the next retry of any target falls due. */
  nextRetry(): number | undefined;
  /** Target runs waiting for a slot of the pool. */
  queued(): number;
  /** Resolves when no target run is queued or running. */
  idle(): Promise<void>;
  shutDown(): void;
  /** Resolves once every run in progress has finished (after `shutDown`). */
  drained(): Promise<void>;
}

/**
 * Runs of different targets go side by side, at most `parallel_targets` at once; each target is
 * its own key of the work queue, so it has its own coalescing and its own back-off (a failing target
 * retries on its own schedule and holds up none of the others), and each run opens a client of its
 * own for the target (its own key, rate limit and request queue).
 */
export function createTargetRuns(options: TargetRunsOptions): TargetRuns {
  const { clock, status, logger: log } = options;
  const queue: WorkQueue<string, TargetWork> = createWorkQueue({ clock, merge: mergeWork, rateLimiter: exponentialBackoff(options.retryBaseMs, options.retryMaxMs) });
  const pool = new PQueue({ concurrency: options.parallel ?? DEFAULT_PARALLEL_TARGETS });
  let latest: LoadedDesired | undefined;
  status.targets.followRetries((target) => ({ at: queue.waitingUntil(target), failures: queue.failures(target) }));

  const retry = (target: string): void => {
    const at = queue.addRateLimited(target, { request: requestFor('retry'), mode: options.retryMode });
    if (at === undefined) return;
    status.changed();
    log.warn({ target, retryInMs: at - clock.now(), failures: queue.failures(target) }, 'reconcile of the target failed; retrying it with back-off');
  };

  const work = async (target: string, item: TargetWork): Promise<void> => {
    const loaded = latest;
    // The repository has errors now, or no longer declares the target here: wait for the next load.
    if (queue.shuttingDown || loaded === undefined || !ownedTargets(loaded.desired, options.target, options.shard).includes(target)) return;
    try {
      await options.run(target, item, loaded);
    } catch (error) {
      options.crashed(target, item, error);
      retry(target);
    }
  };

  // One item at most waits for a free slot of the pool: the others stay in the work queue, where
  // later triggers of their target fold into them.
  const dispatch = async (): Promise<void> => {
    for (;;) {
      await pool.onSizeLessThan(1);
      const item = await queue.get();
      if (item === undefined) return;
      void pool.add(async () => {
        try {
          await work(item.key, item.request);
        } finally {
          queue.done(item.key);
        }
      });
    }
  };
  const dispatching = dispatch();

  return {
    fanOut: (request, loaded, mode) => {
      latest = loaded;
      const owned = ownedTargets(loaded.desired, options.target, options.shard);
      if (options.parallel === undefined) pool.concurrency = loaded.desired.config.parallelTargets ?? DEFAULT_PARALLEL_TARGETS;
      status.targets.own(owned, loaded.desired.config.targets.length);
      for (const target of owned) queue.add(target, { request, mode });
    },
    invalidate: () => {
      latest = undefined;
    },
    ended: (target, end) => {
      if (end === 'failed') retry(target);
      else if (end === 'succeeded') queue.forget(target);
    },
    nextRetry: () => {
      const times = status.targets.owned.map((t) => queue.waitingUntil(t)).filter((at): at is number => at !== undefined);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    queued: () => queue.length() + pool.size,
    idle: () => queue.idle(),
    shutDown: () => queue.shutDown(),
    drained: async () => {
      await dispatching;
      await pool.onIdle();
    },
  };
}
