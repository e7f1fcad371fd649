import type { RunResult } from './daemon-metrics.js';

/** How a run ended, for the work queue: `failed` is retried with back-off, `succeeded` resets it, `waits` for a change. */
export type RunEnd = 'failed' | 'succeeded' | 'waits';

/**
 * Results that wait for a change of the repository rather than a retry: guards and stale plans,
 * an invalid repository, a rejected request. Everything else that did not converge is retried with
 * back-off (a service down, a key being rotated).
 */
const WAITS: ReadonlySet<string> = new Set(['blocked', 'stale', 'invalid', 'rejected', 'interrupted']);
const SUCCEEDS: ReadonlySet<string> = new Set(['converged', 'changed', 'pending']);

export function endOf(result: RunResult): RunEnd {
  return SUCCEEDS.has(result) ? 'succeeded' : WAITS.has(result) ? 'waits' : 'failed';
}
