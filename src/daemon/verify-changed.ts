import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState } from '../model/desired.js';
import { resourcesForFiles } from '../config/index.js';
import { verifyTarget, type ServiceContext, type TargetOutcome, type VerifyOutcome } from '../reconcile/index.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import { verifyResultOf, type DaemonStatus } from './daemon-status.js';

export interface VerifyChangedOptions {
  /** Graceful stop: no verify run starts once it is aborted. */
  readonly stop: AbortSignal;
  readonly service: ServiceContext;
  readonly clock: Clock;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
}

/** The glossaries of a target a run changed: those it wrote (not deleted), and those whose files changed. */
function glossariesToVerify(desired: DesiredState, outcome: TargetOutcome, touched: readonly string[]): Set<string> {
  const declared = new Set(desired.glossaries.map((g) => g.name));
  const names = new Set(touched);
  if (outcome.kind !== 'changed' && outcome.kind !== 'converged') return names;
  for (const change of outcome.plan.changes) if (change.address.kind === 'glossary' && change.action !== 'delete' && declared.has(change.address.name)) names.add(change.address.name);
  return names;
}

function logVerify(log: Logger, target: string, verified: VerifyOutcome, result: string, glossaries: number): void {
  const counts = verified.kind === 'verified' ? { passed: verified.results.filter((r) => r.status === 'pass').length, failed: verified.results.filter((r) => r.status === 'fail').length } : {};
  const fields = { target, verify: result, glossaries, ...counts, ...(verified.kind === 'verified' || verified.kind === 'over_cap' ? { characters: verified.budget.characters } : {}) };
  if (result === 'passed') log.info(fields, 'verify passed');
  else log.warn(fields, verified.kind === 'over_cap' ? 'verify not run: over verify.max_characters' : `verify ${result}`);
}

/**
 * The glossary tests of what a reconcile changed: the glossaries it wrote, and those whose files a
 * file-triggered run saw change (edited tests; `files` is empty for a full run). Reported on
 * /status and in metrics, never as terms.
 */
export async function verifyChanged(options: VerifyChangedOptions, desired: DesiredState, outcomes: readonly TargetOutcome[], files: readonly string[]): Promise<void> {
  const { clock, status, metrics } = options;
  const touched = files.length === 0 ? [] : resourcesForFiles(desired, files).filter((r) => r.kind === 'glossary').map((r) => r.name);
  const declared = new Set(desired.glossaries.map((g) => g.name));
  for (const outcome of outcomes) {
    if ((outcome.kind !== 'changed' && outcome.kind !== 'converged') || options.stop.aborted) continue;
    const names = glossariesToVerify(desired, outcome, touched);
    const target = desired.config.targets.find((t) => t.name === outcome.target);
    if (names.size === 0 || target === undefined) continue;
    const verified = await verifyTarget({ desired, target, glossaries: names }, options.service);
    if (verified.kind === 'no_checks') continue;
    status.recordVerify(verified, clock.now(), [...names], declared);
    const result = verifyResultOf(verified);
    metrics.recordVerify(outcome.target, result, verified.kind === 'verified' ? verified.budget.characters : 0, status.verifyCounts(outcome.target));
    logVerify(options.logger, outcome.target, verified, result, names.size);
  }
}
