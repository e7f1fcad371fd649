import type { Diagnostic } from '../lib/diagnostics.js';
import type { TermsyncError } from '../lib/errors.js';
import type { ApplyResult } from '../model/apply-result.js';
import type { DesiredState } from '../model/desired.js';
import type { Plan } from '../model/plan.js';

/**
 * What one reconcile did to one target: a value, never an exception, and no exit code. The CLI
 * turns it into text and an exit code (one table, `cli/exit-code-of.ts`); the daemon into status
 * and metrics. Unexpected errors (bugs) still throw.
 */
export type TargetOutcome =
  /** The service matches the repository (apply: nothing had to be written). */
  | { readonly kind: 'converged'; readonly target: string; readonly plan: Plan; readonly result?: ApplyResult }
  /** `plan`: there are changes to apply (nothing was written). */
  | { readonly kind: 'pending'; readonly target: string; readonly plan: Plan }
  /** `apply`: every operation of the plan was applied. */
  | { readonly kind: 'changed'; readonly target: string; readonly plan: Plan; readonly result: ApplyResult }
  /** A safety guard stopped the plan: nothing was written. */
  | { readonly kind: 'blocked'; readonly target: string; readonly plan: Plan }
  /** A saved plan no longer matches the service: nothing was written. */
  | { readonly kind: 'stale'; readonly target: string; readonly plan: Plan; readonly differences: readonly string[] }
  /** Some operations failed or were skipped; the result lists each. */
  | { readonly kind: 'partial'; readonly target: string; readonly plan: Plan; readonly result: ApplyResult }
  /**
   * The service refused the key (401/403): while reading (`error`), or while writing (`result`
   * lists the refused operation; `refusal` is the status).
   */
  | {
      readonly kind: 'refused';
      readonly target: string;
      readonly error?: TermsyncError;
      readonly plan?: Plan;
      readonly result?: ApplyResult;
      readonly refusal?: string;
    }
  /** The service could not be read: unreachable, failing, or answering what the client cannot use. */
  | { readonly kind: 'unreachable'; readonly target: string; readonly error: TermsyncError }
  /**
   * The environment does not let termsync talk to this target: `credentials` (key or URL missing
   * or not allowed), `environment` (a setting such as TERMSYNC_MAX_ATTEMPTS is invalid).
   */
  | { readonly kind: 'misconfigured'; readonly target: string; readonly problem: 'credentials' | 'environment'; readonly error: TermsyncError }
  /** SIGINT/SIGTERM arrived: what had not started was not started (an apply's result lists it). */
  | { readonly kind: 'interrupted'; readonly target: string; readonly plan?: Plan; readonly result?: ApplyResult };

export type TargetOutcomeKind = TargetOutcome['kind'];

/** The outcomes that end a target before anything was planned. */
export type TargetFailure = Extract<TargetOutcome, { kind: 'refused' | 'unreachable' | 'misconfigured' | 'interrupted' }>;

/** What a whole run did: it stops before any target when the repository or the request is unusable. */
export type RunOutcome =
  /** The repository has errors: nothing was read from or sent to the service. */
  | { readonly kind: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
  /** The request itself cannot be carried out (unknown target, a saved plan of another target …). */
  | { readonly kind: 'rejected'; readonly error: TermsyncError; readonly diagnostics: readonly Diagnostic[] }
  /** Another run holds the repository's lock. */
  | { readonly kind: 'locked'; readonly error: TermsyncError; readonly diagnostics: readonly Diagnostic[] }
  | { readonly kind: 'done'; readonly desired: DesiredState; readonly diagnostics: readonly Diagnostic[]; readonly targets: readonly TargetOutcome[] };

/** Whether an outcome ends with the service equal to the repository. */
export function isSuccess(outcome: TargetOutcome): boolean {
  return outcome.kind === 'converged' || outcome.kind === 'changed';
}

/** The plan an outcome carries, if it got that far. */
export function planOf(outcome: TargetOutcome): Plan | undefined {
  return 'plan' in outcome ? outcome.plan : undefined;
}

/** The apply result an outcome carries, if anything was executed. */
export function resultOf(outcome: TargetOutcome): ApplyResult | undefined {
  return 'result' in outcome ? outcome.result : undefined;
}
