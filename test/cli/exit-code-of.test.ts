import { describe, expect, it } from 'vitest';
import { ServiceAuthError, ServiceError } from '../../src/api/errors.js';
import { exitCodeOf, exitCodeOfError, runExitCode, verifyExitCode } from '../../src/cli/exit-code-of.js';
import { AuthError, InputError, TermsyncError } from '../../src/lib/errors.js';
import type { ApplyResult } from '../../src/model/apply-result.js';
import type { Plan } from '../../src/model/plan.js';
import type { TargetOutcome, VerifyOutcome } from '../../src/reconcile/index.js';
import type { CheckResult } from '../../src/model/verify.js';

const plan = { operations: [], guards: [] } as unknown as Plan;
const result = { applied: 0, failed: 1, skipped: 0 } as unknown as ApplyResult;
const error = new TermsyncError('x', 'x');
const target = 'default';

describe('exitCodeOf: the one table from outcomes to exit codes (the contract)', () => {
  it.each<[TargetOutcome, number, number]>([
    [{ kind: 'converged', target, plan }, 0, 0],
    [{ kind: 'pending', target, plan }, 0, 2],
    [{ kind: 'changed', target, plan, result }, 0, 0],
    [{ kind: 'blocked', target, plan }, 4, 4],
    [{ kind: 'stale', target, plan, differences: ['x'] }, 5, 5],
    [{ kind: 'partial', target, plan, result }, 6, 6],
    [{ kind: 'refused', target, error }, 7, 7],
    [{ kind: 'unreachable', target, error }, 7, 7],
    [{ kind: 'misconfigured', target, problem: 'credentials', error }, 7, 7],
    [{ kind: 'misconfigured', target, problem: 'environment', error }, 3, 3],
    [{ kind: 'interrupted', target }, 130, 130],
  ])('%o → %i (with --detailed-exitcode: %i)', (outcome, plain, detailed) => {
    expect(exitCodeOf(outcome)).toBe(plain);
    expect(exitCodeOf(outcome, { detailedExitcode: true })).toBe(detailed);
  });

  it('a run is as severe as its most severe target, or says why it reached none', () => {
    const targets: TargetOutcome[] = [
      { kind: 'pending', target, plan },
      { kind: 'partial', target: 'b', plan, result },
      { kind: 'converged', target: 'c', plan },
    ];
    expect(runExitCode({ kind: 'done', desired: {} as never, diagnostics: [], targets })).toBe(6);
    expect(runExitCode({ kind: 'done', desired: {} as never, diagnostics: [], targets: [targets[0] as TargetOutcome] }, { detailedExitcode: true })).toBe(2);
    expect(runExitCode({ kind: 'invalid', diagnostics: [] })).toBe(3);
    expect(runExitCode({ kind: 'rejected', error, diagnostics: [] })).toBe(3);
    expect(runExitCode({ kind: 'locked', error, diagnostics: [] })).toBe(5);
    expect(runExitCode({ kind: 'rejected', error: new TermsyncError('interrupted', 'x'), diagnostics: [] })).toBe(130);
  });
});

describe('exitCodeOfError: the one table from errors to exit codes (the contract)', () => {
  const failure = { method: 'GET', path: '/v3/glossaries' };
  it.each<[string, number, unknown]>([
    ['invalid input', 3, new InputError('plan/dependency-cycle', 'x')],
    ['an entries file changed during the run', 3, new TermsyncError('entries_file_changed', 'x')],
    ['a key or URL missing or not allowed', 7, new AuthError('missing_api_key', 'x')],
    ['a key refused', 7, new ServiceAuthError({ ...failure, status: 401 }, 'x')],
    ['nobody listening', 7, new ServiceError('unreachable', failure, 'x')],
    ['an answer over the size limit', 7, new ServiceError('too_large', failure, 'x')],
    ['a redirect', 7, new ServiceError('redirect', failure, 'x')],
    ['a call that failed after its retries', 6, new ServiceError('http_500', failure, 'x')],
    ['a call stopped by a signal', 6, new ServiceError('aborted', failure, 'x')],
    ['a missing route to delete an instruction', 6, new TermsyncError('route_missing', 'x')],
    ['a plan blocked by a guard', 4, new TermsyncError('guard_blocked', 'x')],
    ['the lock held by another run', 5, new TermsyncError('locked', 'x')],
    ['something else at the lock path', 5, new TermsyncError('lock_unexpected', 'x')],
    ['a lock file that cannot be read', 5, new TermsyncError('lock_unreadable', 'x')],
    ['a lock file that cannot be created', 1, new TermsyncError('lock_failed', 'x')],
    ['a load stopped by a signal', 130, new TermsyncError('interrupted', 'x')],
    ['git failing', 1, new TermsyncError('git_failed', 'x')],
    ['anything else (a bug)', 1, new Error('x')],
  ])('%s → %i', (_what, code, error) => {
    expect(exitCodeOfError(error)).toBe(code);
  });
});

describe('verifyExitCode: a verify run of one target', () => {
  const budget = { checks: 1, characters: 10, maxCharacters: 5000 };
  const pass = { status: 'pass', missing: [], forbidden: [] } as unknown as CheckResult;
  const fail = { status: 'fail', missing: ['x'], forbidden: [] } as unknown as CheckResult;
  it.each<[VerifyOutcome, number]>([
    [{ kind: 'no_checks', target }, 0],
    [{ kind: 'verified', target, budget, results: [pass, pass] }, 0],
    [{ kind: 'verified', target, budget, results: [pass, fail] }, 8],
    [{ kind: 'over_cap', target, budget }, 4],
    [{ kind: 'refused', target, error }, 7],
    [{ kind: 'interrupted', target }, 130],
  ])('%o → %i', (outcome, code) => {
    expect(verifyExitCode(outcome)).toBe(code);
  });
});
