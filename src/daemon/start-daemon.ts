import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { createTask, type ScheduledTask } from 'node-cron';
import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import type { Diagnostic } from '../lib/diagnostics.js';
import { displayText } from '../lib/display.js';
import { isTermsyncError, TermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { KeyRedactor } from '../lib/redact-keys.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { resourcesForFiles, type LoadMemo } from '../config/index.js';
import { hasDrift } from '../model/drift.js';
import { isSuccess, loadDesired, pullTarget, reconcileDesired, selectTargets, verifyTarget, type Env, type LoadedRepository, type RunOutcome, type TargetOutcome } from '../reconcile/index.js';
import { renderDriftText } from '../report/index.js';
import { pushDriftBranch, recordOverlay, restoreOverlay, setOverlayAside, type Overlay } from './drift-branch.js';
import { createDaemonMetrics, type DaemonMetrics, type Trigger } from './daemon-metrics.js';
import { DaemonStatus, runResultOf, verifyResultOf } from './daemon-status.js';
import { changedBetween, headOf, pullRepository } from './git-pull.js';
import { commitsNotUpstream, setLocalEditsAside } from './local-edits.js';
import { isLoopback, serveEndpoints, type Endpoints } from './serve-endpoints.js';
import { watchFiles, type FileWatcher } from './watch-files.js';

export interface DaemonOptions {
  /** The repository root (absolute). */
  readonly dir: string;
  /** The project config (absolute), when not the default. */
  readonly configPath?: string;
  readonly env: Env;
  /** One target by name (default: every target of the config). */
  readonly target?: string;
  readonly logger: Logger;
  /** Where the endpoints listen; undefined: no HTTP server. */
  readonly listen?: { readonly host: string; readonly port: number };
  /** Fetch and fast-forward every this many ms, and before each scheduled run. */
  readonly gitPullMs?: number;
  /**
   * What a full reconcile (start-up, schedule, reload, retry) does with differences: `apply` them
   * (default), only `report` them (plan, never write), or `pull` them into the repository's files
   * (then apply what is left: resources missing on the service). With `gitPullMs`, pulled files are
   * committed to a branch `termsync/drift-<date>` and pushed, never to the branch the daemon reads.
   */
  readonly onDrift?: 'apply' | 'report' | 'pull';
  /** Run the glossary tests of the glossaries a reconcile changed (default true). */
  readonly verify?: boolean;
  /** Overrides the config's `schedule` (cron, 5 or 6 fields). */
  readonly schedule?: string;
  readonly debounceMs?: number;
  /** How long a stop lets the running operations finish before it aborts them. */
  readonly stopGraceMs?: number;
  /** First back-off after a failed run; it doubles up to `retryMaxMs`. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly usePolling?: boolean;
  /**
   * How often to check whether the repository root now resolves elsewhere (a git-sync sidecar swaps a
   * symbolic link to each new checkout; file events of the old one say nothing). Default 2 s.
   */
  readonly rootCheckMs?: number;
  readonly clock?: Clock;
  /** Default: a new registry with Node's process metrics. */
  readonly metrics?: DaemonMetrics;
  /** The keys read for the targets, taken out of what the endpoints serve and the drift commits say. */
  readonly keys?: KeyRedactor;
}

export interface Daemon {
  /** The endpoints' base URL, when serving. */
  readonly url?: string;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  /** Asks for a reconcile (SIGHUP: `reload`, a full one). */
  trigger(trigger: Trigger, files?: readonly string[]): void;
  /** Resolves when no run is queued or running (tests). */
  idle(): Promise<void>;
  /** Stops taking work, lets the running operation finish (bounded), releases the lock, closes. */
  stop(): Promise<void>;
}

/** What is queued: a full reconcile, or the files that changed since the last run. */
interface Pending {
  trigger: Trigger;
  full: boolean;
  /** A SIGHUP is among what is queued: the run reads every file (reuses nothing of the last load), whichever trigger it is labelled with. */
  fresh: boolean;
  files: Set<string>;
}

const FULL_TRIGGERS: ReadonlySet<Trigger> = new Set(['startup', 'schedule', 'retry', 'reload']);

/**
 * The daemon: a level-based loop around `reconcile`. Triggers (start-up, file changes, the schedule,
 * git pulls, SIGHUP, retries) queue a key, never a diff; each run re-reads the repository and the
 * service; keys that arrive during a run coalesce into one more run; one run at a time.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const log = options.logger;
  const metrics = options.metrics ?? createDaemonMetrics();
  const status = new DaemonStatus(clock.now());
  const drain = new AbortController();
  const hard = new AbortController();
  const keys = options.keys === undefined ? {} : { keys: options.keys };
  const retryBaseMs = options.retryBaseMs ?? 5_000;
  const retryMaxMs = options.retryMaxMs ?? 300_000;
  let pending: Pending | undefined;
  let loop: Promise<void> | undefined;
  let stopping = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let pullTimer: NodeJS.Timeout | undefined;
  let cron: { readonly expression: string; readonly task: ScheduledTask } | undefined;
  let pulling = false;
  let lastDiagnostics = '';
  /** Files a drift pull wrote that the branch the daemon reads does not hold yet (with --git-pull). */
  const overlay: Overlay = new Map();
  /** The tree of the last drift branch pushed: the same drift found again is not pushed twice. */
  let pushedTree: string | undefined;
  /**
   * What the last load kept for the next (incremental reload: a file whose bytes did not change is
   * not parsed again, see config/load-memo.ts). Held by one load at a time: set aside while a load
   * runs, replaced by its memo after.
   */
  let memo: LoadMemo | undefined;
  /** Where the root resolved at the last run, and its git HEAD when the root is a link (git-sync). */
  let root: { real: string; head?: string } | undefined;

  const trigger = (kind: Trigger, files: readonly string[] = []): void => {
    if (stopping) return;
    const full = FULL_TRIGGERS.has(kind);
    if (pending === undefined) pending = { trigger: kind, full, fresh: kind === 'reload', files: new Set(files) };
    else {
      if (full && !pending.full) pending.trigger = kind;
      pending.full ||= full;
      pending.fresh ||= kind === 'reload';
      for (const f of files) pending.files.add(f);
    }
    loop ??= drainQueue().finally(() => {
      loop = undefined;
    });
  };

  const watcher: FileWatcher = watchFiles({
    root: () => root?.real ?? options.dir,
    debounceMs: options.debounceMs ?? 300,
    maxWaitMs: Math.max(2_000, (options.debounceMs ?? 300) * 4),
    writeFinishMs: 100,
    logger: log,
    ...(options.usePolling === undefined ? {} : { usePolling: options.usePolling }),
    onChange: (files) => {
      // A pull's own run covers what it changed; events from a merge in progress are not a tree to act on.
      // With --git-pull only commits are applied: an edit of the working tree is not (see keepCommitted).
      if (pulling || options.gitPullMs !== undefined) return;
      log.debug({ files: files.length }, 'files changed');
      trigger('files', files);
    },
  });

  const schedule = (desired: DesiredState | undefined): void => {
    const expression = options.schedule ?? desired?.config.schedule;
    if (expression === cron?.expression) return;
    void cron?.task.destroy();
    cron = undefined;
    status.schedule = expression;
    if (expression === undefined || stopping) return;
    const task = createTask(expression, () => trigger('schedule'), {
      name: 'termsync-full-reconcile',
      noOverlap: true,
      logger: { info: () => undefined, debug: () => undefined, warn: (m) => log.warn({ cron: String(m) }, 'schedule'), error: (m) => log.error({ cron: String(m) }, 'schedule') },
    });
    void task.start();
    cron = { expression, task };
    log.info({ schedule: expression }, 'full reconcile scheduled');
  };

  const watchPaths = (desired: DesiredState | undefined): void => {
    // Through the root's real path: after a link swap the watcher moves to the new checkout.
    const base = root?.real ?? options.dir;
    const folders = desired?.config.resources ?? ['glossaries'];
    const config = options.configPath ?? path.join(base, desired?.configFile ?? 'config/termsync.yaml');
    watcher.setPaths([...folders.map((f) => path.resolve(base, f)), config]);
  };

  /** Records where the root resolves now (and, for a linked root, its HEAD, to diff the next swap against). */
  const noteRoot = async (): Promise<void> => {
    const real = await realpath(options.dir).catch(() => undefined);
    if (real === undefined) return;
    const linked = real !== path.resolve(options.dir);
    const head = linked ? await headOf(real, options.env).catch(() => undefined) : undefined;
    root = head === undefined ? { real } : { real, head };
  };

  /** A root that now resolves elsewhere: reconcile what differs between the two checkouts (all, if git cannot tell). */
  const checkRoot = async (): Promise<void> => {
    if (root === undefined || stopping) return;
    const real = await realpath(options.dir).catch(() => undefined);
    if (real === undefined || real === root.real) return;
    const before = root.head;
    const files = before === undefined ? undefined : await changedBetween(real, before, options.env).catch(() => undefined);
    log.info({ files: files?.length ?? 'all' }, 'the repository root moved to a new checkout');
    root = { real };
    if (files === undefined) trigger('reload');
    else if (files.length > 0) trigger('files', files);
  };

  const logDiagnostics = (diagnostics: readonly Diagnostic[]): void => {
    // Printed once per distinct set, not on every run of an unchanged broken repository.
    const key = diagnostics.map((d) => `${d.file}:${d.line}:${d.column}:${d.code}`).join('\n');
    if (key === lastDiagnostics) return;
    lastDiagnostics = key;
    for (const d of diagnostics) {
      const entry = { file: d.file, line: d.line, column: d.column, ...(d.cell === undefined ? {} : { cell: d.cell }), code: d.code };
      // The message is the line a pretty log prints as it is: one line, whatever it names (displayText).
      if (d.severity === 'error') log.error(entry, displayText(d.message));
      else log.warn(entry, displayText(d.message));
    }
  };

  const scheduleRetry = (): void => {
    failures++;
    const delay = Math.min(retryMaxMs, retryBaseMs * 2 ** (failures - 1));
    clearTimeout(retryTimer);
    status.nextRetryAt = new Date(clock.now() + delay).toISOString();
    log.warn({ retryInMs: delay, failures }, 'reconcile failed; retrying with back-off');
    retryTimer = setTimeout(() => {
      status.nextRetryAt = undefined;
      trigger('retry');
    }, delay);
  };

  const logOutcome = (trigger: Trigger, outcome: TargetOutcome, ms: number): void => {
    const plan = 'plan' in outcome ? outcome.plan : undefined;
    const result = 'result' in outcome ? outcome.result : undefined;
    const fields = {
      trigger,
      target: outcome.target,
      result: outcome.kind,
      durationMs: ms,
      ...(plan === undefined ? {} : { add: plan.summary.add, change: plan.summary.change, destroy: plan.summary.destroy, calls: plan.summary.calls }),
      ...(plan?.notRefreshed === undefined ? {} : { notRefreshed: plan.notRefreshed }),
      ...(result === undefined ? {} : { applied: result.applied, failed: result.failed, skipped: result.skipped }),
      ...('error' in outcome && outcome.error !== undefined ? { error: outcome.error.message } : {}),
    };
    const summary = plan === undefined ? outcome.kind : `Plan: ${plan.summary.add} to add, ${plan.summary.change} to change, ${plan.summary.destroy} to destroy.`;
    if (isSuccess(outcome) || outcome.kind === 'pending') log.info(fields, `reconcile ${outcome.kind}: ${summary}`);
    else log.warn(fields, `reconcile ${outcome.kind}: ${summary}`);
  };

  /** Reads the repository, reusing what the last load kept unless `fresh` (SIGHUP: a full reload reads every file). */
  const load = async (fresh: boolean): Promise<LoadedRepository> => {
    const previous = fresh ? undefined : memo;
    memo = undefined;
    const loaded = await loadDesired(options.dir, options.configPath, undefined, { remember: true, ...(previous === undefined ? {} : { previous }) });
    memo = loaded.memo;
    if (memo !== undefined) {
      metrics.recordLoad(memo.reused, memo.read);
      log.debug({ reused: memo.reused, read: memo.read }, 'repository loaded');
    }
    return loaded;
  };

  /** A git pull's outcome on /status and in the metrics: from GIT_FAILURES_NOT_READY failures in a row, not ready. */
  const recordGit = (result: { ok: true; head: string } | { ok: false; error: string }): void => {
    const failures = result.ok ? 0 : (status.git?.failures ?? 0) + 1;
    status.git = { ...result, at: new Date(clock.now()).toISOString(), failures };
    metrics.recordGitPull(result.ok, failures);
    metrics.setReady(status.readiness().ready);
  };

  /**
   * With --git-pull, before every run: edits of the working tree that are not committed (other than
   * this daemon's own drift files) are set aside in a git stash, so that what is read and applied is
   * the committed revision. False when they could not be: nothing runs (counted as a failed pull).
   */
  const keepCommitted = async (): Promise<boolean> => {
    try {
      const aside = await setLocalEditsAside(options.dir, new Set(overlay.keys()), new Date(clock.now()), { env: options.env, signal: hard.signal });
      if (aside !== undefined) {
        status.localEdits = { at: new Date(clock.now()).toISOString(), ...aside };
        metrics.recordLocalEdits(aside.files.length);
        log.warn(
          { files: aside.files.slice(0, 20), count: aside.files.length, stash: aside.stash.slice(0, 12) },
          'local edits of the working tree set aside in a git stash, not applied: with --git-pull only what is committed is applied (git stash list shows them)',
        );
      }
      return true;
    } catch (error) {
      if (!isTermsyncError(error)) throw error;
      recordGit({ ok: false, error: `local edits could not be set aside: ${error.message}` });
      log.error({ err: error.message }, 'local edits of the working tree could not be set aside: nothing is applied until they are committed or undone');
      return false;
    }
  };

  /**
   * With --git-pull: commits made in the clone that its upstream lacks are not applied either.
   * Undefined when there are none (or git cannot tell: then the pull says why); else what to say.
   */
  const notOnUpstream = async (): Promise<string | undefined> => {
    const ahead = await commitsNotUpstream(options.dir, { env: options.env, signal: hard.signal });
    if (ahead === undefined || ahead === 0) return undefined;
    return `the checkout holds ${ahead} ${ahead === 1 ? 'commit' : 'commits'} its upstream does not have: only the upstream's revision is applied (push them, or reset the checkout to its upstream)`;
  };

  const runOnce = async (job: Pending): Promise<void> => {
    let startedAt = clock.now();
    let files = [...job.files];
    const full = job.full;
    let pullFailed = false;
    try {
      if (options.gitPullMs !== undefined && !(await keepCommitted())) return;
      if (options.gitPullMs !== undefined && (job.trigger === 'startup' || job.trigger === 'schedule' || job.trigger === 'git')) {
        pulling = true;
        try {
          const gitOptions = { env: options.env, signal: hard.signal };
          let pulled: Awaited<ReturnType<typeof pullRepository>>;
          // Files a drift pull wrote would stop a fast-forward: set aside, and put back unless the pull changed them.
          if (overlay.size > 0) await setOverlayAside(options.dir, overlay, gitOptions);
          try {
            pulled = await pullRepository(options.dir, gitOptions);
          } finally {
            if (overlay.size > 0) await restoreOverlay(options.dir, overlay, gitOptions);
          }
          // Fetched and fast-forwarded, yet ahead of the upstream: not following it, a failed pull.
          const ahead = await notOnUpstream();
          if (ahead !== undefined) throw new TermsyncError('git_failed', ahead);
          recordGit({ ok: true, head: pulled.after });
          if (pulled.files.length > 0) log.info({ from: pulled.before.slice(0, 12), to: pulled.after.slice(0, 12), files: pulled.files.length }, 'pulled new commits');
          files = [...files, ...pulled.files];
          // Nothing came in and nothing else is queued: a pull-only run reconciles nothing.
          if (job.trigger === 'git' && !full && files.length === 0) return;
        } catch (error) {
          if (!isTermsyncError(error)) throw error;
          recordGit({ ok: false, error: error.message });
          pullFailed = true;
          log.warn({ err: error.message, failures: status.git?.failures }, 'git pull failed; the tree was left as it was and the next pull retries');
          // A scheduled run still repairs drift on the tree as it is (it is whole: git left it untouched).
          if (job.trigger === 'git' && !full && files.length === 0) return;
        } finally {
          pulling = false;
        }
      }
      // No run of a tree that holds commits the upstream does not have (a failed pull if none was tried).
      const ahead = options.gitPullMs === undefined ? undefined : await notOnUpstream();
      if (ahead !== undefined) {
        if (!pullFailed) recordGit({ ok: false, error: ahead });
        log.error({ trigger: job.trigger }, `nothing applied: ${ahead}`);
        return;
      }
      // A pull that brought nothing is not a reconcile: the run starts here.
      startedAt = clock.now();
      await noteRoot();
      status.running = { trigger: job.trigger, startedAt: new Date(startedAt).toISOString() };
      const loaded = await load(job.fresh);
      status.setRepository(loaded.diagnostics);
      metrics.setRepositoryValid(loaded.desired !== undefined);
      logDiagnostics(loaded.diagnostics);
      watchPaths(loaded.desired);
      schedule(loaded.desired);
      if (loaded.desired === undefined) {
        const run: RunOutcome = { kind: 'invalid', diagnostics: loaded.diagnostics };
        finish(job.trigger, startedAt, run, files.length);
        log.error({ trigger: job.trigger, errors: status.repository?.errors }, 'the repository has errors: nothing was sent; waiting for the next change');
        return;
      }
      let desired = loaded.desired;
      let diagnostics = loaded.diagnostics;
      if (options.onDrift === 'pull' && full && (await pullDrift(desired))) {
        const again = await load(false);
        if (again.desired !== undefined) ({ desired, diagnostics } = { desired: again.desired, diagnostics: again.diagnostics });
      }
      const refresh = full || files.length === 0 ? { kind: 'all' as const } : { kind: 'changed' as const, files };
      const run = await reconcileDesired(
        desired,
        diagnostics,
        { mode: options.onDrift === 'report' ? 'plan' : 'apply', refresh, lock: true, ...(options.target === undefined ? {} : { target: options.target }) },
        { env: options.env, signal: hard.signal, stop: drain.signal, logger: log, metrics: metrics.client, clock, ...keys },
        {
          finished: (outcome) => {
            metrics.recordTarget(job.trigger, outcome, clock.now());
            logOutcome(job.trigger, outcome, clock.now() - startedAt);
          },
        },
      );
      finish(job.trigger, startedAt, run, refresh.kind === 'changed' ? files.length : undefined);
      if (options.verify !== false && run.kind === 'done') await verifyChanged(desired, run.targets, full ? [] : files);
    } finally {
      status.running = undefined;
    }
  };

  const serviceContext = { env: options.env, signal: hard.signal, stop: drain.signal, logger: log, metrics: metrics.client, clock, ...keys };

  /**
   * The glossary tests of what a reconcile changed: the glossaries it wrote, and those whose files a
   * file-triggered run saw change (edited tests). Reported on /status and in metrics, never as terms.
   */
  const verifyChanged = async (desired: DesiredState, outcomes: readonly TargetOutcome[], files: readonly string[]): Promise<void> => {
    const touched = files.length === 0 ? [] : resourcesForFiles(desired, files).filter((r) => r.kind === 'glossary').map((r) => r.name);
    const declared = new Set(desired.glossaries.map((g) => g.name));
    for (const outcome of outcomes) {
      if ((outcome.kind !== 'changed' && outcome.kind !== 'converged') || drain.signal.aborted) continue;
      const names = new Set(touched);
      for (const change of outcome.plan.changes) if (change.address.kind === 'glossary' && change.action !== 'delete' && declared.has(change.address.name)) names.add(change.address.name);
      const target = desired.config.targets.find((t) => t.name === outcome.target);
      if (names.size === 0 || target === undefined) continue;
      const verified = await verifyTarget({ desired, target, glossaries: names }, serviceContext);
      if (verified.kind === 'no_checks') continue;
      status.recordVerify(verified, clock.now(), [...names], declared);
      const result = verifyResultOf(verified);
      metrics.recordVerify(outcome.target, result, verified.kind === 'verified' ? verified.budget.characters : 0, status.verifyCounts(outcome.target));
      const counts = verified.kind === 'verified' ? { passed: verified.results.filter((r) => r.status === 'pass').length, failed: verified.results.filter((r) => r.status === 'fail').length } : {};
      const fields = { target: outcome.target, verify: result, glossaries: names.size, ...counts, ...(verified.kind === 'verified' || verified.kind === 'over_cap' ? { characters: verified.budget.characters } : {}) };
      if (result === 'passed') log.info(fields, 'verify passed');
      else log.warn(fields, verified.kind === 'over_cap' ? 'verify not run: over verify.max_characters' : `verify ${result}`);
    }
  };

  /**
   * `--on-drift pull` on a full run: the service's edits of declared resources are written into the
   * repository's files before the apply (which then has only what pull leaves: resources missing on
   * the service, prune). With --git-pull they go to a drift branch too. True when files changed.
   */
  const pullDrift = async (desired: DesiredState): Promise<boolean> => {
    let targets: TargetConfig[];
    try {
      targets = selectTargets(desired, options.target);
    } catch {
      return false;
    }
    const [target] = targets;
    const at = new Date(clock.now()).toISOString();
    if (target === undefined || targets.length !== 1) {
      status.drift = { at, target: '', result: 'failed', error: 'pull adopts the state of one target: start the daemon with --target' };
      log.error({ targets: targets.length }, 'on-drift pull needs one target (--target); drift is applied over instead');
      return false;
    }
    const outcome = await pullTarget({ desired, target }, serviceContext);
    if (outcome.kind !== 'pulled') {
      const error = 'error' in outcome && outcome.error !== undefined ? outcome.error.message : outcome.kind;
      status.drift = { at, target: target.name, result: 'failed', error };
      metrics.recordDriftPull(target.name, 'failed');
      const problems = outcome.kind === 'unwritable' && outcome.problems !== undefined ? { problems: outcome.problems.slice(0, 20), problemCount: outcome.problems.length } : {};
      log.warn({ target: target.name, err: error, ...problems }, 'drift pull failed');
      return false;
    }
    const { drift } = outcome;
    if (outcome.written.length === 0) {
      metrics.recordDriftPull(target.name, 'in_sync');
      if (!hasDrift(drift)) status.drift = { at, target: target.name, result: 'in_sync' };
      return false;
    }
    const counts = {
      glossaries: drift.glossaries.length,
      termChanges: drift.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entryChanges.length, 0), 0),
      styleRules: drift.styleRules.length,
    };
    metrics.recordDriftPull(target.name, 'written');
    log.info({ target: target.name, files: outcome.written.length, ...counts }, 'drift pulled: the service edits were written into the repository');
    let branch: string | undefined;
    let error: string | undefined;
    if (options.gitPullMs !== undefined) {
      const gitOptions = { env: options.env, signal: hard.signal };
      try {
        await recordOverlay(options.dir, outcome.written, gitOptions, overlay);
        const drifted = `termsync: adopt edits made on the service (target ${target.name})\n\n${renderDriftText(drift)}`;
        const message = options.keys?.redact(drifted) ?? drifted;
        const pushed = await pushDriftBranch(options.dir, [...overlay.keys()], message, new Date(clock.now()), { ...gitOptions, ...(pushedTree === undefined ? {} : { skipTree: pushedTree }) });
        if (pushed !== undefined) {
          pushedTree = pushed.tree;
          branch = pushed.branch;
          log.info({ branch: pushed.branch, remote: pushed.remote, commit: pushed.commit.slice(0, 12) }, 'drift pushed to a branch for review');
        }
      } catch (caught) {
        if (!isTermsyncError(caught)) throw caught;
        error = caught.message;
        log.warn({ err: caught.message }, 'the drift branch could not be pushed; the files keep the service edits');
      }
    }
    status.drift = { at, target: target.name, result: 'written', files: outcome.written, ...counts, ...(branch === undefined ? {} : { branch }), ...(error === undefined ? {} : { error }) };
    return true;
  };

  const finish = (trigger: Trigger, startedAt: number, run: RunOutcome, files?: number): void => {
    const duration = clock.now() - startedAt;
    const report = status.recordRun(trigger, startedAt, duration, run, files);
    metrics.recordRun(trigger, report.result, duration / 1000);
    metrics.setReady(status.readiness().ready);
    if (run.kind === 'locked' || run.kind === 'rejected') log.warn({ trigger, result: run.kind, err: run.error.message }, `reconcile ${run.kind}`);
    const result = runResultOf(run);
    // Guards and stale plans wait for a change of the repository; an invalid one too. Everything
    // else that did not converge is retried with back-off (a service down, a key being rotated).
    const retry = !stopping && !['converged', 'changed', 'pending', 'blocked', 'stale', 'invalid', 'rejected', 'interrupted'].includes(result);
    if (retry) scheduleRetry();
    else if (result === 'converged' || result === 'changed' || result === 'pending') {
      failures = 0;
      clearTimeout(retryTimer);
      status.nextRetryAt = undefined;
    }
  };

  const drainQueue = async (): Promise<void> => {
    while (pending !== undefined && !stopping) {
      const job = pending;
      pending = undefined;
      try {
        await runOnce(job);
      } catch (error) {
        // A bug: logged with its stack, reported, retried like any failed run.
        log.error({ err: error }, 'reconcile crashed');
        status.lastError = { at: new Date(clock.now()).toISOString(), message: error instanceof Error ? error.message : String(error) };
        metrics.recordRun(job.trigger, 'rejected', 0);
        if (!stopping) scheduleRetry();
      }
    }
  };

  let endpoints: Endpoints | undefined;
  if (options.listen !== undefined) {
    try {
      endpoints = await serveEndpoints(options.listen, status, metrics, options.keys);
      if (!isLoopback(options.listen.host)) {
        log.warn(
          { listen: `${options.listen.host}:${options.listen.port}` },
          'the endpoints (/healthz, /readyz, /metrics, /status) have no authentication and listen beyond this machine: anyone who reaches the port reads the status (resource names, ids, errors); restrict it (a NetworkPolicy, a reverse proxy with authentication, or --listen 127.0.0.1 with a sidecar)',
        );
      }
    } catch (error) {
      await watcher.close();
      throw error;
    }
  }
  if (options.gitPullMs !== undefined) {
    const every = options.gitPullMs;
    pullTimer = setInterval(() => trigger('git'), every);
  }
  const rootTimer = setInterval(() => {
    checkRoot().catch((error: unknown) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'checking the repository root failed'));
  }, options.rootCheckMs ?? 2_000);
  rootTimer.unref();
  watchPaths(undefined);
  trigger('startup');

  return {
    ...(endpoints === undefined ? {} : { url: endpoints.url }),
    status,
    metrics,
    trigger,
    idle: async () => {
      while (loop !== undefined) await loop;
    },
    stop: async () => {
      if (stopping) return;
      stopping = true;
      pending = undefined;
      clearTimeout(retryTimer);
      clearInterval(pullTimer);
      clearInterval(rootTimer);
      void cron?.task.destroy();
      await watcher.close();
      drain.abort(new Error('stopping'));
      const grace = options.stopGraceMs ?? 30_000;
      const running = loop;
      if (running !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = await Promise.race([
          running.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), grace);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          log.warn({ graceMs: grace }, 'the running reconcile did not finish in time; aborting its requests');
          hard.abort(new Error('stop grace period over'));
          await running;
        }
      }
      await endpoints?.close();
    },
  };
}
