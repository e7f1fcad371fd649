/**
 * The adaptive rate. The service publishes no limit, so users configure more than it allows. Every
 * send carries its *load*: what a per-second limiter may have counted when it arrived (see
 * SendTicket in flow-control.ts: a success proves the load surely counted, a refusal is judged by
 * the load possibly counted, so that delays on a busy machine never make a refusal at the limit
 * look random). A pause (the gate closed by one or more throttling answers) is judged when the gate
 * opens again, with every answer of that round in:
 * - If some success of the last few seconds was sent at a load at least as high as the lowest load
 *   that was refused, the refusals are not correlated with load (random refusals of a shared
 *   service, a refusal at low load or in the burst right after a pause): the rate stays.
 * - Otherwise the refusal may be correlated with load. Once confirmed (rounds in a row refused at
 *   the same load or lower: two if the second refused several requests, else three, four on a
 *   service that has recently refused at loads it accepted; or one at a load refused before) the
 *   rate is capped just below the refused load, and then climbs back additively, one small step
 *   after each ~20 seconds' worth of successes, to find out whether the limit has risen.
 */
export interface AdaptiveRate {
  /** Requests per second now: never above the configured rate. */
  current(): number;
  /** Requests any one-second window may hold at the current rate (at least one). */
  windowCount(): number;
  /** A throttling answer to a request sent at `load`: part of the round being paused. */
  refused(load: number): void;
  /** Judges the round of refusals (the gate has opened again); false when there was none. */
  judgeRound(now: number): boolean;
  /** A success at `load`: proof the service accepts it for a while; enough of them climb the rate. */
  accepted(now: number, load: number): void;
}

/** How long a success at some load counts as proof that the service accepts that load. */
const PROOF_MS = 10_000;
/** After a refusal that was not about load, the service counts as noisy for this long. */
const NOISY_MS = 30_000;
/** The rate climbs one step after this many seconds' worth of successes at the current rate. */
const CLIMB_AFTER_SECONDS = 20;

export function createAdaptiveRate(configured: number, onRate?: (requestsPerSecond: number) => void): AdaptiveRate {
  // A cut never goes below one request per second (or the configured rate, if lower): a refusal
  // at a load of one is not about load at all.
  const minRate = Math.min(1, configured);
  // Additive step: about 1 request/s, proportionally more for large configured rates, less for tiny ones.
  const step = Math.max(configured / 40, Math.min(1, configured / 4));
  let rate = configured;
  let successesSinceChange = 0;
  // Loads of recent successes, newest last, each greater than every later one (a max-queue): the
  // front is the highest load the service accepted within PROOF_MS.
  const proofs: { at: number; load: number }[] = [];
  /** Loads of the requests refused while the gate was closed (or that closed it). */
  let round: number[] | undefined;
  /** Consecutive rounds refused above every recent success, not yet acted on, and their lowest refused load. */
  let streak: { readonly rounds: number; readonly load: number } | undefined;
  /** When a round last showed refusals that were not about load. */
  let noisyAt = -Infinity;
  /** The lowest load of the last confirmed cut: a refusal at or above it again needs no confirmation. */
  let refusedLoad = Infinity;

  const setRate = (next: number): void => {
    if (next === rate) return;
    rate = next;
    successesSinceChange = 0;
    onRate?.(rate);
  };

  const highestAccepted = (now: number): number => {
    while (proofs.length > 0 && (proofs[0]?.at ?? 0) < now - PROOF_MS) proofs.shift();
    return proofs[0]?.load ?? 0;
  };

  return {
    current: () => rate,
    // The window counts what the service counts: no more than `rate` requests in any second.
    windowCount: () => Math.max(1, Math.floor(rate + 1e-9)),
    refused(load) {
      round ??= [];
      round.push(load);
    },
    judgeRound(now) {
      if (round === undefined) return false;
      const proven = highestAccepted(now);
      const above = round.filter((load) => load > proven && load > 1);
      round = undefined;
      if (above.length === 0) {
        // Refused at a load the service has just accepted: not about load. The service is noisy.
        streak = undefined;
        noisyAt = now;
        return true;
      }
      const lowest = Math.min(...above);
      // A streak holds while the service keeps refusing at the same load or lower; once it accepts
      // more than it refused before, the earlier refusals were chance.
      streak = streak !== undefined && lowest <= streak.load ? { rounds: streak.rounds + 1, load: lowest } : { rounds: 1, load: lowest };
      // One round is not proof: the top load of a burst is refused by chance one time in five at
      // 20 % random refusals, and a wrong cut costs far more than one more pause. A limit refuses
      // every request above it, so a second round with several refusals at the top confirms it;
      // otherwise a third round does, a fourth on a service known to refuse by chance.
      const noisy = now - noisyAt < NOISY_MS;
      const confirmed = noisy ? streak.rounds >= 4 : streak.rounds >= 3 || (streak.rounds >= 2 && above.length >= 2) || lowest >= refusedLoad;
      if (confirmed) {
        refusedLoad = lowest;
        streak = undefined;
        // Just below the refused load; never raised by a refusal.
        if (lowest - 1 < rate) setRate(Math.max(minRate, lowest - 1));
      }
      return true;
    },
    accepted(now, load) {
      while (proofs.length > 0 && (proofs[proofs.length - 1]?.load ?? 0) <= load) proofs.pop();
      proofs.push({ at: now, load });
      successesSinceChange += 1;
      // Additive climb: one step after about CLIMB_AFTER_SECONDS of successes at the current rate.
      if (rate < configured && successesSinceChange >= Math.ceil(rate * CLIMB_AFTER_SECONDS)) {
        setRate(Math.min(configured, rate + step));
      }
    },
  };
}
