import type { Clock } from '../lib/clock.js';
import { isTermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { KeyRedactor } from '../lib/redact-keys.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { hasDrift, type Drift } from '../model/drift.js';
import { pullTarget, selectTargets, type PullOutcome, type ServiceContext } from '../reconcile/index.js';
import { renderDriftText } from '../report/index.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { DaemonStatus, DriftReport } from './daemon-status.js';
import { pushDriftBranch, recordOverlay, type Overlay } from './drift-branch.js';

/** What a drift pull lets the run that follows do. */
export type DriftDecision =
  /** The files now hold the service's edits: read the repository again, then apply what is left. */
  | { readonly kind: 'written' }
  /** Nothing to adopt: apply as usual. */
  | { readonly kind: 'in_sync' }
  /**
   * The service's edits could not be adopted: applying the repository now would overwrite them, so
   * the run plans and reports but writes nothing; the next full run tries the pull again.
   */
  | { readonly kind: 'held'; readonly reason: string };

export interface DriftPullOptions {
  readonly dir: string;
  /** The daemon's `--target` (a drift pull adopts the state of one target). */
  readonly target?: string;
  readonly service: ServiceContext;
  readonly clock: Clock;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly keys?: KeyRedactor;
  /** With --git-pull: the pulled files also go to a drift branch, and are kept across pulls in this overlay. */
  readonly git?: { readonly overlay: Overlay };
}

/**
 * `--on-drift pull` on a full run: the service's edits of declared resources are written into the
 * repository's files before the apply (which then has only what pull leaves: resources missing on
 * the service, prune). With --git-pull they go to a drift branch too. A pull that fails holds every
 * write of the run: the edits it was to adopt are not lost.
 */
export interface DriftPull {
  pull(desired: DesiredState): Promise<DriftDecision>;
}

function driftCounts(drift: Drift): { glossaries: number; termChanges: number; styleRules: number } {
  return {
    glossaries: drift.glossaries.length,
    termChanges: drift.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entryChanges.length, 0), 0),
    styleRules: drift.styleRules.length,
  };
}

/** Why a pull did not adopt the service's state. */
function failureOf(outcome: Exclude<PullOutcome, { kind: 'pulled' }>): string {
  return 'error' in outcome && outcome.error !== undefined ? outcome.error.message : outcome.kind;
}

export function createDriftPull(options: DriftPullOptions): DriftPull {
  const { clock, status, metrics, logger: log } = options;
  /** The tree of the last drift branch pushed: the same drift found again is not pushed twice. */
  let pushedTree: string | undefined;

  const hold = (target: string, at: string, error: string, fields: Record<string, unknown> = {}): DriftDecision => {
    status.update({ drift: { at, target, result: 'failed', error } });
    log.error(
      { ...(target === '' ? {} : { target }), err: error, ...fields },
      'drift pull failed: this run writes nothing to the service, so the edits made there are not overwritten; the next full reconcile tries again',
    );
    return { kind: 'held', reason: error };
  };

  /** Commits the files pull wrote to a branch `termsync/drift-<date>` and pushes it; the branch, or why it could not be pushed. */
  const pushBranch = async (overlay: Overlay, target: string, written: readonly string[], drift: Drift): Promise<{ branch?: string; error?: string }> => {
    const gitOptions = { env: options.service.env, signal: options.service.signal };
    try {
      await recordOverlay(options.dir, written, gitOptions, overlay);
      const drifted = `termsync: adopt edits made on the service (target ${target})\n\n${renderDriftText(drift)}`;
      const message = options.keys?.redact(drifted) ?? drifted;
      const pushed = await pushDriftBranch(options.dir, [...overlay.keys()], message, new Date(clock.now()), { ...gitOptions, ...(pushedTree === undefined ? {} : { skipTree: pushedTree }) });
      if (pushed === undefined) return {};
      pushedTree = pushed.tree;
      log.info({ branch: pushed.branch, remote: pushed.remote, commit: pushed.commit.slice(0, 12) }, 'drift pushed to a branch for review');
      return { branch: pushed.branch };
    } catch (caught) {
      if (!isTermsyncError(caught)) throw caught;
      log.warn({ err: caught.message }, 'the drift branch could not be pushed; the files keep the service edits');
      return { error: caught.message };
    }
  };

  return {
    async pull(desired) {
      const at = new Date(clock.now()).toISOString();
      let targets: TargetConfig[];
      try {
        targets = selectTargets(desired, options.target);
      } catch (error) {
        // An unknown --target: the run is rejected for it, and writes nothing either.
        if (!isTermsyncError(error)) throw error;
        return { kind: 'held', reason: error.message };
      }
      const [target] = targets;
      if (target === undefined || targets.length !== 1) {
        return hold('', at, 'pull adopts the state of one target: start the daemon with --target', { targets: targets.length });
      }
      const outcome = await pullTarget({ desired, target }, options.service);
      if (outcome.kind !== 'pulled') {
        metrics.recordDriftPull(target.name, 'failed');
        const problems = outcome.kind === 'unwritable' && outcome.problems !== undefined ? { problems: outcome.problems.slice(0, 20), problemCount: outcome.problems.length } : {};
        return hold(target.name, at, failureOf(outcome), problems);
      }
      const { drift } = outcome;
      if (outcome.written.length === 0) {
        metrics.recordDriftPull(target.name, 'in_sync');
        // Drift that pull leaves alone (and says so) keeps the report of what was last written; a failure is over.
        if (!hasDrift(drift) || status.drift?.result === 'failed') status.update({ drift: { at, target: target.name, result: 'in_sync' } });
        return { kind: 'in_sync' };
      }
      const counts = driftCounts(drift);
      metrics.recordDriftPull(target.name, 'written');
      log.info({ target: target.name, files: outcome.written.length, ...counts }, 'drift pulled: the service edits were written into the repository');
      const pushed = options.git === undefined ? {} : await pushBranch(options.git.overlay, target.name, outcome.written, drift);
      const report: DriftReport = { at, target: target.name, result: 'written', files: outcome.written, ...counts, ...pushed };
      status.update({ drift: report });
      return { kind: 'written' };
    },
  };
}
