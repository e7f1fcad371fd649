import type { Diagnostic } from '../lib/diagnostics.js';
import { displayText } from '../lib/display.js';
import type { Logger } from '../lib/logger.js';
import { isSuccess, type TargetOutcome } from '../reconcile/index.js';
import type { Trigger } from './triggers.js';

/** One log line per target a run reached: its outcome, the plan's counts and what apply did. */
export function logOutcome(log: Logger, trigger: Trigger, outcome: TargetOutcome, ms: number): void {
  const plan = 'plan' in outcome ? outcome.plan : undefined;
  const result = 'result' in outcome ? outcome.result : undefined;
  const fields = {
    trigger,
    target: outcome.target,
    result: outcome.kind,
    durationMs: ms,
    ...(plan === undefined ? {} : { add: plan.summary.add, change: plan.summary.change, destroy: plan.summary.destroy, calls: plan.summary.calls }),
    ...(plan?.notRefreshed === undefined ? {} : { notRefreshed: plan.notRefreshed }),
    ...(result === undefined ? {} : { applied: result.applied, failed: result.failed, skipped: result.skipped }),
    ...('error' in outcome && outcome.error !== undefined ? { error: outcome.error.message } : {}),
  };
  // Without a plan, what stopped the run: the error says what is missing or wrong (`set TERMSYNC_API_KEY`).
  const error = 'error' in outcome && outcome.error !== undefined ? displayText(outcome.error.message) : undefined;
  const summary = plan !== undefined ? `Plan: ${plan.summary.add} to add, ${plan.summary.change} to change, ${plan.summary.destroy} to destroy.` : (error ?? outcome.kind);
  const waits = outcome.kind === 'misconfigured' ? ' (not retried: the next run is the schedule\'s, a file change\'s or SIGHUP\'s)' : '';
  if (isSuccess(outcome) || outcome.kind === 'pending') log.info(fields, `reconcile ${outcome.kind}: ${summary}`);
  else if (outcome.kind === 'misconfigured') log.error(fields, `reconcile ${outcome.kind}: ${summary}${waits}`);
  else log.warn(fields, `reconcile ${outcome.kind}: ${summary}`);
}

/**
 * Logs the repository's diagnostics, once per distinct set: not again on every run of an
 * unchanged broken repository.
 */
export function diagnosticsLog(log: Logger): (diagnostics: readonly Diagnostic[]) => void {
  let last = '';
  return (diagnostics) => {
    const key = diagnostics.map((d) => `${d.file}:${d.line}:${d.column}:${d.code}`).join('\n');
    if (key === last) return;
    last = key;
    for (const d of diagnostics) {
      const entry = { file: d.file, line: d.line, column: d.column, ...(d.cell === undefined ? {} : { cell: d.cell }), code: d.code };
      // The message is the line a pretty log prints as it is: one line, whatever it names (displayText).
      if (d.severity === 'error') log.error(entry, displayText(d.message));
      else log.warn(entry, displayText(d.message));
    }
  };
}
