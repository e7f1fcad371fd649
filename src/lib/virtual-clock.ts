import type { ClockTimer, TimerClock, TrackingClock } from './clock.js';

/**
 * A clock whose time moves only when someone sleeps on it: `sleep(ms)` registers a wake-up and the
 * clock jumps straight to the earliest pending wake-up, so tests of back-off and Retry-After run in
 * microseconds of real time. Inject the same instance into the client and the emulator (`now()`)
 * and both see one timeline.
 *
 * Real I/O (an HTTP exchange with an in-process emulator) can be wrapped in `track()`: while any
 * tracked work is pending the clock does not advance, so a request takes zero virtual time and
 * timestamps on both sides are deterministic.
 *
 * `manual: true`: time moves only by `advance()`. For code that keeps timers armed all the time (the
 * daemon's periodic checks, its retry back-off): a clock that jumped to each wake-up by itself would
 * run them back to back; a test moves it past exactly the wake-ups it means to cause.
 */
export interface VirtualClock extends TrackingClock, TimerClock {
  /**
   * Moves time forward by hand: every sleeper and timer that falls due wakes, in time order, with
   * the clock at its wake-up time (a timer armed by one of them fires too if it is due by then).
   */
  advance(ms: number): void;
  /** Holds the clock still until `work` settles. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Sleepers and timers not yet woken. */
  pendingSleeps(): number;
  /** When the earliest sleeper or timer wakes (undefined: none). */
  nextWakeAt(): number | undefined;
}

export interface VirtualClockOptions {
  readonly start?: number;
  /** Time moves only by `advance()` (default: it also jumps to the earliest wake-up by itself). */
  readonly manual?: boolean;
}

interface Sleeper {
  readonly at: number;
  readonly seq: number;
  readonly wake: () => void;
}

export function createVirtualClock(options: VirtualClockOptions = {}): VirtualClock {
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

  const remove = (s: Sleeper): void => {
    const i = sleepers.indexOf(s);
    if (i >= 0) sleepers.splice(i, 1);
  };

  // One wake-up per macrotask: the woken task runs its microtasks (and starts tracked I/O) before
  // the clock may move again.
  const schedulePump = (): void => {
    if (pumpScheduled || options.manual === true) return;
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

  const setTimer = (ms: number, fn: () => void): ClockTimer => {
    let fired = false;
    const entry: Sleeper = {
      at: now + Math.max(0, ms),
      seq: seq++,
      wake: () => {
        fired = true;
        fn();
      },
    };
    insert(entry);
    schedulePump();
    return {
      cancel: () => {
        if (!fired) remove(entry);
      },
    };
  };

  const clock: VirtualClock = {
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
          remove(entry);
          reject(signal?.reason as Error);
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        insert(entry);
        schedulePump();
      });
    },
    setTimer,
    advance(ms) {
      const target = now + Math.max(0, ms);
      for (let next = sleepers[0]; next !== undefined && next.at <= target; next = sleepers[0]) {
        sleepers.shift();
        if (next.at > now) now = next.at;
        next.wake();
      }
      now = target;
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
    nextWakeAt: () => sleepers[0]?.at,
  };
  return clock;
}
