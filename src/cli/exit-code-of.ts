import { ExitCode } from '../lib/exit-codes.js';
import type { RunOutcome, TargetOutcome } from '../reconcile/index.js';

/**
 * The one table from outcomes to exit codes (see the contract). Nothing below the CLI picks an
 * exit code; the daemon maps the same outcomes to status and metrics instead.
 */
export function exitCodeOf(outcome: TargetOutcome, options: { readonly detailedExitcode?: boolean } = {}): ExitCode {
  switch (outcome.kind) {
    case 'converged':
    case 'changed':
      return ExitCode.ok;
    case 'pending':
      return options.detailedExitcode === true ? ExitCode.changesPresent : ExitCode.ok;
    case 'blocked':
      return ExitCode.guardBlocked;
    case 'stale':
      return ExitCode.staleOrLocked;
    case 'partial':
      return ExitCode.applyIncomplete;
    case 'refused':
    case 'unreachable':
      return ExitCode.authOrDestination;
    case 'misconfigured':
      return outcome.problem === 'credentials' ? ExitCode.authOrDestination : ExitCode.invalidInput;
    case 'interrupted':
      return ExitCode.interrupted;
  }
}

/** A whole run: the most severe of its targets (the highest code), or why it never reached one. */
export function runExitCode(run: RunOutcome, options: { readonly detailedExitcode?: boolean } = {}): ExitCode {
  switch (run.kind) {
    case 'invalid':
    case 'rejected':
      return ExitCode.invalidInput;
    case 'locked':
      return ExitCode.staleOrLocked;
    case 'done':
      return run.targets.reduce<ExitCode>((code, t) => Math.max(code, exitCodeOf(t, options)) as ExitCode, ExitCode.ok);
  }
}
