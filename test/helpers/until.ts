/** How {@link until} polls. */
export interface UntilOptions {
  /** Gives up after this many milliseconds of real time (default 10 s). */
  readonly timeoutMs?: number;
  /** Waits this long between two probes; 0 waits one turn of the event loop (default 20 ms). */
  readonly everyMs?: number;
  /** What to add to the timeout's message: a process's output, a log. */
  readonly context?: () => string;
  /** A probe that throws (a server that does not listen yet) counts as no value yet, not as a failure. */
  readonly ignoreErrors?: boolean;
}

/**
 * The tests' one polling helper: calls `probe` until it gives a value (anything but undefined,
 * null or false) and resolves with that value; after `timeoutMs` it rejects, naming `what`.
 *
 * Only for what a test cannot be told of when it happens: another process, the file system, a
 * server's counters, a worker thread. Never for time the code under test keeps on an injected
 * clock (move the fake clock instead), and never as a sleep standing in for "nothing happened".
 */
export async function until<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: UntilOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, everyMs = 20, context, ignoreErrors = false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined | null | false;
    try {
      value = await probe();
    } catch (error) {
      if (!ignoreErrors) throw error;
      value = undefined;
    }
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      const more = context?.() ?? '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${more === '' ? '' : `\n${more}`}`);
    }
    await new Promise<void>((resolve) => (everyMs === 0 ? setImmediate(resolve) : setTimeout(resolve, everyMs)));
  }
}
