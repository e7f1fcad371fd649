import type { Diagnostic } from '../lib/diagnostics.js';
import type { Clock } from '../lib/clock.js';
import { isTermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { reconcileDesired, type ReconcileMode, type RunOutcome, type ServiceContext } from '../reconcile/index.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { RunHistory } from './dashboard/run-history.js';
import type { DaemonStatus } from './daemon-status.js';
import { logOutcome } from './log-run.js';
import { endOf, type RunEnd } from './run-end.js';
import type { SharedLock } from './shared-lock.js';
import type { RunRequest } from './triggers.js';
import { verifyChanged } from './verify-changed.js';

/** What one run of one target works on: the request (how much to read again) and whether it may write. */
export interface TargetWork {
  readonly request: RunRequest;
  readonly mode: ReconcileMode;
}

/** The repository as the daemon last loaded it: every target run reads the newest. */
export interface LoadedDesired {
  readonly desired: DesiredState;
  readonly diagnostics: readonly Diagnostic[];
  /** Targets suspended as of that load (`--suspend`, the config's, the target's): only planned. */
  readonly suspended: ReadonlySet<string>;
}

export interface TargetRunParts {
  readonly clock: Clock;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  /** The service, with the daemon's stop signals (`stop`: graceful, `signal`: hard). */
  readonly service: ServiceContext & { readonly stop: AbortSignal };
  readonly verify: boolean;
  readonly lock: SharedLock;
  /** The dashboard's run history (with its endpoints). */
  readonly history?: RunHistory;
  /** Told how the target's run ended, as soon as it is recorded (before the verify that may follow). */
  readonly ended: (target: string, end: RunEnd) => void;
}

/**
 * One run of one target, on the repository as last loaded: hold the repository's lock (shared with
 * the daemon's other target runs), reconcile the target, record the outcome (the target's own state,
 * a run on `/status`, the metrics), verify what changed. Runs of different targets go side by side.
 */
export function createTargetRunner(parts: TargetRunParts): (target: string, work: TargetWork, loaded: LoadedDesired) => Promise<void> {
  const { clock, status, metrics, logger: log } = parts;

  const finish = (target: string, trigger: RunRequest['trigger'], startedAt: number, run: RunOutcome, files?: number): void => {
    const duration = clock.now() - startedAt;
    const report = status.recordRun(trigger, startedAt, duration, run, files);
    parts.history?.record(report, run);
    const error = report.error ?? report.targets[0]?.error;
    status.targets.finished(target, { trigger, at: new Date(startedAt + duration).toISOString(), durationMs: duration, result: report.result, ...(error === undefined ? {} : { error }) });
    metrics.recordRun(trigger, target, report.result, duration / 1000);
    metrics.setReady(status.readiness().ready);
    if (run.kind === 'locked' || run.kind === 'rejected') log.warn({ target, trigger, result: run.kind, err: run.error.message }, `reconcile ${run.kind}`);
    parts.ended(target, endOf(report.result));
  };

  return async (target, work, loaded) => {
    const { request, mode } = work;
    const { trigger, full } = request;
    const files = [...request.files];
    const startedAt = clock.now();
    status.targets.started(target, trigger, startedAt);
    try {
      let release: () => Promise<void>;
      try {
        release = await parts.lock.hold(loaded.desired.root);
      } catch (error) {
        if (isTermsyncError(error) && error.code === 'locked') return finish(target, trigger, startedAt, { kind: 'locked', error, diagnostics: loaded.diagnostics });
        throw error;
      }
      let run: RunOutcome;
      const refresh = full || files.length === 0 ? { kind: 'all' as const } : { kind: 'changed' as const, files };
      try {
        // A daemon's plan is never saved nor shown as JSON: its fingerprints need no entry hashes. A
        // hash sorts the dictionary's entries and keeps them sorted on the loaded entries, for as long
        // as the repository stays loaded (on 1,000 × 2 × 1,000 uploaded in the files' order by another
        // tool, 2,000 sorted copies: the daemon's peak RSS was 560-680 MiB with them, 390 MiB without).
        const ask = { mode, planOnly: (t: TargetConfig) => loaded.suspended.has(t.name), refresh, lock: false, target, entryHashes: false };
        run = await reconcileDesired(loaded.desired, loaded.diagnostics, ask, parts.service, {
          finished: (outcome) => {
            metrics.recordTarget(trigger, outcome, clock.now());
            logOutcome(log, trigger, outcome, clock.now() - startedAt);
          },
        });
      } finally {
        await release();
      }
      finish(target, trigger, startedAt, run, refresh.kind === 'changed' ? files.length : undefined);
      if (parts.verify && run.kind === 'done') {
        await verifyChanged({ stop: parts.service.stop, service: parts.service, clock, status, metrics, logger: log }, loaded.desired, run.targets, full ? [] : files);
      }
    } finally {
      status.targets.ended(target);
    }
  };
}
