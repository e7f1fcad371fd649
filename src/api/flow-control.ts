import type { Clock } from '../lib/clock.js';
import { InputError } from '../lib/errors.js';
import { createAdaptiveRate } from './adaptive-rate.js';
import { fullJitterBackoff, glossaryCooldownMs } from './retry-policy.js';

/**
 * The shared state that keeps the client polite: the send pacer, the throttle gate (429/529
 * pause every request for the Retry-After the service names), the glossary cool-down (456 pauses
 * glossary endpoints only) and the adaptive rate that finds the service's limit.
 *
 * The adaptive rate: see adaptive-rate.ts.
 * After a pause the window's allowance is released together (a burst of up to `rate` requests,
 * bounded by the queue's concurrency), so that requests refused at the same time share one pause
 * and the pause does not repeat with every evenly spaced request.
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
  /** Called when the adaptive rate changes. */
  readonly onRate?: (requestsPerSecond: number) => void;
  /** Called when the throttle gate closes or is pushed further out, with the time added (ms). */
  readonly onPause?: (addedMs: number) => void;
}

/**
 * A request that has left: when, and at which load. The service counts a request when it arrives,
 * somewhere between our send and its answer, so its count when this one arrived lies between
 * `settledLoad` (our sends of the second before this one, itself included: surely counted) and
 * `load` (every request not answered a second before this one left: possibly counted). A busy
 * machine widens the gap: sends wait in the event loop, answers are read late.
 */
export interface SendTicket {
  readonly at: number;
  readonly load: number;
  readonly settledLoad: number;
  /** Call when the answer (or the failure) has come back. */
  done(): void;
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
  /** Records a request leaving now. */
  markSent(): SendTicket;
  /** 429/529: closes the gate for every request. Returns the wait applied. */
  onThrottle(retryAfterMs: number | undefined, sent: Pick<SendTicket, 'at' | 'load'>): number;
  /** 456: extends the glossary cool-down; `undefined` when the budget is spent. */
  onGlossaryQuota(retryAfterMs: number | undefined): number | undefined;
  /** A success proves the service accepts `settledLoad` (default `load`). */
  onSuccess(glossary: boolean, sent: Pick<SendTicket, 'at' | 'load'> & { readonly settledLoad?: number }): void;
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
  const rate = createAdaptiveRate(configured, options.onRate);
  let lastReserved = -Infinity;
  // Requests sent, in order: the time they left and, once answered, the time the answer came.
  const sent: { at: number; answeredAt: number | undefined }[] = [];
  let throttleUntil = -Infinity;
  let throttleStreak = 0;
  let glossaryUntil = -Infinity;
  let glossaryStreak = 0;
  let glossarySpent = 0;
  /** Sends the pacer lets go at once when the gate reopens (the window's allowance). */
  let burst = 0;

  /** Once the gate has opened again: the round of refusals judged, and the burst prepared. */
  const settle = (): void => {
    const now = clock.now();
    if (now < throttleUntil || !rate.judgeRound(now)) return;
    burst = rate.windowCount();
    lastReserved = now;
  };

  return {
    openAt(glossary) {
      settle();
      return glossary ? Math.max(throttleUntil, glossaryUntil) : throttleUntil;
    },

    reserveSend() {
      settle();
      const now = clock.now();
      if (burst > 0) {
        burst -= 1;
        lastReserved = Math.max(now, lastReserved);
      } else {
        lastReserved = Math.max(now, lastReserved + 1000 / rate.current());
      }
      return Math.ceil(lastReserved); // whole milliseconds, never a hair early
    },

    windowWaitMs() {
      // The server counts a request when it arrives, which is somewhere between our send and its
      // answer. So the request `rate` sends back must have been *answered* at least one second
      // (plus margin) ago: then it has left the server's window whatever the network did.
      const n = rate.windowCount();
      const nth = sent.length >= n ? sent[sent.length - n] : undefined;
      if (nth === undefined) return 0;
      if (nth.answeredAt === undefined) return IN_FLIGHT_POLL_MS;
      return Math.max(0, nth.answeredAt + 1000 + margin - clock.now());
    },

    markSent() {
      const now = clock.now();
      let settledLoad = 1;
      let load = 1;
      for (const earlier of sent) {
        if (earlier.at > now - 1000) settledLoad += 1;
        if (earlier.answeredAt === undefined || earlier.answeredAt > now - 1000) load += 1;
      }
      const record: { at: number; answeredAt: number | undefined } = { at: now, answeredAt: undefined };
      sent.push(record);
      // Enough history for the window and both loads: a second's worth plus what can be in flight.
      const keep = Math.ceil(configured) + 64;
      if (sent.length > keep * 2) sent.splice(0, sent.length - keep);
      return {
        at: now,
        load,
        settledLoad,
        done: () => {
          record.answeredAt ??= clock.now();
        },
      };
    },

    onThrottle(retryAfterMs, ticket) {
      const now = clock.now();
      const wait = retryAfterMs ?? fullJitterBackoff(throttleStreak, random, 500, 30_000);
      throttleStreak += 1;
      const until = Math.max(throttleUntil, now + wait);
      const added = until - Math.max(throttleUntil, now);
      throttleUntil = until;
      if (added > 0) options.onPause?.(added);
      rate.refused(ticket.load);
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

    onSuccess(glossary, ticket) {
      throttleStreak = 0;
      if (glossary) glossaryStreak = 0;
      rate.accepted(clock.now(), ticket.settledLoad ?? ticket.load);
    },

    currentRate: () => rate.current(),
  };
}
