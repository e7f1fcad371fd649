import type { ClockTimer, TimerClock } from '../lib/clock.js';
import { InputError } from '../lib/errors.js';

/*
 * The daemon's work queue, after client-go's `util/workqueue`: triggers add a key (a target, or
 * every target), never a diff; a key added while it is queued coalesces with it; a key is handed to
 * one worker at a time, and added again while it runs it is queued once more for when that run is
 * done; a failed key comes back after a per-key back-off. Time is the injected clock's, so tests
 * move it by hand.
 *
 * Unlike client-go, each key carries a request (what the next run must cover: how much to read
 * again); adds of one key fold their requests into one with `merge`.
 */

/** How long a key waits before it is tried again, per key. */
export interface RateLimiter<K> {
  /** The wait before the key's next try, counting one more failure. */
  when(key: K): number;
  /** The key succeeded: its next failure waits the first delay again. */
  forget(key: K): void;
  /** Failures in a row since the key last succeeded. */
  failures(key: K): number;
}

/** `baseMs` after the first failure, doubling with each further one, at most `maxMs`. */
export function exponentialBackoff<K>(baseMs: number, maxMs: number): RateLimiter<K> {
  if (!(baseMs > 0) || !(maxMs >= baseMs)) throw new InputError('invalid_backoff', `expected 0 < base <= max back-off, got base ${baseMs} ms and max ${maxMs} ms`);
  const failures = new Map<K, number>();
  return {
    when: (key) => {
      const n = (failures.get(key) ?? 0) + 1;
      failures.set(key, n);
      return Math.min(maxMs, baseMs * 2 ** (n - 1));
    },
    forget: (key) => void failures.delete(key),
    failures: (key) => failures.get(key) ?? 0,
  };
}

export interface WorkItem<K, R> {
  readonly key: K;
  readonly request: R;
}

export interface WorkQueueOptions<K, R> {
  readonly clock: TimerClock;
  /** Folds a request added for a key into the one already waiting for it. */
  readonly merge: (queued: R, added: R) => R;
  readonly rateLimiter: RateLimiter<K>;
}

export interface WorkQueue<K, R> {
  /** Queues the key, or folds the request into the one queued for it. Ignored once shut down. */
  add(key: K, request: R): void;
  /**
   * Adds the key `ms` from now; returns when (undefined once shut down). One delayed add per key: a
   * later one replaces it (its request folded in), so the key's latest wait is the one that counts.
   */
  addAfter(key: K, request: R, ms: number): number | undefined;
  /** `addAfter` with the rate limiter's wait for the key: a failed key's retry. */
  addRateLimited(key: K, request: R): number | undefined;
  /** The key succeeded: its back-off starts over, and a rate-limited add still waiting for it is dropped. */
  forget(key: K): void;
  /** Failures in a row the rate limiter counts for the key. */
  failures(key: K): number;
  /** When a delayed add of the key falls due (undefined: none waits). */
  waitingUntil(key: K): number | undefined;
  /**
   * The next key to work on, its request taken out of the queue; it stays the caller's until
   * `done(key)`. Waits while nothing is queued; undefined once shut down.
   */
  get(): Promise<WorkItem<K, R> | undefined>;
  /** The work on the key is finished: if it was added again meanwhile, it is queued once more. */
  done(key: K): void;
  /** Keys queued (not counting those being worked on or waiting for a delayed add). */
  length(): number;
  /** Resolves when nothing is queued and nothing is being worked on (delayed adds not counted). */
  idle(): Promise<void>;
  /** Takes no more adds; drops what is queued and every delayed add; `get` answers undefined. */
  shutDown(): void;
  readonly shuttingDown: boolean;
}

interface Waiting<R> {
  readonly at: number;
  readonly request: R;
  readonly timer: ClockTimer;
  readonly rateLimited: boolean;
}

export function createWorkQueue<K, R>(options: WorkQueueOptions<K, R>): WorkQueue<K, R> {
  const { clock, merge, rateLimiter } = options;
  /** Keys ready for a worker, in order. */
  const ready: K[] = [];
  /** The request of every key added and not yet handed out (queued, or added again while worked on). */
  const requests = new Map<K, R>();
  const processing = new Set<K>();
  const waiting = new Map<K, Waiting<R>>();
  const getters: ((item: WorkItem<K, R> | undefined) => void)[] = [];
  let idlers: (() => void)[] = [];
  let shuttingDown = false;

  const settleIdle = (): void => {
    if (ready.length > 0 || processing.size > 0) return;
    const waiters = idlers;
    idlers = [];
    for (const resolve of waiters) resolve();
  };

  /** Hands the first ready key to a waiting worker, if there is one of each. */
  const handOut = (): void => {
    while (getters.length > 0 && ready.length > 0) {
      const item = take();
      getters.shift()?.(item);
    }
  };

  const take = (): WorkItem<K, R> => {
    const key = ready.shift() as K;
    const request = requests.get(key) as R;
    requests.delete(key);
    processing.add(key);
    return { key, request };
  };

  const add = (key: K, request: R): void => {
    if (shuttingDown) return;
    const queued = requests.get(key);
    requests.set(key, queued === undefined ? request : merge(queued, request));
    // Already queued, or being worked on (then `done` queues it again): the request folded in is enough.
    if (queued !== undefined || processing.has(key)) return;
    ready.push(key);
    handOut();
  };

  const addAfter = (key: K, request: R, ms: number, rateLimited = false): number | undefined => {
    if (shuttingDown) return undefined;
    const before = waiting.get(key);
    before?.timer.cancel();
    const folded = before === undefined ? request : merge(before.request, request);
    const at = clock.now() + Math.max(0, ms);
    const timer = clock.setTimer(ms, () => {
      if (waiting.get(key)?.timer !== timer) return;
      waiting.delete(key);
      add(key, folded);
    });
    waiting.set(key, { at, request: folded, timer, rateLimited });
    return at;
  };

  return {
    add,
    addAfter: (key, request, ms) => addAfter(key, request, ms),
    addRateLimited: (key, request) => (shuttingDown ? undefined : addAfter(key, request, rateLimiter.when(key), true)),
    forget: (key) => {
      rateLimiter.forget(key);
      const entry = waiting.get(key);
      if (entry?.rateLimited === true) {
        entry.timer.cancel();
        waiting.delete(key);
      }
    },
    failures: (key) => rateLimiter.failures(key),
    waitingUntil: (key) => waiting.get(key)?.at,
    get: () => {
      if (ready.length > 0) return Promise.resolve(take());
      if (shuttingDown) return Promise.resolve(undefined);
      return new Promise((resolve) => getters.push(resolve));
    },
    done: (key) => {
      processing.delete(key);
      if (!shuttingDown && requests.has(key)) {
        ready.push(key);
        handOut();
      }
      settleIdle();
    },
    length: () => ready.length,
    idle: () =>
      new Promise<void>((resolve) => {
        idlers.push(resolve);
        settleIdle();
      }),
    shutDown: () => {
      shuttingDown = true;
      ready.length = 0;
      requests.clear();
      for (const entry of waiting.values()) entry.timer.cancel();
      waiting.clear();
      for (const resolve of getters.splice(0)) resolve(undefined);
      settleIdle();
    },
    get shuttingDown() {
      return shuttingDown;
    },
  };
}

/**
 * Works the queue with `workers` loops (never two on one key): each takes a key, runs `handle`, and
 * marks it done. Resolves once the queue is shut down and every loop has finished its key.
 * `handle` reports its own failures; one it throws is passed to `crashed` and the loop goes on.
 */
export async function processQueue<K, R>(
  queue: WorkQueue<K, R>,
  handle: (item: WorkItem<K, R>) => Promise<void>,
  options: { readonly workers: number; readonly crashed: (item: WorkItem<K, R>, error: unknown) => void },
): Promise<void> {
  const loop = async (): Promise<void> => {
    for (let item = await queue.get(); item !== undefined; item = await queue.get()) {
      try {
        await handle(item);
      } catch (error) {
        options.crashed(item, error);
      } finally {
        queue.done(item.key);
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, loop));
}
