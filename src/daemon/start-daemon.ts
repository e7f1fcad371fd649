import path from 'node:path';
import { repeatEvery, systemClock, type Clock, type TimerClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { KeyRedactor } from '../lib/redact-keys.js';
import { InputError } from '../lib/errors.js';
import type { DesiredState } from '../model/desired.js';
import type { Env, ServiceContext } from '../reconcile/index.js';
import { DEFAULTS } from '../lib/defaults.js';
import { createDaemonMetrics, type DaemonMetrics } from './daemon-metrics.js';
import { DaemonStatus } from './daemon-status.js';
import { dashboardRoutes } from './dashboard/dashboard-routes.js';
import { RunHistory } from './dashboard/run-history.js';
import { createTrafficSeries, teeHooks, type TrafficSeries } from './dashboard/traffic-series.js';
import type { Overlay } from './drift-branch.js';
import { drainWorkers } from './drain-workers.js';
import { createDriftPull } from './drift-pull.js';
import { createGitSource } from './git-source.js';
import { watchedRef } from './git-pull.js';
import { branchRef, hookRoutes } from './hook-routes.js';
import { createRunner, type RunEnd } from './reconcile-run.js';
import { trackRepositoryRoot, type RepositoryRoot } from './repository-root.js';
import { createSchedule, type Ticker } from './schedule.js';
import { isLoopback, serveEndpoints, type Endpoints, type Route } from './serve-endpoints.js';
import type { Shard } from './shard.js';
import { createSharedLock } from './shared-lock.js';
import { createTargetMetrics } from './target-metrics.js';
import { createTargetRunner } from './target-run.js';
import { createTargetRuns, type TargetRuns } from './target-runs.js';
import { mergeRequests, requestFor, webhookRequest, type RunRequest, type Trigger } from './triggers.js';
import type { FirstLoad } from './first-load.js';
import { fileClockNow, fileClockPast } from './file-clock.js';
import { watchFiles, type FileWatcher, type WatchOptions } from './watch-files.js';
import { createWorkQueue, exponentialBackoff, processQueue } from './work-queue.js';

export interface DaemonOptions {
  /** The repository root (absolute). */
  readonly dir: string;
  /** The project config (absolute), when not the default. */
  readonly configPath?: string;
  readonly env: Env;
  /** One target by name (default: every target of the config). */
  readonly target?: string;
  /** This replica's share of the targets (`--shard i/N`; default: every target). */
  readonly shard?: Shard;
  /** Targets reconciled at once; overrides the config's `parallel_targets` (default 8). */
  readonly parallelTargets?: number;
  readonly logger: Logger;
  /** Where the endpoints listen; undefined: no HTTP server. */
  readonly listen?: { readonly host: string; readonly port: number };
  /** Fetch and fast-forward every this many ms, and before each scheduled run. */
  readonly gitPullMs?: number;
  /**
   * What a full reconcile (start-up, schedule, reload, retry) does with differences: `apply` them
   * (default), only `report` them (plan, never write), or `pull` them into the repository's files
   * (then apply what is left: resources missing on the service; a pull that fails writes nothing).
   * With `gitPullMs`, pulled files are committed to a branch `termsync/drift-<date>` and pushed,
   * never to the branch the daemon reads.
   */
  readonly onDrift?: 'apply' | 'report' | 'pull';
  /** `--suspend`: plan and report, write nothing to any target (as the config's `suspend: true`). */
  readonly suspend?: boolean;
  /**
   * What starts a run from outside (hook-routes.ts): the secret of `/hooks/github` and
   * `/hooks/gitlab`, the token of `POST /reconcile` (each off when absent), and the branch whose
   * pushes start a run (default: the checkout's upstream branch).
   */
  readonly hooks?: { readonly webhookSecret?: () => string; readonly reconcileToken?: () => string; readonly branch?: string };
  /** termsync's version (termsync_build_info). */
  readonly version?: string;
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
  /**
   * The daemon's own time: its timers (retry back-off, git pulls, root checks, the watcher's
   * batching, the stop's grace period) and the times it reports. Default: the system clock.
   */
  readonly clock?: TimerClock;
  /** The service client's time (pacing, Retry-After, request back-off). Default: the system clock. */
  readonly serviceClock?: Clock;
  /** What makes the schedule tick (default: sleeping on `clock` until the next match, see schedule.ts). */
  readonly ticker?: Ticker;
  /** Starts the file watcher (default: chokidar, see watch-files.ts). */
  readonly watch?: (options: WatchOptions) => FileWatcher;
  /** Default: a new registry with Node's process metrics. */
  readonly metrics?: DaemonMetrics;
  /** The keys read for the targets, taken out of what the endpoints serve and the drift commits say. */
  readonly keys?: KeyRedactor;
  /** The dashboard's token (`--ui-token-file`), read at each request: its pages then need it. */
  readonly uiToken?: () => string;
  /** The first load, already begun (first-load.ts): the start-up run takes it instead of reading the repository. */
  readonly firstLoad?: FirstLoad;
}

export interface Daemon {
  /** The endpoints' base URL, when serving. */
  readonly url?: string;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  /** What the dashboard keeps of the runs (their plans, the resources' states). */
  readonly history: RunHistory;
  /** Asks for a reconcile (SIGHUP: `reload`, a full one). */
  trigger(trigger: Trigger, files?: readonly string[]): void;
  /** Resolves when no run is queued or running (tests). */
  idle(): Promise<void>;
  /** Stops taking work, lets the running operation finish (bounded), releases the lock, closes. */
  stop(): Promise<void>;
}

/**
 * The work-queue key of the repository's side of a run (git, load, drift pull): one at a time. The
 * targets' runs that follow have a queue of their own, keyed by target (target-runs.ts).
 */
const RUN_KEY = '*';

/** What every part of one daemon shares. */
interface Shared {
  readonly options: DaemonOptions;
  readonly clock: TimerClock;
  readonly log: Logger;
  readonly status: DaemonStatus;
  readonly metrics: DaemonMetrics;
  readonly history: RunHistory;
  readonly traffic: TrafficSeries;
  /** The service, with the stop's signals: `stop` (graceful: nothing new starts) and `signal` (hard: requests aborted). */
  readonly service: ServiceContext & { readonly stop: AbortSignal; readonly signal: AbortSignal };
}

/** The file watcher, and what it watches: the resource folders and the config, through the root's real path (after a link swap, the new checkout). */
function watchRepository(shared: Shared, root: RepositoryRoot, changedSince: number, trigger: (kind: Trigger, files: readonly string[]) => void): { watcher: FileWatcher; watchPaths: (desired: DesiredState | undefined) => void } {
  const { options, log } = shared;
  const watcher = (options.watch ?? watchFiles)({
    root: () => root.real(),
    changedSince,
    clock: shared.clock,
    debounceMs: options.debounceMs ?? 300,
    maxWaitMs: Math.max(2_000, (options.debounceMs ?? 300) * 4),
    writeFinishMs: 100,
    logger: log,
    ...(options.usePolling === undefined ? {} : { usePolling: options.usePolling }),
    onChange: (files) => {
      // With --git-pull only commits are applied: an edit of the working tree is not (see git-source.ts).
      if (options.gitPullMs !== undefined) return;
      log.debug({ files: files.length }, 'files changed');
      trigger('files', files);
    },
  });
  const watchPaths = (desired: DesiredState | undefined): void => {
    const base = root.real();
    const folders = desired?.config.resources ?? ['glossaries'];
    const config = options.configPath ?? path.join(base, desired?.configFile ?? 'config/termsync.yaml');
    watcher.setPaths([...folders.map((f) => path.resolve(base, f)), config]);
  };
  return { watcher, watchPaths };
}

/** One run of a request, with the parts the options ask for: the git source (--git-pull) and the drift pull (--on-drift pull). */
function createRun(shared: Shared, root: RepositoryRoot, watcher: FileWatcher, follow: (desired: DesiredState | undefined) => void, ended: (end: RunEnd) => void, targets: TargetRuns): (request: RunRequest) => Promise<void> {
  const { options, service } = shared;
  const parts = { dir: options.dir, clock: shared.clock, status: shared.status, metrics: shared.metrics, logger: shared.log, history: shared.history };
  /** Files a drift pull wrote that the branch the daemon reads does not hold yet (with --git-pull). */
  const overlay: Overlay = new Map();
  const target = options.target === undefined ? {} : { target: options.target };
  const git = options.gitPullMs === undefined ? undefined : createGitSource({ ...parts, env: options.env, signal: service.signal, overlay });
  const drift =
    options.onDrift === 'pull'
      ? createDriftPull({ ...parts, ...target, service, ...(options.keys === undefined ? {} : { keys: options.keys }), ...(git === undefined ? {} : { git: { overlay } }) })
      : undefined;
  return createRunner({
    ...parts,
    ...(options.configPath === undefined ? {} : { configPath: options.configPath }),
    onDrift: options.onDrift ?? 'apply',
    ...target,
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    suspend: options.suspend === true,
    root,
    ...(git === undefined ? {} : { git }),
    ...(drift === undefined ? {} : { drift }),
    // With --git-pull the watcher's events start no run (only commits are applied).
    ...(options.gitPullMs === undefined ? { watch: watcher } : {}),
    ...(options.firstLoad === undefined ? {} : { firstLoad: options.firstLoad.loaded }),
    signal: service.stop,
    follow,
    ended,
    quiesce: () => targets.idle(),
    fanOut: (request, loaded, mode) => targets.fanOut(request, loaded, mode),
  });
}

/** The targets' runs: side by side, each target with its own queue key, back-off and client. */
function createTargets(shared: Shared, repository: { readonly retry: () => void; readonly forget: () => void }): TargetRuns {
  const { options, clock, log, status, metrics, service } = shared;
  const run = createTargetRunner({
    clock,
    status,
    metrics,
    logger: log,
    service,
    verify: options.verify !== false,
    lock: createSharedLock(),
    history: shared.history,
    ended: (target, end) => {
      // With --on-drift pull (one target) a failed run is retried as a whole, so that the retry pulls the drift first.
      if (options.onDrift !== 'pull') targets.ended(target, end);
      else if (end === 'failed') repository.retry();
      else if (end === 'succeeded') repository.forget();
    },
  });
  const targets = createTargetRuns({
    clock,
    status,
    logger: log,
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.shard === undefined ? {} : { shard: options.shard }),
    ...(options.parallelTargets === undefined ? {} : { parallel: options.parallelTargets }),
    retryBaseMs: options.retryBaseMs ?? 5_000,
    retryMaxMs: options.retryMaxMs ?? 300_000,
    retryMode: options.onDrift === 'report' ? 'plan' : 'apply',
    run,
    crashed: (target, work, error) => {
      // A bug: logged with its stack, reported, retried like any failed run.
      log.error({ err: error, target }, 'reconcile crashed');
      status.update({ lastError: { at: new Date(clock.now()).toISOString(), message: error instanceof Error ? error.message : String(error) } });
      metrics.recordRun(work.request.trigger, target, 'rejected', 0);
    },
  });
  createTargetMetrics(metrics.registry, status);
  return targets;
}

/**
 * The routes that start a run from outside (webhooks, POST /reconcile), when a secret is configured.
 * Pushes must name the branch the daemon follows: `hooks.branch`, else the checkout's upstream.
 */
async function outsideTriggers(shared: Shared, trigger: (request: RunRequest) => void): Promise<Route[]> {
  const { options, log } = shared;
  const hooks = options.hooks;
  if (hooks === undefined || (hooks.webhookSecret === undefined && hooks.reconcileToken === undefined)) return [];
  let ref = hooks.branch === undefined ? undefined : branchRef(hooks.branch);
  if (hooks.webhookSecret !== undefined && ref === undefined) {
    ref = await watchedRef(options.dir, options.env);
    if (ref === undefined) {
      throw new InputError(
        'webhook_branch_unknown',
        `a webhook needs the branch whose pushes start a run, and ${options.dir} is not a checkout of a branch (a git-sync worktree is not): name it with --webhook-branch (the branch git-sync follows, GITSYNC_REF)`,
      );
    }
  }
  if (hooks.webhookSecret !== undefined) log.info({ branch: ref, gitPull: options.gitPullMs !== undefined }, 'webhooks on /hooks/github and /hooks/gitlab: a push to the branch reconciles now');
  if (hooks.reconcileToken !== undefined) log.info('POST /reconcile with the bearer token reconciles now');
  const gitPull = options.gitPullMs !== undefined;
  return hookRoutes({
    ...(hooks.webhookSecret === undefined ? {} : { webhookSecret: hooks.webhookSecret }),
    ...(hooks.reconcileToken === undefined ? {} : { reconcileToken: hooks.reconcileToken }),
    branchRef: ref ?? '',
    pushed: () => trigger(webhookRequest(gitPull)),
    requested: () => trigger(requestFor('api')),
    clock: shared.clock,
    logger: log,
    metrics: shared.metrics,
  });
}

/** The HTTP endpoints, when asked for; a warning when they listen beyond this machine. */
async function openEndpoints(shared: Shared, routes: readonly Route[]): Promise<Endpoints | undefined> {
  const { options, log } = shared;
  if (options.listen === undefined) return undefined;
  const redact = (text: string): string => options.keys?.redact(text) ?? text;
  // The dashboard's token: --ui-token-file's, else the one of POST /reconcile.
  const token = options.uiToken ?? options.hooks?.reconcileToken;
  const dashboard = dashboardRoutes({
    status: shared.status,
    history: shared.history,
    traffic: shared.traffic,
    onDrift: options.onDrift ?? 'apply',
    clock: shared.clock,
    listenHost: options.listen.host,
    redact,
    ...(token === undefined ? {} : { token }),
  });
  const endpoints = await serveEndpoints(options.listen, shared.status, shared.metrics, options.keys, [...routes, ...dashboard]);
  if (!isLoopback(options.listen.host)) {
    log.warn(
      { listen: `${options.listen.host}:${options.listen.port}`, dashboardToken: token !== undefined, showTerms: shared.history.settings.showTerms },
      `the endpoints (/healthz, /readyz, /metrics, /status) have no authentication and listen beyond this machine: anyone who reaches the port reads the status (resource names, ids, errors)${token === undefined ? ', and the dashboard (/) too' : ''}; restrict it (a NetworkPolicy, a reverse proxy with authentication, or --listen 127.0.0.1 with a sidecar)${token === undefined ? '; --ui-token-file (or --reconcile-token-file) puts the dashboard behind a token' : ''}`,
    );
  }
  return endpoints;
}

/** What every part of the daemon shares, with the two stop signals (`drain`: graceful, `hard`: at once). */
function createShared(options: DaemonOptions): { shared: Shared; drain: AbortController; hard: AbortController } {
  const clock = options.clock ?? systemClock;
  const log = options.logger;
  const metrics = options.metrics ?? createDaemonMetrics(options.version === undefined ? {} : { version: options.version });
  const status = new DaemonStatus(clock.now(), options.shard);
  // Terms are shown by default only where the endpoints are for this machine (ui.show_terms decides otherwise).
  const history = new RunHistory({ showTerms: options.listen === undefined || isLoopback(options.listen.host), keepRuns: DEFAULTS.uiKeepRuns });
  const traffic = createTrafficSeries(clock);
  const drain = new AbortController();
  const hard = new AbortController();
  const service = {
    env: options.env,
    signal: hard.signal,
    stop: drain.signal,
    logger: log,
    metrics: teeHooks(metrics.client, traffic.hooks),
    ...(options.serviceClock === undefined ? {} : { clock: options.serviceClock }),
    ...(options.keys === undefined ? {} : { keys: options.keys }),
  };
  return { shared: { options, clock, log, status, metrics, history, traffic, service }, drain, hard };
}

/**
 * The daemon: a level-based loop around `reconcile`, wired from small parts. Triggers (start-up,
 * file changes, the schedule, git pulls, SIGHUP, retries, push webhooks, POST /reconcile) add a key
 * to the work queue, never a diff; each run re-reads the repository and the service; keys that
 * arrive during a run coalesce into one more run. The repository is read by one run at a time; the
 * targets it declares (this replica's share of them) then run side by side, each on its own key,
 * client and back-off.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  // What changes from now on is the watcher's to report, though it starts after the first load (see below).
  const startedAt = options.firstLoad?.startedAt ?? fileClockNow();
  const { shared, drain, hard } = createShared(options);
  const { clock, log, status, metrics, history } = shared;

  const queue = createWorkQueue<string, RunRequest>({ clock, merge: mergeRequests, rateLimiter: exponentialBackoff(options.retryBaseMs ?? 5_000, options.retryMaxMs ?? 300_000) });
  const trigger = (kind: Trigger, files: readonly string[] = []): void => queue.add(RUN_KEY, requestFor(kind, files));
  const retry = (): void => {
    const at = queue.addRateLimited(RUN_KEY, requestFor('retry'));
    if (at === undefined) return;
    status.changed();
    log.warn({ retryInMs: at - clock.now(), failures: queue.failures(RUN_KEY) }, 'reconcile failed; retrying with back-off');
  };

  const targets = createTargets(shared, { retry, forget: () => queue.forget(RUN_KEY) });
  metrics.followQueue(() => queue.length() + targets.queued());
  status.followRetries(() => {
    const times = [queue.waitingUntil(RUN_KEY), targets.nextRetry()].filter((at): at is number => at !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  });

  const schedule = createSchedule({ tick: () => trigger('schedule'), logger: log, ...(options.ticker === undefined ? { clock } : { ticker: options.ticker }) });
  status.followSchedule(() => schedule.next());
  const root = trackRepositoryRoot({
    dir: options.dir,
    env: options.env,
    logger: log,
    moved: (files) => {
      if (files === undefined) trigger('reload');
      else if (files.length > 0) trigger('files', files);
    },
  });
  const { watcher, watchPaths } = watchRepository(shared, root, startedAt, trigger);
  /** Follows the config each run loads (none while the repository has errors): the watched paths and the schedule. */
  const follow = (desired: DesiredState | undefined): void => {
    if (desired === undefined) targets.invalidate();
    watchPaths(desired);
    history.configure(desired?.config.ui);
    const expression = options.schedule ?? desired?.config.schedule;
    if (schedule.follow(expression)) status.update({ schedule: expression });
  };
  const run = createRun(
    shared,
    root,
    watcher,
    follow,
    (end) => {
      if (end === 'failed') retry();
      else if (end === 'succeeded') queue.forget(RUN_KEY);
    },
    targets,
  );

  let endpoints: Endpoints | undefined;
  try {
    const routes = await outsideTriggers(shared, (request) => queue.add(RUN_KEY, request));
    endpoints = await openEndpoints(shared, routes);
  } catch (error) {
    await watcher.close();
    throw error;
  }
  const workers = processQueue(queue, ({ request }) => run(request), {
    workers: 1,
    crashed: ({ request }, error) => {
      // A bug: logged with its stack, reported, retried like any failed run.
      log.error({ err: error }, 'reconcile crashed');
      status.update({ lastError: { at: new Date(clock.now()).toISOString(), message: error instanceof Error ? error.message : String(error) } });
      metrics.recordRun(request.trigger, options.target ?? '', 'rejected', 0);
      retry();
    },
  });
  const gitTimer = options.gitPullMs === undefined ? undefined : repeatEvery(clock, options.gitPullMs, () => trigger('git'));
  const rootCheck = (): void => void root.check().catch((error: unknown) => log.warn({ err: error instanceof Error ? error.message : String(error) }, 'checking the repository root failed'));
  const rootTimer = repeatEvery(clock, options.rootCheckMs ?? 2_000, rootCheck, { unref: true });
  // The watcher starts with the first load's `follow` (WatchOptions.changedSince), which reads the files
  // a tick of the file clock after startedAt (fileClockPast); polled (network mounts), it starts now.
  if (options.usePolling === true) watchPaths(undefined);
  await fileClockPast(startedAt);
  trigger('startup');

  return {
    ...(endpoints === undefined ? {} : { url: endpoints.url }),
    status,
    metrics,
    history,
    trigger,
    idle: async () => {
      await queue.idle();
      await targets.idle();
    },
    stop: async () => {
      if (queue.shuttingDown) return;
      // What is queued is dropped, a waiting retry too; the run in progress is let finish, but for
      // its load: a load in progress stops after the file in hand (its run ends, nothing sent).
      queue.shutDown();
      drain.abort(new Error('stopping'));
      options.firstLoad?.cancel(new Error('stopping'));
      gitTimer?.cancel();
      rootTimer.cancel();
      schedule.stop();
      await watcher.close();
      // A load in progress hands its targets over first; the target runs that started then finish
      // (or stop before their next operation), and what is still queued is dropped.
      const finished = (async () => {
        await workers;
        targets.shutDown();
        await targets.drained();
      })();
      await drainWorkers(shared, finished, () => hard.abort(new Error('stop grace period over')));
      await endpoints?.close();
    },
  };
}
