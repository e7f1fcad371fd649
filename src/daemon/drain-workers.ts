import type { ClockTimer, TimerClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';

/** Waits for the workers to finish their runs, at most the stop's grace period on the clock; then aborts their requests and waits for them to end. */
export async function drainWorkers(shared: { readonly options: { readonly stopGraceMs?: number }; readonly clock: TimerClock; readonly log: Logger }, workers: Promise<void>, abort: () => void): Promise<void> {
  const grace = shared.options.stopGraceMs ?? 30_000;
  let timer: ClockTimer | undefined;
  const timedOut = await Promise.race([workers.then(() => false), new Promise<boolean>((resolve) => (timer = shared.clock.setTimer(grace, () => resolve(true))))]);
  timer?.cancel();
  if (!timedOut) return;
  shared.log.warn({ graceMs: grace }, 'the running reconcile did not finish in time; aborting its requests');
  abort();
  await workers;
}
