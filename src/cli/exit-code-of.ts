import { isAuthError, isDestinationError, isServiceError } from '../api/errors.js';
import { InputError, isTermsyncError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import { hasDrift } from '../model/drift.js';
import type { PullOutcome, RunOutcome, TargetOutcome, VerifyOutcome } from '../reconcile/index.js';

/**
 * Errors a command may end with, by their stable `code`, and the exit code of each (see the
 * contract). A TermsyncError whose code is not here, nor of a class below, is a bug: exit 1.
 */
const EXIT_CODE_OF_ERROR_CODE: Readonly<Record<string, ExitCode>> = {
  /** The entries file changed after it was checked (config/read-entries.ts). */
  entries_file_changed: ExitCode.invalidInput,
  /** apply of a plan with guard violations (apply/execute-plan.ts). */
  guard_blocked: ExitCode.guardBlocked,
  /** Another run holds the lock, or something else is at its path, or it cannot be read (apply/lock.ts). */
  locked: ExitCode.staleOrLocked,
  lock_unexpected: ExitCode.staleOrLocked,
  lock_unreadable: ExitCode.staleOrLocked,
  /** The service has no route to delete an instruction (apply/execute-plan.ts). */
  route_missing: ExitCode.applyIncomplete,
  /** A load stopped by SIGINT/SIGTERM (config/parallel-load.ts). */
  interrupted: ExitCode.interrupted,
};

/**
 * The one table from errors to exit codes: invalid input 3; a key or URL missing, refused or not
 * allowed, and a destination that is not the service, 7; any other failed call 6; then by code.
 */
export function exitCodeOfError(error: unknown): ExitCode {
  if (!isTermsyncError(error)) return ExitCode.internal;
  if (error instanceof InputError) return ExitCode.invalidInput;
  if (isAuthError(error) || isDestinationError(error)) return ExitCode.authOrDestination;
  if (isServiceError(error)) return ExitCode.applyIncomplete;
  return EXIT_CODE_OF_ERROR_CODE[error.code] ?? ExitCode.internal;
}

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
      return ExitCode.invalidInput;
    case 'rejected':
      // A request the repository rules out, or a run stopped by a signal while the repository was read.
      return run.error.code === 'interrupted' ? ExitCode.interrupted : ExitCode.invalidInput;
    case 'locked':
      return ExitCode.staleOrLocked;
    case 'done':
      return run.targets.reduce<ExitCode>((code, t) => Math.max(code, exitCodeOf(t, options)) as ExitCode, ExitCode.ok);
  }
}

/**
 * A verify run of one target: 8 when a check failed, 4 when it was over its character limit (a
 * guard: nothing was sent); a target it could not reach maps as everywhere.
 */
export function verifyExitCode(outcome: VerifyOutcome): ExitCode {
  switch (outcome.kind) {
    case 'no_checks':
      return ExitCode.ok;
    case 'verified':
      return outcome.results.every((r) => r.status === 'pass') ? ExitCode.ok : ExitCode.verifyFailed;
    case 'over_cap':
      return ExitCode.guardBlocked;
    default:
      return exitCodeOf(outcome);
  }
}

/** `pull`: 0 when written (or in sync); `pull --check`: 2 when the service holds edits the repository lacks. */
export function pullExitCode(outcome: PullOutcome): ExitCode {
  switch (outcome.kind) {
    case 'checked':
      return hasDrift(outcome.drift) ? ExitCode.changesPresent : ExitCode.ok;
    case 'pulled':
      // Never 0 with a repository validate refuses (the checks before writing make it unlikely).
      return outcome.errorsAfter === undefined ? ExitCode.ok : ExitCode.invalidInput;
    case 'locked':
      return ExitCode.staleOrLocked;
    case 'unwritable':
      return ExitCode.invalidInput;
    default:
      return exitCodeOf(outcome);
  }
}
