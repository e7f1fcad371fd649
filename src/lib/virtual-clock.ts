import type { Clock } from './clock.js';

/**
 * A clock whose time moves only when someone sleeps on it: `sleep(ms)` registers a wake-up and the
 * clock jumps straight to the earliest pending wake-up, so tests of back-off and Retry-After run in
 * microseconds of real time. Inject the same instance into the client and the emulator (`now()`)
 * and both see one timeline.
 *
 * Real I/O (an HTTP exchange with an in-process emulator) can be wrapped in `track()`: while any
 * tracked work is pending the clock does not advance, so a request takes zero virtual time and
 * timestamps on both sides are deterministic.
 */
export interface VirtualClock extends Clock {
  /** Moves time forward by hand (wakes every sleeper that becomes due). */
  advance(ms: number): void;
  /** Holds the clock still until `work` settles. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Sleepers not yet woken. */
  pendingSleeps(): number;
}

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly wake: () => void;
}

export function createVirtualClock(options: { start?: number } = {}): VirtualClock {
  let now = options.start ?? Date.UTC(2026, 0, 1);
  let seq = 0;
  let busy = 0;
  let pumpScheduled = false;
  const sleepers: Sleeper[] = [];

  const insert = (s: Sleeper): void => {
    // Sorted by wake time, then by arrival: equal wake-ups resolve in the order they were asked for.
    let i = sleepers.length;
    while (i > 0) {
      const prev = sleepers[i - 1];
      if (prev === undefined || prev.at < s.at || (prev.at === s.at && prev.seq < s.seq)) break;
      i -= 1;
    }
    sleepers.splice(i, 0, s);
  };

  // One wake-up per macrotask: the woken task runs its microtasks (and starts tracked I/O) before
  // the clock may move again.
  const schedulePump = (): void => {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(pump);
  };

  function pump(): void {
    pumpScheduled = false;
    if (busy > 0) return;
    const next = sleepers.shift();
    if (next === undefined) return;
    if (next.at > now) now = next.at;
    next.wake();
    if (sleepers.length > 0) schedulePump();
  }

  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason as Error);
          return;
        }
        const entry: Sleeper = {
          at: now + Math.max(0, ms),
          seq: seq++,
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        function onAbort(): void {
          const i = sleepers.indexOf(entry);
          if (i >= 0) sleepers.splice(i, 1);
          reject(signal?.reason as Error);
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        insert(entry);
        schedulePump();
      });
    },
    advance(ms) {
      now += Math.max(0, ms);
      while (sleepers.length > 0 && (sleepers[0]?.at ?? Infinity) <= now) sleepers.shift()?.wake();
    },
    async track<T>(work: Promise<T>): Promise<T> {
      busy += 1;
      try {
        return await work;
      } finally {
        busy -= 1;
        if (busy === 0 && sleepers.length > 0) schedulePump();
      }
    },
    pendingSleeps: () => sleepers.length,
  };
}
