import { acquireLock, type HeldLock } from '../apply/lock.js';
import { checkOperationGraph } from '../apply/execute-plan.js';
import { refreshForFiles } from '../config/resources-for-files.js';
import type { Diagnostic } from '../lib/diagnostics.js';
import { InputError, isTermsyncError, type TermsyncError } from '../lib/errors.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import type { Plan } from '../model/plan.js';
import type { KeepIds, RefreshSelection } from '../plan/index.js';
import type { ServiceContext } from './open-client.js';
import type { RunOutcome, TargetOutcome } from './outcome.js';
import { reconcileTarget, type ReconcileMode, type ReconcileObserver } from './reconcile-target.js';
import { loadDesired, type LoadedRepository } from './load-desired.js';

/** Which entries a run re-reads: all of them, or only those of the resources whose files changed. */
export type RefreshRequest = { readonly kind: 'all' } | { readonly kind: 'changed'; readonly files: readonly string[] };

export interface ReconcileRequest {
  /** The repository root (absolute). */
  readonly dir: string;
  /** The project config (absolute); default: `config/termsync.yaml`, then `termsync.yaml`. */
  readonly configPath?: string;
  readonly mode: ReconcileMode;
  /** Targets only planned whatever `mode` says (the daemon's suspended targets). */
  readonly planOnly?: (target: TargetConfig) => boolean;
  /** One target by name (default: every target of the config). */
  readonly target?: string;
  /** `apply` exactly this plan, or nothing if the service changed since it was made. */
  readonly savedPlan?: Plan;
  /** Default: all. */
  readonly refresh?: RefreshRequest;
  /** The ids file of the last apply: among live duplicates of a declared name, the one it names is kept. */
  readonly keepIds?: KeepIds;
  /** Hold the repository's lock while the run talks to the service (default: in `apply` mode). */
  readonly lock?: boolean;
  /**
   * Hash the live entries into the plan's fingerprints (default: true). Only a plan that may be saved
   * or shown as JSON needs them; a plan that is only shown or applied at once leaves them out.
   */
  readonly entryHashes?: boolean;
  /** A check of the request that needs the loaded repository (the CLI's option rules); a message rejects it. */
  readonly checkTargets?: (targets: readonly TargetConfig[]) => TermsyncError | undefined;
}

/** The targets a run covers: one by name, or all. */
export function selectTargets(desired: DesiredState, name: string | undefined): TargetConfig[] {
  const targets = desired.config.targets;
  if (name === undefined) return [...targets];
  const found = targets.find((t) => t.name === name);
  if (!found) {
    throw new InputError('unknown_target', `expected --target to be one of ${targets.map((t) => `"${t.name}"`).join(', ')}, got "${name}"`);
  }
  return [found];
}

function checkSavedPlan(desired: DesiredState, saved: Plan, target: string | undefined): void {
  if (target !== undefined && target !== saved.target) {
    throw new InputError('target_mismatch', `the saved plan is for target "${saved.target}", not "${target}"`);
  }
  if (!desired.config.targets.some((t) => t.name === saved.target)) {
    throw new InputError('unknown_target', `the saved plan is for target "${saved.target}", which the project config does not declare`);
  }
  checkOperationGraph(saved.operations);
}

/** What a run re-reads: undefined (everything), or what the changed files touch. */
export function refreshSelection(desired: DesiredState, refresh: RefreshRequest | undefined): RefreshSelection | undefined {
  if (refresh === undefined || refresh.kind === 'all') return undefined;
  return refreshForFiles(desired, refresh.files);
}

/**
 * The pipeline's one owner: load the repository (refusing one with any error), select the targets,
 * take the lock, and reconcile each target in turn. Returns values for every expected condition;
 * only a bug throws. The CLI and the daemon both call this.
 */
export async function reconcile(request: ReconcileRequest, ctx: ServiceContext, observer: ReconcileObserver = {}): Promise<RunOutcome> {
  let loaded: LoadedRepository;
  try {
    loaded = await loadDesired(request.dir, request.configPath, ctx.stop ?? ctx.signal, { requestBound: true, deferEntries: request.mode === 'plan', env: ctx.env });
  } catch (error) {
    // SIGINT/SIGTERM while the repository was read: no target was reached (exit 130).
    if (isTermsyncError(error) && error.code === 'interrupted') return { kind: 'rejected', error, diagnostics: [] };
    throw error;
  }
  const { desired, diagnostics } = loaded;
  observer.loaded?.(diagnostics, desired);
  if (desired === undefined) return { kind: 'invalid', diagnostics };
  return reconcileDesired(desired, diagnostics, request, ctx, observer);
}

/** `reconcile` on a repository already loaded (the daemon loads it once per change). */
export async function reconcileDesired(
  desired: DesiredState,
  diagnostics: readonly Diagnostic[],
  request: Omit<ReconcileRequest, 'dir' | 'configPath'>,
  ctx: ServiceContext,
  observer: ReconcileObserver = {},
): Promise<RunOutcome> {
  let targets: TargetConfig[];
  try {
    if (request.savedPlan !== undefined) checkSavedPlan(desired, request.savedPlan, request.target);
    targets = selectTargets(desired, request.savedPlan?.target ?? request.target);
    const problem = request.checkTargets?.(targets);
    if (problem !== undefined) throw problem;
  } catch (error) {
    if (isTermsyncError(error)) return { kind: 'rejected', error, diagnostics };
    throw error;
  }

  let lock: HeldLock | undefined;
  if (request.lock ?? request.mode === 'apply') {
    try {
      lock = await acquireLock(desired.root);
    } catch (error) {
      if (isTermsyncError(error) && error.code === 'locked') return { kind: 'locked', error, diagnostics };
      throw error;
    }
  }
  try {
    const refreshed = refreshSelection(desired, request.refresh);
    const outcomes: TargetOutcome[] = [];
    for (const target of targets) {
      const outcome = await reconcileTarget(
        {
          desired,
          target,
          mode: request.planOnly?.(target) === true ? 'plan' : request.mode,
          ...(request.savedPlan === undefined ? {} : { savedPlan: request.savedPlan }),
          ...(refreshed === undefined ? {} : { refreshed }),
          ...(request.entryHashes === undefined ? {} : { entryHashes: request.entryHashes }),
          ...(request.keepIds === undefined ? {} : { keepIds: request.keepIds }),
        },
        ctx,
        observer,
      );
      observer.finished?.(outcome);
      outcomes.push(outcome);
    }
    return { kind: 'done', desired, diagnostics, targets: outcomes };
  } finally {
    await lock?.release();
  }
}
