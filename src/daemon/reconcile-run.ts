import type { LoadMemo } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import { isTermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { loadDesired, type LoadedRepository, type ReconcileMode, type RunOutcome } from '../reconcile/index.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { RunHistory } from './dashboard/run-history.js';
import type { DaemonStatus, SuspendedTarget } from './daemon-status.js';
import type { DriftPull } from './drift-pull.js';
import type { GitSource } from './git-source.js';
import { diagnosticsLog } from './log-run.js';
import type { RepositoryRoot } from './repository-root.js';
import { endOf, type RunEnd } from './run-end.js';
import { owns, type Shard } from './shard.js';
import type { LoadedDesired } from './target-run.js';
import type { RunRequest, Trigger } from './triggers.js';
import type { FileWatcher } from './watch-files.js';

export type { RunEnd } from './run-end.js';

export interface RunParts {
  readonly dir: string;
  readonly configPath?: string;
  readonly target?: string;
  /** This replica's share of the targets (`--shard`). */
  readonly shard?: Shard;
  readonly onDrift: 'apply' | 'report' | 'pull';
  /** `--suspend`: every target is only planned, whatever the config says. */
  readonly suspend: boolean;
  readonly clock: Clock;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  readonly root: RepositoryRoot;
  /** With --git-pull. */
  readonly git?: GitSource;
  /** With --on-drift pull. */
  readonly drift?: DriftPull;
  /** The dashboard's run history (with its endpoints). */
  readonly history?: RunHistory;
  /** Follows a loaded config (the watched paths, the schedule); undefined: the repository has errors. */
  readonly follow: (desired: DesiredState | undefined) => void;
  /** Told how a load that reached no target ended (an invalid repository waits for a change). */
  readonly ended: (end: RunEnd) => void;
  /** Waits until no target run is in progress (before a drift pull writes the repository's files). */
  readonly quiesce: () => Promise<void>;
  /**
   * The file watcher, when its events start the runs (not with --git-pull): a run a change started
   * does not read again the files it reported no change of (see `vouched`).
   */
  readonly watch?: Pick<FileWatcher, 'unbroken' | 'reports'>;
  /** The first load, already begun (DaemonOptions.firstLoad): the first run takes it. */
  readonly firstLoad?: Promise<LoadedRepository>;
  /** The daemon's stop: a load in progress stops after the file in hand, and its run ends there (logged, not a failed run). */
  readonly signal?: AbortSignal;
  /** Hands the loaded repository to the targets' runs: each target this daemon owns runs the request. */
  readonly fanOut: (request: RunRequest, loaded: LoadedDesired, mode: ReconcileMode) => void;
}

/**
 * The files a run that `changed` started may take as they were at the last load without reading
 * them: those the watcher reports, but for the changed ones, when the watch has been on without a
 * break since before that load began (`since`: every change since is then in `changed`, or in a
 * batch of the watcher that starts the next run). Undefined: every file is read (and digested).
 */
function vouched(watch: RunParts['watch'], changed: ReadonlySet<string> | undefined, since: number | undefined): ((file: string) => boolean) | undefined {
  if (watch === undefined || changed === undefined || since === undefined || watch.unbroken() !== since) return undefined;
  return (file) => !changed.has(file) && watch.reports(file);
}

/** Whether `error` ends a load that the daemon's stop (`signal`: SIGTERM/SIGINT) interrupted: the run ends there, not a failed run. */
function stoppedLoad(signal: AbortSignal | undefined, error: unknown): boolean {
  return signal?.aborted === true && isTermsyncError(error) && error.code === 'interrupted';
}

/** What suspends `target` (`--suspend`, the config's `suspend: true`, the target's), if anything does. */
export function suspensionOf(desired: DesiredState, target: TargetConfig, flag: boolean): SuspendedTarget['by'] | undefined {
  if (flag) return 'flag';
  if (desired.config.suspend === true) return 'config';
  if (target.suspend === true) return 'target';
  return undefined;
}

/**
 * The repository side of a daemon run, for one work-queue request: bring the checkout to the
 * revision to read (git mode), read the repository (reusing what did not change), adopt the
 * service's edits (`--on-drift pull`), then hand it to the runs of the targets (target-run.ts),
 * which go side by side. The request says how much to read again, never what changed on either
 * side: everything is read anew.
 */
export function createRunner(parts: RunParts): (request: RunRequest) => Promise<void> {
  const { clock, status, metrics, logger: log } = parts;
  const logDiagnostics = diagnosticsLog(log);
  /**
   * What the last load kept for the next (incremental reload: a file whose bytes did not change is
   * not parsed again, see config/load-memo.ts). Held by one load at a time: set aside while a load
   * runs, replaced by its memo after.
   */
  let memo: LoadMemo | undefined;
  /** The watch that was on, unbroken, when the load that made `memo` began (see FileWatcher.unbroken). */
  let memoWatch: number | undefined;
  /** The targets the daemon covers, as the last valid load said (the run metrics' `target` of a run that reached none). */
  let covered: readonly string[] = parts.target === undefined ? [] : [parts.target];
  /** Targets suspended as of the last valid load: a change is logged. */
  let suspendedBefore = '';
  /** RunParts.firstLoad, begun before the watcher existed and after the time its catch-up starts from: the watch it began under is the one on now. */
  let first = parts.firstLoad && { loaded: parts.firstLoad, watch: parts.watch?.unbroken() };

  /** Follows the config's suspension (and --suspend) for the targets the daemon covers: /status, the metric, a log line when it changes. */
  const followSuspension = (desired: DesiredState): ReadonlySet<string> => {
    const targets = desired.config.targets.filter((t) => (parts.target === undefined || t.name === parts.target) && owns(parts.shard, t.name));
    covered = targets.map((t) => t.name);
    const suspended = targets.flatMap((t): SuspendedTarget[] => {
      const by = suspensionOf(desired, t, parts.suspend);
      return by === undefined ? [] : [{ target: t.name, by }];
    });
    status.update({ suspended });
    metrics.setSuspended(targets.map((t) => ({ target: t.name, suspended: suspended.some((s) => s.target === t.name) })));
    const names = suspended.map((s) => s.target).join(', ');
    if (names !== suspendedBefore) {
      if (names !== '') log.info({ targets: suspended }, 'suspended: differences are planned and reported, nothing is written');
      else log.info('resumed: differences are applied again');
      suspendedBefore = names;
    }
    return new Set(suspended.map((s) => s.target));
  };

  /**
   * Reads the repository, reusing what the last load kept unless `fresh` (SIGHUP: a full reload reads
   * every file); `changed`: the files the watcher reported, for a run they started (the others it
   * reports are not read again, see `vouched`).
   */
  const load = async (fresh: boolean, changed?: ReadonlySet<string>): Promise<LoadedRepository> => {
    const previous = fresh ? undefined : memo;
    const unchanged = previous === undefined ? undefined : vouched(parts.watch, changed, memoWatch);
    memo = undefined;
    const begun = first;
    first = undefined;
    const watching = begun === undefined ? parts.watch?.unbroken() : begun.watch;
    const loaded = await (begun?.loaded ?? loadDesired(parts.dir, parts.configPath, parts.signal, { remember: true, ...(previous === undefined ? {} : { previous }), ...(unchanged === undefined ? {} : { vouched: unchanged }) }));
    memo = loaded.memo;
    memoWatch = watching;
    if (memo !== undefined) {
      metrics.recordLoad(memo.reused, memo.read);
      log.debug({ reused: memo.reused, read: memo.read, unread: memo.unread }, 'repository loaded');
    }
    status.setRepository(loaded.diagnostics);
    metrics.setRepositoryValid(loaded.desired !== undefined);
    logDiagnostics(loaded.diagnostics);
    return loaded;
  };

  /** Records a load that reached no target (an invalid repository): for each target the daemon covers. */
  const finish = (trigger: Trigger, startedAt: number, run: RunOutcome, files?: number): void => {
    const duration = clock.now() - startedAt;
    const report = status.recordRun(trigger, startedAt, duration, run, files);
    parts.history?.record(report, run);
    for (const target of covered.length === 0 ? [''] : covered) metrics.recordRun(trigger, target, report.result, duration / 1000);
    metrics.setReady(status.readiness().ready);
    parts.ended(endOf(report.result));
  };

  const invalid = (trigger: Trigger, startedAt: number, loaded: LoadedRepository, files?: number): void => {
    finish(trigger, startedAt, { kind: 'invalid', diagnostics: loaded.diagnostics }, files);
    log.error({ trigger, errors: status.repository?.errors }, 'the repository has errors: nothing was sent; waiting for the next change');
  };

  /** `--on-drift pull` on a full run: the repository to apply (read again once the files hold the service's edits), and whether the run may write. */
  const adoptDrift = async (loaded: LoadedRepository & { desired: DesiredState }): Promise<{ loaded: LoadedRepository; mode: ReconcileMode }> => {
    if (parts.drift === undefined) return { loaded, mode: 'apply' };
    // The pull writes the repository's files and takes the lock: no target run may be in progress.
    await parts.quiesce();
    const decision = await parts.drift.pull(loaded.desired);
    if (decision?.kind === 'held') return { loaded, mode: 'plan' };
    if (decision?.kind === 'written') return { loaded: await load(false), mode: 'apply' };
    return { loaded, mode: 'apply' };
  };

  const reconcileFiles = async (request: RunRequest, files: readonly string[]): Promise<void> => {
    const { trigger, full } = request;
    // A pull that brought nothing is not a reconcile: the run starts here.
    const startedAt = clock.now();
    await parts.root.note();
    status.update({ running: { trigger, startedAt: new Date(startedAt).toISOString() } });
    // Only a run the watcher's events started (nothing but them folded in) knows every file that changed.
    const changed = request.trigger === 'files' && !request.full && !request.fresh && !request.fetch && parts.git === undefined ? new Set(files) : undefined;
    let loaded = await load(request.fresh, changed);
    parts.follow(loaded.desired);
    if (loaded.desired === undefined) return invalid(trigger, startedAt, loaded, files.length);
    const suspended = followSuspension(loaded.desired);
    let mode: ReconcileMode = parts.onDrift === 'report' ? 'plan' : 'apply';
    // A suspended target gets no drift pull either: it would write the repository (and push a branch).
    if (parts.onDrift === 'pull' && full && suspended.size === 0) ({ loaded, mode } = await adoptDrift({ ...loaded, desired: loaded.desired }));
    // The files as pulled have errors (pull checks against that first): nothing is applied over the service.
    if (loaded.desired === undefined) return invalid(trigger, startedAt, loaded, files.length);
    parts.fanOut({ ...request, files: new Set(files) }, { desired: loaded.desired, diagnostics: loaded.diagnostics, suspended }, mode);
  };

  return async (request) => {
    try {
      const files = parts.git === undefined ? [...request.files] : await parts.git.prepare(request);
      if (files !== undefined) await reconcileFiles(request, files);
    } catch (error) {
      if (!stoppedLoad(parts.signal, error)) throw error;
      log.info({ trigger: request.trigger }, 'stopped while reading the repository: the run ended before any target, nothing was sent');
    } finally {
      status.update({ running: undefined });
    }
  };
}
