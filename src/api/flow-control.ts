import type { Clock } from '../lib/clock.js';
import { InputError } from '../lib/errors.js';
import { fullJitterBackoff, glossaryCooldownMs } from './retry-policy.js';

/**
 * The shared state that keeps the client polite: the send pacer, the throttle gate (429/529
 * pause every request for the Retry-After the service names), the glossary cool-down (456 pauses
 * glossary endpoints only) and the adaptive rate that finds the service's limit.
 *
 * The adaptive rate. The service publishes no limit, so users configure more than it allows. Every
 * send carries its *load*: what a per-second limiter may have counted when it arrived (see
 * SendTicket: a success proves the load surely counted, a refusal is judged by the load possibly
 * counted, so that delays on a busy machine never make a refusal at the limit look random). A pause (the gate closed by one or more throttling answers) is judged
 * when the gate opens again, with every answer of that round in:
 * - If some success of the last few seconds was sent at a load at least as high as the lowest load
 *   that was refused, the refusals are not correlated with load (random refusals of a shared
 *   service, a refusal at low load or in the burst right after a pause): the rate stays.
 * - Otherwise the refusal may be correlated with load. Once confirmed (rounds in a row refused at
 *   the same load or lower: two if the second refused several requests, else three, four on a
 *   service that has recently refused at loads it accepted; or one at a load refused before) the
 *   rate is capped just below the refused load, and then climbs back additively, one small step
 *   after each ~20 seconds' worth of successes, to find out whether the limit has risen.
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
/** How long a success at some load counts as proof that the service accepts that load. */
const PROOF_MS = 10_000;
/** After a refusal that was not about load, the service counts as noisy for this long. */
const NOISY_MS = 30_000;
/** The rate climbs one step after this many seconds' worth of successes at the current rate. */
const CLIMB_AFTER_SECONDS = 20;

interface Round {
  /** Loads of the requests refused while the gate was closed (or that closed it). */
  readonly loads: number[];
}

export function createFlowControl(options: FlowControlOptions): FlowControl {
  const { clock } = options;
  const random = options.random ?? Math.random;
  const configured = options.requestsPerSecond;
  if (!(configured > 0) || !Number.isFinite(configured)) {
    throw new InputError('invalid_client_option', `expected requestsPerSecond > 0, got ${configured}`);
  }
  const margin = options.windowMarginMs ?? 5;
  const budget = options.glossaryCooldownBudgetMs ?? 300_000;
  // A cut never goes below one request per second (or the configured rate, if lower): a refusal
  // at a load of one is not about load at all.
  const minRate = Math.min(1, configured);
  // Additive step: about 1 request/s, proportionally more for large configured rates, less for tiny ones.
  const step = Math.max(configured / 40, Math.min(1, configured / 4));

  let rate = configured;
  let lastReserved = -Infinity;
  // Requests sent, in order: the time they left and, once answered, the time the answer came.
  const sent: { at: number; answeredAt: number | undefined }[] = [];
  let throttleUntil = -Infinity;
  let throttleStreak = 0;
  let glossaryUntil = -Infinity;
  let glossaryStreak = 0;
  let glossarySpent = 0;

  // Loads of recent successes, newest last, each greater than every later one (a max-queue): the
  // front is the highest load the service accepted within PROOF_MS.
  const accepted: { at: number; load: number }[] = [];
  let round: Round | undefined;
  /** Consecutive rounds refused above every recent success, not yet acted on, and their lowest refused load. */
  let streak: { readonly rounds: number; readonly load: number } | undefined;
  /** When a round last showed refusals that were not about load. */
  let noisyAt = -Infinity;
  /** The lowest load of the last confirmed cut: a refusal at or above it again needs no confirmation. */
  let refusedLoad = Infinity;
  let successesSinceChange = 0;
  /** Sends the pacer lets go at once when the gate reopens (the window's allowance). */
  let burst = 0;

  // The window counts what the service counts: no more than `rate` requests in any second.
  const windowCount = (): number => Math.max(1, Math.floor(rate + 1e-9));

  const setRate = (next: number): void => {
    if (next === rate) return;
    rate = next;
    successesSinceChange = 0;
    options.onRate?.(rate);
  };

  const highestAccepted = (now: number): number => {
    while (accepted.length > 0 && (accepted[0]?.at ?? 0) < now - PROOF_MS) accepted.shift();
    return accepted[0]?.load ?? 0;
  };

  /** Judges the round of refusals once the gate has opened again; prepares the burst. */
  const settle = (): void => {
    const now = clock.now();
    if (round === undefined || now < throttleUntil) return;
    const proven = highestAccepted(now);
    const above = round.loads.filter((load) => load > proven && load > 1);
    round = undefined;
    if (above.length === 0) {
      // Refused at a load the service has just accepted: not about load. The service is noisy.
      streak = undefined;
      noisyAt = now;
    } else {
      const lowest = Math.min(...above);
      // A streak holds while the service keeps refusing at the same load or lower; once it accepts
      // more than it refused before, the earlier refusals were chance.
      streak = streak !== undefined && lowest <= streak.load ? { rounds: streak.rounds + 1, load: lowest } : { rounds: 1, load: lowest };
      // One round is not proof: the top load of a burst is refused by chance one time in five at
      // 20 % random refusals, and a wrong cut costs far more than one more pause. A limit refuses
      // every request above it, so a second round with several refusals at the top confirms it;
      // otherwise a third round does, a fourth on a service known to refuse by chance.
      const noisy = now - noisyAt < NOISY_MS;
      const confirmed = noisy
        ? streak.rounds >= 4
        : streak.rounds >= 3 || (streak.rounds >= 2 && above.length >= 2) || lowest >= refusedLoad;
      if (confirmed) {
        refusedLoad = lowest;
        streak = undefined;
        // Just below the refused load; never raised by a refusal.
        if (lowest - 1 < rate) setRate(Math.max(minRate, lowest - 1));
      }
    }
    burst = windowCount();
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
        lastReserved = Math.max(now, lastReserved + 1000 / rate);
      }
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
      round ??= { loads: [] };
      round.loads.push(ticket.load);
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
      const now = clock.now();
      const load = ticket.settledLoad ?? ticket.load;
      while (accepted.length > 0 && (accepted[accepted.length - 1]?.load ?? 0) <= load) accepted.pop();
      accepted.push({ at: now, load });
      successesSinceChange += 1;
      // Additive climb: one step after about CLIMB_AFTER_SECONDS of successes at the current rate.
      if (rate < configured && successesSinceChange >= Math.ceil(rate * CLIMB_AFTER_SECONDS)) {
        setRate(Math.min(configured, rate + step));
      }
    },

    currentRate: () => rate,
  };
}
