import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ClientMetricsHooks } from '../api/index.js';
import type { ResourceKind } from '../model/plan.js';
import type { TargetOutcome } from '../reconcile/index.js';
import type { Trigger } from './triggers.js';

/** The result label of a run: the target outcome kind, or why no target was reached. */
export type RunResult = TargetOutcome['kind'] | 'invalid' | 'locked' | 'rejected' | 'git_failed';

/** How a request to a hook or to POST /reconcile ended (the `result` label). */
export type HookResult = 'queued' | 'ignored' | 'pong' | 'unauthorized' | 'replayed' | 'too_large' | 'bad_request' | 'unavailable';

/**
 * Resources of a target that differ from the repository after a run, by kind: those of the plan's
 * changes that the run did not write (all of them in plan mode, when suspended or blocked; those
 * with a failed or skipped operation after an apply). Undefined when the run did not compare every
 * resource (a run of changed files reads only theirs) or reached no plan.
 */
export function driftAfter(outcome: TargetOutcome): Record<ResourceKind, number> | undefined {
  const plan = 'plan' in outcome ? outcome.plan : undefined;
  if (plan === undefined || plan.notRefreshed !== undefined) return undefined;
  const result = 'result' in outcome ? outcome.result : undefined;
  const applied = new Set((result?.outcomes ?? []).filter((o) => o.status === 'applied').map((o) => o.key));
  const drift: Record<ResourceKind, number> = { glossary: 0, style_rules: 0 };
  for (const change of plan.changes) {
    if (change.operations.length > 0 && change.operations.every((key) => applied.has(key))) continue;
    drift[change.address.kind] += 1;
  }
  return drift;
}

/**
 * The daemon's Prometheus metrics (prom-client), in its own registry: reconcile runs and durations,
 * operations, API requests, retries and throttling, drift, last success and managed resources. No
 * label ever carries a key, an entry or a path outside the repository.
 */
export interface DaemonMetrics {
  readonly registry: Registry;
  /** Hooks for the service client: requests, retries and throttle waits. */
  readonly client: ClientMetricsHooks;
  /** One target's part of a run (every target the run covers, with the run's result when it reached none). */
  recordRun(trigger: Trigger, target: string, result: RunResult, seconds: number): void;
  recordTarget(trigger: Trigger, outcome: TargetOutcome, nowMs: number): void;
  setRepositoryValid(valid: boolean): void;
  setReady(ready: boolean): void;
  /** A git pull and the failures in a row it leaves (0 after one that succeeded). */
  recordGitPull(ok: boolean, consecutiveFailures: number): void;
  /** With --git-pull: local edits of the working tree set aside (never applied). */
  recordLocalEdits(files: number): void;
  /** A verify run of a target: its result, the characters it sent, and the target's checks by result as last verified. */
  recordVerify(target: string, result: string, characters: number, counts: { readonly pass: number; readonly fail: number }): void;
  /** A drift pull (`--on-drift pull`): `written`, `in_sync` or `failed`. */
  recordDriftPull(target: string, result: 'written' | 'in_sync' | 'failed'): void;
  /**
   * A load of the repository: its resource files, and its entries files once per dictionary or glossary that names one
   * (a file two dictionaries name counts twice, a missing one counts as read), whose previous result was reused
   * (unchanged bytes), and those read.
   */
  recordLoad(reused: number, read: number): void;
  /** Where the queue depth is read at each scrape (the work queue's keys waiting for a worker). */
  followQueue(depth: () => number): void;
  /** The targets the daemon covers, each suspended (writes nothing) or not; targets no longer listed are dropped. */
  setSuspended(targets: readonly { readonly target: string; readonly suspended: boolean }[]): void;
  /** A request to a hook or to POST /reconcile. */
  recordHook(endpoint: string, result: HookResult): void;
}

/** The service client's metrics: requests, retries, throttling and the adaptive rate. */
function apiMetrics(registers: Registry[]): ClientMetricsHooks {
  const requests = new Counter({
    name: 'termsync_api_requests_total',
    help: 'Requests to the service by method, endpoint (path template) and status',
    labelNames: ['method', 'endpoint', 'status'],
    registers,
  });
  const requestSeconds = new Histogram({
    name: 'termsync_api_request_duration_seconds',
    help: 'Duration of requests to the service by method and endpoint',
    labelNames: ['method', 'endpoint'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const retries = new Counter({ name: 'termsync_api_retries_total', help: 'Requests sent again, by reason', labelNames: ['reason'], registers });
  const throttleWaits = new Counter({
    name: 'termsync_api_throttle_wait_seconds_total',
    help: 'Time the request queue paused because the service throttled (429, 529) or cooled down glossary calls (456); concurrent throttling answers share one pause',
    labelNames: ['status'],
    registers,
  });
  const pauses = new Counter({
    name: 'termsync_api_pauses_total',
    help: 'Pauses of the request queue (started or pushed further out) by the status that asked for them',
    labelNames: ['status'],
    registers,
  });
  const rate = new Gauge({
    name: 'termsync_api_rate_requests_per_second',
    help: 'The request rate the client currently sends at: the configured rate, or just below the load the service refused',
    registers,
  });
  const throttles = new Counter({ name: 'termsync_api_throttled_total', help: 'Throttling answers by status', labelNames: ['status'], registers });

  return {
    onRequest: (method, route, status, ms) => {
      requests.inc({ method, endpoint: route, status: String(status) });
      requestSeconds.observe({ method, endpoint: route }, ms / 1000);
    },
    onRetry: (_method, _route, reason) => retries.inc({ reason }),
    onThrottle: (kind) => throttles.inc({ status: kind }),
    onPause: (kind, ms) => {
      pauses.inc({ status: kind });
      throttleWaits.inc({ status: kind }, ms / 1000);
    },
    onRate: (requestsPerSecond) => rate.set(requestsPerSecond),
  };
}

/** Node's default gauges whose names end in _total. */
const NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface DaemonMetricsOptions {
  /** Node's process metrics under their standard names (process_*, nodejs_*); default true. */
  readonly defaultMetrics?: boolean;
  /** termsync's version, for termsync_build_info. */
  readonly version?: string;
}

export function createDaemonMetrics(options: DaemonMetricsOptions = {}): DaemonMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) {
    // Without a prefix: the names stock Node.js dashboards and alerts read.
    // The event-loop lag sampled once a second, not every 10 ms (prom-client's default): the
    // default's wake-ups alone cost an idle daemon about 0.45 % of a core (bench/daemon-idle.js).
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 1000 });
    // Gauges named like counters, which `promtool check metrics` refuses: their sums by type stay
    // (nodejs_active_handles{type}, …; sum() of one is the total).
    for (const name of NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  }
  const registers = [registry];
  new Gauge({ name: 'termsync_build_info', help: 'Always 1: the version of termsync and of Node.js that run the daemon', labelNames: ['version', 'node'], registers }).set(
    { version: options.version ?? 'unknown', node: process.version },
    1,
  );
  return { registry, ...runMetrics(registers), ...stateMetrics(registers), ...controlMetrics(registers) };
}

/** Runs and what they leave on each target: runs and their durations, operations, drift, last success, managed resources; and the service client's metrics. */
function runMetrics(registers: Registry[]): Pick<DaemonMetrics, 'client' | 'recordRun' | 'recordTarget'> {
  const runs = new Counter({
    name: 'termsync_reconcile_runs_total',
    help: "Reconciles of a target by trigger and result (a run that reached no target, such as one of an invalid repository, counts once for each target it covers, with the run's result)",
    labelNames: ['target', 'trigger', 'result'],
    registers,
  });
  const duration = new Histogram({
    name: 'termsync_reconcile_duration_seconds',
    help: 'Duration of the reconciles of a target by trigger and result',
    labelNames: ['target', 'trigger', 'result'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers,
  });
  const operations = new Counter({
    name: 'termsync_operations_total',
    help: 'Operations executed by apply, by kind (operation type) and result (applied, failed, skipped)',
    labelNames: ['target', 'kind', 'result'],
    registers,
  });
  // Registered here: /metrics lists the client's metrics after the operations, as before.
  const client = apiMetrics(registers);
  const drift = new Counter({
    name: 'termsync_drift_detected_total',
    help: 'Scheduled full reconciles that found the service different from the repository (changes made outside git)',
    labelNames: ['target'],
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'termsync_last_success_timestamp_seconds',
    help: 'When a reconcile of the target last ended with the service equal to the repository (Unix seconds)',
    labelNames: ['target'],
    registers,
  });
  const managed = new Gauge({ name: 'termsync_managed_resources', help: 'Resources the repository manages on the target, by kind', labelNames: ['target', 'kind'], registers });
  const driftResources = new Gauge({
    name: 'termsync_drift_resources',
    help: 'Resources of the target that differ from the repository after the last run that compared them all (suspended, --on-drift report, blocked by a guard, or failed to write), by kind',
    labelNames: ['target', 'kind'],
    registers,
  });

  return {
    client,
    recordRun: (trigger, target, result, seconds) => {
      runs.inc({ target, trigger, result });
      duration.observe({ target, trigger, result }, seconds);
    },
    recordTarget: (trigger, outcome, nowMs) => {
      const result = 'result' in outcome ? outcome.result : undefined;
      for (const op of result?.outcomes ?? []) operations.inc({ target: outcome.target, kind: op.type, result: op.status });
      const plan = 'plan' in outcome ? outcome.plan : undefined;
      // Drift is what the scheduled full reconcile finds: changes made on the service outside git.
      if (trigger === 'schedule' && plan !== undefined && plan.operations.length > 0) drift.inc({ target: outcome.target });
      const differing = driftAfter(outcome);
      if (differing !== undefined) for (const [kind, count] of Object.entries(differing)) driftResources.set({ target: outcome.target, kind }, count);
      if (outcome.kind === 'converged' || outcome.kind === 'changed') {
        lastSuccess.set({ target: outcome.target }, Math.floor(nowMs / 1000));
        if (result !== undefined) {
          managed.set({ target: outcome.target, kind: 'glossary' }, Object.keys(result.ids.glossaries).length);
          managed.set({ target: outcome.target, kind: 'style_rules' }, Object.keys(result.ids.style_rules).length);
        }
      }
    },
  };
}

/** The daemon's state and its other work: repository validity, readiness, git pulls, local edits, verify, drift pulls, loads. */
function stateMetrics(
  registers: Registry[],
): Pick<DaemonMetrics, 'setRepositoryValid' | 'setReady' | 'recordGitPull' | 'recordLocalEdits' | 'recordVerify' | 'recordDriftPull' | 'recordLoad'> {
  const valid = new Gauge({ name: 'termsync_repository_valid', help: '1 when the repository has no errors', registers });
  const ready = new Gauge({ name: 'termsync_ready', help: '1 when /readyz answers 200', registers });
  const gitPulls = new Counter({ name: 'termsync_git_pulls_total', help: 'git fetch + fast-forward attempts by result', labelNames: ['result'], registers });
  const gitFailures = new Gauge({
    name: 'termsync_git_pull_consecutive_failures',
    help: 'git pulls that failed in a row (0 after one that succeeded); from 3 on /readyz answers 503',
    registers,
  });
  const localEdits = new Counter({
    name: 'termsync_local_edits_set_aside_total',
    help: 'Files of the working tree changed without a commit, set aside in a git stash and never applied (--git-pull)',
    registers,
  });
  const verifyTests = new Gauge({
    name: 'termsync_verify_tests',
    help: 'Glossary tests and sampled entries of the target by result (pass, fail), each glossary as last verified',
    labelNames: ['target', 'result'],
    registers,
  });
  const verifyRuns = new Counter({
    name: 'termsync_verify_runs_total',
    help: 'Verify runs after a reconcile by result (passed, failed, over_cap: nothing sent, or why no check was reached)',
    labelNames: ['target', 'result'],
    registers,
  });
  const verifyCharacters = new Counter({ name: 'termsync_verify_characters_total', help: 'Characters sent to the translation endpoint by verify (they count against the account quota)', labelNames: ['target'], registers });
  const driftPulls = new Counter({
    name: 'termsync_drift_pulls_total',
    help: 'Drift pulls (--on-drift pull) by result: written (files adopted the service edits), in_sync, failed',
    labelNames: ['target', 'result'],
    registers,
  });
  const loadFiles = new Counter({
    name: 'termsync_load_files_total',
    help: 'Files of the repository loads: each resource file, and each entries file once per dictionary or glossary that names it (a file two name counts twice; a missing one counts as read), by how: reused (bytes unchanged since the previous load) or read',
    labelNames: ['how'],
    registers,
  });

  return {
    setRepositoryValid: (v) => valid.set(v ? 1 : 0),
    setReady: (r) => ready.set(r ? 1 : 0),
    recordGitPull: (ok, consecutiveFailures) => {
      gitPulls.inc({ result: ok ? 'ok' : 'failed' });
      gitFailures.set(consecutiveFailures);
    },
    recordLocalEdits: (files) => localEdits.inc(files),
    recordVerify: (target, result, characters, counts) => {
      verifyRuns.inc({ target, result });
      if (characters > 0) verifyCharacters.inc({ target }, characters);
      verifyTests.set({ target, result: 'pass' }, counts.pass);
      verifyTests.set({ target, result: 'fail' }, counts.fail);
    },
    recordDriftPull: (target, result) => driftPulls.inc({ target, result }),
    recordLoad: (reused, read) => {
      loadFiles.inc({ how: 'reused' }, reused);
      loadFiles.inc({ how: 'read' }, read);
    },
  };
}

/** What starts and holds runs: the queue depth, suspended targets, requests to the hooks and POST /reconcile. */
function controlMetrics(registers: Registry[]): Pick<DaemonMetrics, 'followQueue' | 'setSuspended' | 'recordHook'> {
  let queueDepth = (): number => 0;
  new Gauge({
    name: 'termsync_queue_depth',
    help: 'Runs waiting for the worker (requests that arrive meanwhile fold into them): 0 or 1 while one work-queue key covers every target',
    registers,
    collect() {
      this.set(queueDepth());
    },
  });
  const suspended = new Gauge({ name: 'termsync_suspended', help: '1 when the target is suspended (--suspend, or suspend: true in the config): differences are reported, nothing is written', labelNames: ['target'], registers });
  const hooks = new Counter({
    name: 'termsync_hook_requests_total',
    help: 'Requests to /hooks/github, /hooks/gitlab and POST /reconcile by result (queued, ignored, pong, unauthorized, replayed, too_large, bad_request, unavailable)',
    labelNames: ['endpoint', 'result'],
    registers,
  });
  return {
    followQueue: (depth) => (queueDepth = depth),
    setSuspended: (targets) => {
      suspended.reset();
      for (const { target, suspended: is } of targets) suspended.set({ target }, is ? 1 : 0);
    },
    recordHook: (endpoint, result) => hooks.inc({ endpoint, result }),
  };
}
