import type { Clock } from '../lib/clock.js';
import { InputError } from '../lib/errors.js';
import { fullJitterBackoff, glossaryCooldownMs } from './retry-policy.js';

/**
 * The shared state that keeps the client polite: the send pacer, the throttle gate (429/529
 * pause every request), the glossary cool-down (456 pauses glossary endpoints only) and the
 * adaptive rate (halved on a throttling answer, down to a quarter of the configured rate;
 * doubled back after a short run of successes).
 *
 * Pacing is our own, on the injected clock, rather than p-queue's `interval`: p-queue counts with
 * real timers, so fake-time tests could not drive it, and its window counts task *starts* while we
 * need to count sends, after the gates. p-queue still bounds concurrency.
 */
export interface FlowControlOptions {
  readonly clock: Clock;
  /** The configured rate: the adaptive rate never goes above it. */
  readonly requestsPerSecond: number;
  readonly random?: () => number;
  /** Total 456 cool-down the client may sit out before 456 becomes an error. */
  readonly glossaryCooldownBudgetMs?: number;
  /** Extra room in the one-second window, for millisecond rounding (default 5 ms). */
  readonly windowMarginMs?: number;
}

export interface FlowControl {
  /** Earliest time a request to this kind of endpoint may be sent (gates only, not pacing). */
  openAt(glossary: boolean): number;
  /** Reserves the next slot of the even spacing (1000 / rate ms apart) and returns its time (>= now). */
  reserveSend(): number;
  /**
   * How long to wait before sending so that no one-second window holds more than `rate` requests
   * (0: send now). Checked just before sending, again after each wait.
   */
  windowWaitMs(): number;
  /** Records a request leaving now; call `done` when its answer (or failure) has come back. */
  markSent(): { done(): void };
  /** 429/529: closes the gate for every request. Returns the wait applied. */
  onThrottle(retryAfterMs: number | undefined, sentAt: number): number;
  /** 456: extends the glossary cool-down; `undefined` when the budget is spent. */
  onGlossaryQuota(retryAfterMs: number | undefined): number | undefined;
  onSuccess(glossary: boolean): void;
  currentRate(): number;
}

/** While the request that bounds the window is still in flight, look again this often. */
const IN_FLIGHT_POLL_MS = 10;

export function createFlowControl(options: FlowControlOptions): FlowControl {
  const { clock } = options;
  const random = options.random ?? Math.random;
  const configured = options.requestsPerSecond;
  if (!(configured > 0) || !Number.isFinite(configured)) {
    throw new InputError('invalid_client_option', `expected requestsPerSecond > 0, got ${configured}`);
  }
  const margin = options.windowMarginMs ?? 5;
  const budget = options.glossaryCooldownBudgetMs ?? 300_000;
  // Halving stops at a quarter of the configured rate. What protects the service from a throttling
  // answer is the gate (the whole queue waits out Retry-After); the lower rate only spreads the
  // requests after it. A deeper floor made random, load-independent 429s (a shared service's
  // other traffic) cost many seconds per answer: 21 creates took a minute instead of five seconds.
  const minRate = Math.max(0.05, configured / 4);

  let rate = configured;
  let lastReserved = -Infinity;
  // Requests sent, in order: the time they left and, once answered, the time the answer came.
  const sent: { at: number; answeredAt: number | undefined }[] = [];
  let throttleUntil = -Infinity;
  let throttleStreak = 0;
  let lastDecreaseAt = -Infinity;
  let successRun = 0;
  let glossaryUntil = -Infinity;
  let glossaryStreak = 0;
  let glossarySpent = 0;

  // The window guards the service's count at the configured rate; the lowered adaptive rate is
  // applied by the even spacing alone. Counting the window at the lowered rate too made a rate
  // below 2 send one request per second *after the previous answer*, far under the rate itself.
  const windowCount = (): number => Math.max(1, Math.floor(configured));

  return {
    openAt: (glossary) => (glossary ? Math.max(throttleUntil, glossaryUntil) : throttleUntil),

    reserveSend() {
      lastReserved = Math.max(clock.now(), lastReserved + 1000 / rate);
      return Math.ceil(lastReserved); // whole milliseconds, never a hair early
    },

    windowWaitMs() {
      // The server counts a request when it arrives, which is somewhere between our send and its
      // answer. So the request `rate` sends back must have been *answered* at least one second
      // (plus margin) ago: then it has left the server's window whatever the network did.
      const n = windowCount();
      const nth = sent.length >= n ? sent[sent.length - n] : undefined;
      if (nth === undefined) return 0;
      if (nth.answeredAt === undefined) return IN_FLIGHT_POLL_MS;
      return Math.max(0, nth.answeredAt + 1000 + margin - clock.now());
    },

    markSent() {
      const record: { at: number; answeredAt: number | undefined } = { at: clock.now(), answeredAt: undefined };
      sent.push(record);
      const keep = Math.ceil(configured) + 1;
      if (sent.length > keep * 2) sent.splice(0, sent.length - keep);
      return {
        done: () => {
          record.answeredAt ??= clock.now();
        },
      };
    },

    onThrottle(retryAfterMs, sentAt) {
      const now = clock.now();
      const wait = retryAfterMs ?? fullJitterBackoff(throttleStreak, random, 500, 30_000);
      throttleStreak += 1;
      throttleUntil = Math.max(throttleUntil, now + wait);
      // One decrease per round: answers to requests sent before the last decrease say nothing
      // about the new rate (a burst of concurrent 429s must not divide the rate by 16).
      if (sentAt > lastDecreaseAt) {
        rate = Math.max(minRate, rate / 2);
        lastDecreaseAt = now;
      }
      successRun = 0;
      return wait;
    },

    onGlossaryQuota(retryAfterMs) {
      const now = clock.now();
      const wait = retryAfterMs ?? glossaryCooldownMs(glossaryStreak);
      const until = Math.max(glossaryUntil, now + wait);
      const added = until - Math.max(glossaryUntil, now);
      if (glossarySpent + added > budget) return undefined;
      glossarySpent += added;
      glossaryUntil = until;
      glossaryStreak += 1;
      return wait;
    },

    onSuccess(glossary) {
      throttleStreak = 0;
      if (glossary) glossaryStreak = 0;
      successRun += 1;
      // Multiplicative increase after a short run of successes (about half a second's worth at the
      // current rate, at least 3): from the floor, two clean runs restore the configured rate. An
      // additive step needed a run of 5+ that a 20–35 % fault rate rarely allows, so the rate stayed
      // low long after the service had recovered. Never above the configured rate.
      if (rate < configured && successRun >= Math.max(3, Math.ceil(rate / 2))) {
        rate = Math.min(configured, rate * 2);
        successRun = 0;
      }
    },

    currentRate: () => rate,
  };
}
