/** A callback a clock will call once, unless cancelled first. */
export interface ClockTimer {
  /** Idempotent; a no-op once the callback has run. */
  cancel(): void;
}

export interface TimerOptions {
  /** The timer alone does not keep the process alive (a periodic check that must not hold up an exit). */
  readonly unref?: boolean;
}

/** Injected time, so tests use fake time and never sleep for real. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Holds the clock still until `work` settles: a clock whose time moves only when someone sleeps
   * (lib/virtual-clock.ts) has it, so that real I/O takes no time on it; the system clock has none.
   */
  track?<T>(work: Promise<T>): Promise<T>;
}

/** A clock with timers: what keeps time for the daemon (its back-off, periodic checks, batching). */
export interface TimerClock extends Clock {
  /** Calls `fn` once, `ms` from now. */
  setTimer(ms: number, fn: () => void, options?: TimerOptions): ClockTimer;
}

/**
 * A clock that can hold still while real I/O is pending (the virtual clock of the tests): what it
 * wraps in `track` takes no time on it. Production clocks have no such capability.
 */
export interface TrackingClock extends Clock {
  track<T>(work: Promise<T>): Promise<T>;
}

/**
 * Calls `fn` every `ms` on `clock` until cancelled: each call arms the next one, so a clock moved by
 * hand fires it once per period it passes.
 */
export function repeatEvery(clock: TimerClock, ms: number, fn: () => void, options: TimerOptions = {}): ClockTimer {
  let timer: ClockTimer | undefined;
  let cancelled = false;
  const arm = (): void => {
    timer = clock.setTimer(
      ms,
      () => {
        if (cancelled) return;
        arm();
        fn();
      },
      options,
    );
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      timer?.cancel();
    },
  };
}

export const systemClock: TimerClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  setTimer: (ms, fn, options = {}) => {
    const timer = setTimeout(fn, ms);
    if (options.unref === true) timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
};
