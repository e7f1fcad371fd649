import type { RunResult } from './daemon-metrics.js';

/** How a run ended, for the work queue: `failed` is retried with back-off, `succeeded` resets it, `waits` for a change. */
export type RunEnd = 'failed' | 'succeeded' | 'waits';

/**
 * Results that wait for a change rather than a retry: guards and stale plans, an invalid
 * repository, a rejected request, and a target the environment gives no key or URL for (the
 * variables of a running process do not change; a key file is read again at the next run: the
 * schedule, a file change, SIGHUP). Everything else that did not converge is retried with back-off
 * (a service down, a key being rotated).
 */
const WAITS: ReadonlySet<string> = new Set(['blocked', 'stale', 'invalid', 'rejected', 'interrupted', 'misconfigured']);
const SUCCEEDS: ReadonlySet<string> = new Set(['converged', 'changed', 'pending']);

export function endOf(result: RunResult): RunEnd {
  return SUCCEEDS.has(result) ? 'succeeded' : WAITS.has(result) ? 'waits' : 'failed';
}
