import { isServiceAuthError, isServiceError, type ServiceClient } from '../api/index.js';
import { managedNamesOf } from '../apply/collect-ids.js';
import { executePlan } from '../apply/execute-plan.js';
import type { Diagnostic } from '../lib/diagnostics.js';
import { AuthError, InputError, isTermsyncError } from '../lib/errors.js';
import { declaredV2Names, fetchLive, type CompareDictionary, type LiveReader } from '../live/fetch-live.js';
import { dictionariesOfFingerprints } from '../live/select-dictionaries.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import type { LiveState } from '../model/live.js';
import { PackedEntries } from '../model/packed-entries.js';
import type { Plan } from '../model/plan.js';
import { compareDictionary } from '../plan/compare/index.js';
import { compareFingerprints, createPlan, fingerprintLive, selectRefresh, type KeepIds, type RefreshScope, type RefreshSelection } from '../plan/index.js';
import { openClient, type ServiceContext } from './open-client.js';
import type { TargetFailure, TargetOutcome } from './outcome.js';

export type ReconcileMode = 'plan' | 'apply';

/** Callbacks for whoever shows progress (the CLI prints the plan before it is applied). */
export interface ReconcileObserver {
  /** The repository was read: its diagnostics (warnings only, when the run goes on), and what it declares when it has no error. */
  loaded?(diagnostics: readonly Diagnostic[], desired?: DesiredState): void;
  /** A target's plan, before anything is written. */
  planned?(target: string, plan: Plan): void;
  /** A target is finished. */
  finished?(outcome: TargetOutcome): void;
}

/**
 * The live fetch's comparison: the planner's (plan/compare/), given the loader's read of a deferred
 * entries file (its DeferredText) as the handle to read it again with.
 */
export const compareWithRepository: CompareDictionary = (expected, read, hashed) =>
  compareDictionary(expected, read, { hashed, ...(expected instanceof PackedEntries && expected.deferredText !== undefined ? { reread: expected.deferredText } : {}) });

/**
 * Reads the live state the plan needs and makes the plan. `refreshed`: what is re-read (undefined:
 * every declared dictionary); the rest is planned from the listings alone.
 */
export async function planTarget(
  client: LiveReader,
  desired: DesiredState,
  target: string,
  refreshed?: RefreshSelection,
  keepIds?: KeepIds,
  entryHashes = true,
): Promise<{ plan: Plan; live: LiveState }> {
  let scope: RefreshScope | undefined;
  const live = await fetchLive(
    client,
    (glossaries) => {
      scope = selectRefresh(desired, glossaries, refreshed, keepIds);
      return scope.toRead;
    },
    declaredV2Names(desired),
    { hashes: entryHashes, compare: compareWithRepository },
  );
  const refresh = refreshed === undefined || scope === undefined ? undefined : { assumed: scope.assumed, notRefreshed: scope.notRefreshed };
  return { plan: createPlan({ target, desired, live, entryHashes, ...(refresh === undefined ? {} : { refresh }), ...(keepIds === undefined ? {} : { keepIds }) }), live };
}

/**
 * An expected failure of talking to a target as an outcome: the key or URL missing or not allowed,
 * the key refused, the service unreachable or failing, the run interrupted. Anything else is a bug
 * and is thrown on.
 */
export function failureOf(target: string, error: unknown, signal: AbortSignal): TargetFailure {
  if (signal.aborted && (!isTermsyncError(error) || error.code === 'aborted')) return { kind: 'interrupted', target };
  if (isServiceAuthError(error)) return { kind: 'refused', target, error };
  if (isServiceError(error)) return error.code === 'aborted' ? { kind: 'interrupted', target } : { kind: 'unreachable', target, error };
  if (error instanceof AuthError) return { kind: 'misconfigured', target, problem: 'credentials', error };
  if (error instanceof InputError) return { kind: 'misconfigured', target, problem: 'environment', error };
  throw error;
}

/**
 * Runs `work` with a client for `target`, closed afterwards. Expected failures (see `failureOf`)
 * become an outcome; `work`'s own outcome is returned as is.
 */
export async function withTargetClient<T>(
  ctx: ServiceContext,
  desired: DesiredState,
  target: TargetConfig,
  work: (client: ServiceClient) => Promise<T>,
): Promise<T | TargetFailure> {
  let client: ServiceClient;
  try {
    client = openClient(ctx, desired, target);
  } catch (error) {
    return failureOf(target.name, error, ctx.stop ?? ctx.signal);
  }
  try {
    return await work(client);
  } catch (error) {
    return failureOf(target.name, error, ctx.stop ?? ctx.signal);
  } finally {
    await client.close();
  }
}

export interface TargetRequest {
  readonly desired: DesiredState;
  readonly target: TargetConfig;
  readonly mode: ReconcileMode;
  /** Apply exactly this plan (checked against the live state first). */
  readonly savedPlan?: Plan;
  /** What is re-read (undefined: every declared dictionary). */
  readonly refreshed?: RefreshSelection;
  /** Hash the live entries into the plan's fingerprints (default: true; see ReconcileRequest). */
  readonly entryHashes?: boolean;
  /** Among live duplicates of a declared name, the ids to keep (the last `--ids-out`). */
  readonly keepIds?: KeepIds;
}

/**
 * One reconcile of one target: read the live state, plan (or check a saved plan's fingerprints),
 * check the guards, and in `apply` mode execute. Always returns an outcome for expected conditions.
 */
export async function reconcileTarget(request: TargetRequest, ctx: ServiceContext, observer: ReconcileObserver = {}): Promise<TargetOutcome> {
  const { desired, target, savedPlan } = request;
  const name = target.name;
  const stop = ctx.stop ?? ctx.signal;
  if (stop.aborted) return { kind: 'interrupted', target: name };
  return withTargetClient(ctx, desired, target, async (client): Promise<TargetOutcome> => {
    let plan: Plan;
    let live: LiveState;
    if (savedPlan !== undefined) {
      plan = savedPlan;
      live = await fetchLive(client, (glossaries) => dictionariesOfFingerprints(savedPlan.fingerprints, glossaries), declaredV2Names(desired));
      const differences = compareFingerprints(savedPlan.fingerprints, fingerprintLive(live));
      if (differences.length > 0) return { kind: 'stale', target: name, plan, differences };
    } else {
      ({ plan, live } = await planTarget(client, desired, name, request.refreshed, request.keepIds, request.entryHashes ?? true));
    }
    observer.planned?.(name, plan);
    if (plan.guards.length > 0) return { kind: 'blocked', target: name, plan };
    if (request.mode === 'plan') return plan.operations.length === 0 ? { kind: 'converged', target: name, plan } : { kind: 'pending', target: name, plan };

    const { result, refusal } = await executePlan({ plan, client, live, managed: managedNamesOf(desired), signal: stop, logger: ctx.logger });
    if (refusal !== undefined) return { kind: 'refused', target: name, plan, result, refusal };
    if (result.failed + result.skipped > 0) return stop.aborted ? { kind: 'interrupted', target: name, plan, result } : { kind: 'partial', target: name, plan, result };
    return plan.operations.length === 0 ? { kind: 'converged', target: name, plan, result } : { kind: 'changed', target: name, plan, result };
  });
}
