import type { Clock } from '../lib/clock.js';
import { isTermsyncError, TermsyncError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { Env } from '../reconcile/index.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { DaemonStatus } from './daemon-status.js';
import { restoreOverlay, setOverlayAside, type Overlay } from './drift-branch.js';
import { pullRepository, type PullResult } from './git-pull.js';
import { commitsNotUpstream, setLocalEditsAside } from './local-edits.js';
import { pullOnly, type RunRequest } from './triggers.js';

export interface GitSourceOptions {
  readonly dir: string;
  readonly env: Env;
  /** Aborts git (the daemon's stop, once its grace period is over). */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly logger: Logger;
  /** Files a drift pull wrote that the branch the daemon reads does not hold yet (see drift-branch.ts). */
  readonly overlay: Overlay;
}

/**
 * `--git-pull`: the repository the daemon reads is its clone at the upstream's revision, never an
 * edit of the clone's own. Before each run, local edits of the working tree are set aside; a run
 * whose request asks for it fetches and fast-forwards first; a clone ahead of its upstream runs
 * nothing. Each pull's outcome goes to `/status` and the metrics.
 */
export interface GitSource {
  /**
   * Brings the checkout to what the next run may read. The files the run covers (the request's and
   * those the pull brought in), or undefined when no run follows: the tree cannot be trusted, or a
   * pull-only request found nothing new.
   */
  prepare(request: RunRequest): Promise<string[] | undefined>;
}

/** A git pull's outcome on /status and in the metrics: from GIT_FAILURES_NOT_READY failures in a row, not ready. */
function recordGit(options: GitSourceOptions, result: { ok: true; head: string } | { ok: false; error: string }): void {
  const { status, metrics } = options;
  const failures = result.ok ? 0 : (status.git?.failures ?? 0) + 1;
  status.update({ git: { ...result, at: new Date(options.clock.now()).toISOString(), failures } });
  metrics.recordGitPull(result.ok, failures);
  metrics.setReady(status.readiness().ready);
}

/**
 * Edits of the working tree that are not committed (other than this daemon's own drift files) are
 * set aside in a git stash, so that what is read and applied is the committed revision. False when
 * they could not be: nothing runs (counted as a failed pull).
 */
async function keepCommitted(options: GitSourceOptions): Promise<boolean> {
  const { clock, logger: log } = options;
  try {
    const aside = await setLocalEditsAside(options.dir, new Set(options.overlay.keys()), new Date(clock.now()), { env: options.env, signal: options.signal });
    if (aside !== undefined) {
      options.status.update({ localEdits: { at: new Date(clock.now()).toISOString(), ...aside } });
      options.metrics.recordLocalEdits(aside.files.length);
      log.warn(
        { files: aside.files.slice(0, 20), count: aside.files.length, stash: aside.stash.slice(0, 12) },
        'local edits of the working tree set aside in a git stash, not applied: with --git-pull only what is committed is applied (git stash list shows them)',
      );
    }
    return true;
  } catch (error) {
    if (!isTermsyncError(error)) throw error;
    recordGit(options, { ok: false, error: `local edits could not be set aside: ${error.message}` });
    log.error({ err: error.message }, 'local edits of the working tree could not be set aside: nothing is applied until they are committed or undone');
    return false;
  }
}

/** Commits made in the clone that its upstream lacks are not applied: undefined when there are none (or git cannot tell), else what to say. */
async function notOnUpstream(options: GitSourceOptions): Promise<string | undefined> {
  const ahead = await commitsNotUpstream(options.dir, { env: options.env, signal: options.signal });
  if (ahead === undefined || ahead === 0) return undefined;
  return `the checkout holds ${ahead} ${ahead === 1 ? 'commit' : 'commits'} its upstream does not have: only the upstream's revision is applied (push them, or reset the checkout to its upstream)`;
}

/** Fetch and fast-forward; the drift files would stop a fast-forward, so they are set aside and put back unless it changed them. */
async function pullAroundOverlay(options: GitSourceOptions): Promise<PullResult> {
  const { dir, overlay } = options;
  const gitOptions = { env: options.env, signal: options.signal };
  if (overlay.size > 0) await setOverlayAside(dir, overlay, gitOptions);
  try {
    return await pullRepository(dir, gitOptions);
  } finally {
    if (overlay.size > 0) await restoreOverlay(dir, overlay, gitOptions);
  }
}

export function createGitSource(options: GitSourceOptions): GitSource {
  const log = options.logger;
  return {
    async prepare(request) {
      if (!(await keepCommitted(options))) return undefined;
      const files = [...request.files];
      // Nothing came in and nothing else is queued: a pull-only run reconciles nothing.
      const onlyPull = pullOnly(request);
      let pullFailed = false;
      if (request.fetch) {
        try {
          const pulled = await pullAroundOverlay(options);
          // Fetched and fast-forwarded, yet ahead of the upstream: not following it, a failed pull.
          const ahead = await notOnUpstream(options);
          if (ahead !== undefined) throw new TermsyncError('git_failed', ahead);
          recordGit(options, { ok: true, head: pulled.after });
          if (pulled.files.length > 0) log.info({ from: pulled.before.slice(0, 12), to: pulled.after.slice(0, 12), files: pulled.files.length }, 'pulled new commits');
          files.push(...pulled.files);
        } catch (error) {
          if (!isTermsyncError(error)) throw error;
          recordGit(options, { ok: false, error: error.message });
          pullFailed = true;
          log.warn({ err: error.message, failures: options.status.git?.failures }, 'git pull failed; the tree was left as it was and the next pull retries');
          // A scheduled run still repairs drift on the tree as it is (it is whole: git left it untouched).
        }
        if (onlyPull && files.length === 0) return undefined;
      }
      // No run of a tree that holds commits the upstream does not have (a failed pull if none was tried).
      const ahead = await notOnUpstream(options);
      if (ahead !== undefined) {
        if (!pullFailed) recordGit(options, { ok: false, error: ahead });
        log.error({ trigger: request.trigger }, `nothing applied: ${ahead}`);
        return undefined;
      }
      return files;
    },
  };
}
