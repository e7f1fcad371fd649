import type { Diagnostic } from '../lib/diagnostics.js';
import type { PlanSummary } from '../model/plan.js';
import type { RunOutcome, TargetOutcome, VerifyOutcome } from '../reconcile/index.js';
import type { RunResult } from './daemon-metrics.js';
import type { Shard } from './shard.js';
import { TargetStates } from './target-states.js';
import type { Trigger } from './triggers.js';

/** One target of a run, as `/status` shows it: no entries, no key, no path outside the repository. */
export interface TargetReport {
  readonly target: string;
  readonly result: TargetOutcome['kind'];
  readonly summary?: PlanSummary;
  readonly notRefreshed?: number;
  readonly applied?: number;
  readonly failed?: number;
  readonly skipped?: number;
  readonly guards?: readonly string[];
  readonly error?: string;
}

export interface RunReport {
  /** The run's number since the daemon started (1, 2, …): the dashboard's `/run?id=N`. */
  readonly id: number;
  readonly trigger: Trigger;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly result: RunResult;
  readonly files?: number;
  readonly targets: readonly TargetReport[];
  readonly error?: string;
}

export interface GitReport {
  readonly ok: boolean;
  readonly at: string;
  readonly head?: string;
  readonly error?: string;
  /** Pulls that failed in a row (0 after one that succeeded); from GIT_FAILURES_NOT_READY on, not ready. */
  readonly failures: number;
}

/** Consecutive failed git pulls from which `/readyz` answers 503: the daemon no longer follows its branch. */
export const GIT_FAILURES_NOT_READY = 3;

/** With --git-pull: the last time local edits of the working tree were set aside (never applied). */
export interface LocalEditsReport {
  readonly at: string;
  readonly files: readonly string[];
  /** The stash commit that keeps them. */
  readonly stash: string;
}

/** Diagnostics by location and rule only: their messages may quote terms, which `/status` never shows. */
export interface DiagnosticLocation {
  readonly severity: Diagnostic['severity'];
  readonly code: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** One glossary test or sampled entry as `/status` shows it: where it is and how it ended, never its terms. */
export interface CheckReport {
  readonly glossary: string;
  readonly kind: 'test' | 'sample';
  /** Tests: their position in the glossary's `tests:` and where they are declared. */
  readonly index?: number;
  readonly file?: string;
  readonly line?: number;
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly result: 'pass' | 'fail';
  /** How many expected terms were missing and forbidden terms present. */
  readonly missing: number;
  readonly forbidden: number;
  /** The check could not be sent (its glossary or dictionary is not on the service). */
  readonly notSent?: boolean;
}

/** The last verification of a target's glossaries (each glossary as it was last verified). */
export interface VerifyReport {
  readonly at: string;
  /** How the last verify run ended: passed, failed, over_cap (nothing sent), or why it reached no check. */
  readonly result: string;
  readonly characters?: number;
  readonly maxCharacters?: number;
  /** Glossaries the last run verified. */
  readonly glossaries: readonly string[];
}

/** What the last drift pull (`--on-drift pull`) did: counts and files, never terms. */
export interface DriftReport {
  readonly at: string;
  readonly target: string;
  readonly result: 'written' | 'in_sync' | 'failed';
  readonly files?: readonly string[];
  readonly glossaries?: number;
  readonly termChanges?: number;
  readonly styleRules?: number;
  /** With --git-pull: the branch the drift was pushed to. */
  readonly branch?: string;
  readonly error?: string;
}

/** The last load of the repository, as `/status` shows it. */
export interface RepositoryReport {
  readonly valid: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly diagnostics: readonly DiagnosticLocation[];
}

/** A target the daemon writes nothing to, and what suspends it: `--suspend` (`flag`), the config's `suspend: true` (`config`), the target's (`target`). */
export interface SuspendedTarget {
  readonly target: string;
  readonly by: 'flag' | 'config' | 'target';
}

/** What the parts of the daemon set as they go (`DaemonStatus.update`). */
export interface DaemonState {
  readonly running?: { readonly trigger: Trigger; readonly startedAt: string } | undefined;
  readonly lastError?: { readonly at: string; readonly message: string } | undefined;
  readonly git?: GitReport | undefined;
  readonly localEdits?: LocalEditsReport | undefined;
  /** The full-reconcile schedule in force. */
  readonly schedule?: string | undefined;
  readonly drift?: DriftReport | undefined;
  /** Suspended targets, as the last load of the config says (with --suspend: every target). */
  readonly suspended?: readonly SuspendedTarget[] | undefined;
}

const KEEP_RUNS = 20;

/** The checks of a verify outcome as `/status` shows them. */
export function checkReports(outcome: VerifyOutcome): CheckReport[] {
  if (outcome.kind !== 'verified') return [];
  return outcome.results.map((r) => ({
    glossary: r.check.glossary,
    kind: r.check.kind,
    ...(r.check.index === undefined ? {} : { index: r.check.index }),
    ...(r.check.origin === undefined ? {} : { file: r.check.origin.file, line: r.check.origin.line }),
    sourceLang: r.check.sourceLang,
    targetLang: r.check.targetLang,
    result: r.status,
    missing: r.missing.length,
    forbidden: r.forbidden.length,
    ...(r.problem === undefined ? {} : { notSent: true }),
  }));
}

/** How a verify run ended, as one word. */
export function verifyResultOf(outcome: VerifyOutcome): string {
  if (outcome.kind === 'verified') return outcome.results.every((r) => r.status === 'pass') ? 'passed' : 'failed';
  return outcome.kind;
}

function describeTarget(outcome: TargetOutcome): TargetReport {
  const plan = 'plan' in outcome ? outcome.plan : undefined;
  const result = 'result' in outcome ? outcome.result : undefined;
  const error = 'error' in outcome && outcome.error !== undefined ? outcome.error.message : undefined;
  return {
    target: outcome.target,
    result: outcome.kind,
    ...(plan === undefined ? {} : { summary: plan.summary }),
    ...(plan?.notRefreshed === undefined ? {} : { notRefreshed: plan.notRefreshed }),
    ...(result === undefined ? {} : { applied: result.applied, failed: result.failed, skipped: result.skipped }),
    ...(outcome.kind === 'blocked' ? { guards: outcome.plan.guards.map((g) => g.message) } : {}),
    ...(outcome.kind === 'stale' ? { error: `saved plan is stale: ${outcome.differences.join('; ')}` } : {}),
    ...(error === undefined ? {} : { error }),
  };
}

/** The result label of a finished run: its most significant target outcome, or why it reached none. */
export function runResultOf(run: RunOutcome): RunResult {
  if (run.kind !== 'done') return run.kind;
  const order: readonly TargetOutcome['kind'][] = ['misconfigured', 'refused', 'unreachable', 'interrupted', 'partial', 'stale', 'blocked', 'pending', 'changed', 'converged'];
  for (const kind of order) if (run.targets.some((t) => t.kind === kind)) return kind;
  return 'converged';
}

/** What `/status` and `/readyz` answer: the daemon's state, updated by its loop. */
export class DaemonStatus {
  readonly startedAt: string;
  readonly runs: RunReport[] = [];
  readonly ids = new Map<string, { readonly glossaries: Readonly<Record<string, string>>; readonly style_rules: Readonly<Record<string, string>> }>();
  /** Per target: the last verify run, and the checks of each glossary as last verified. */
  readonly verify = new Map<string, { last: VerifyReport; checks: Map<string, CheckReport[]> }>();
  /** The targets this daemon reconciles (its shard), each with its own runs and retries. */
  readonly targets: TargetStates;
  #state: DaemonState = {};
  #repository: RepositoryReport | undefined;
  #nextRetry: () => number | undefined = () => undefined;
  #nextScheduled: () => number | undefined = () => undefined;
  #lastRunId = 0;
  #version = 0;
  readonly #listeners = new Set<() => void>();

  constructor(now: number, shard?: Shard) {
    this.startedAt = new Date(now).toISOString();
    this.targets = new TargetStates(() => this.changed(), shard);
  }

  /**
   * Calls `listener` after each change of the state (a run started or recorded, a pull, a drift
   * pull, a verify run …): what a live view of `/status` (server-sent events) follows. Returns the
   * unsubscribe function.
   */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /**
   * How many times the state has changed since the daemon started: a view drawn at version N shows
   * every change up to the Nth, and one that follows the state from there (the dashboard's event
   * stream) misses none of the later ones.
   */
  get version(): number {
    return this.#version;
  }

  /** Tells the subscribers that the state changed. */
  changed(): void {
    this.#version++;
    for (const listener of [...this.#listeners]) listener();
  }

  /** Sets what the parts of the daemon report (a field given as undefined is cleared), and tells the subscribers. */
  update(patch: Partial<DaemonState>): void {
    this.#state = { ...this.#state, ...patch };
    this.changed();
  }

  /** The load of the repository in progress, else a target's run in progress. */
  get running(): DaemonState['running'] {
    return this.#state.running ?? this.targets.firstRunning();
  }
  get lastError(): DaemonState['lastError'] {
    return this.#state.lastError;
  }
  get git(): GitReport | undefined {
    return this.#state.git;
  }
  get localEdits(): LocalEditsReport | undefined {
    return this.#state.localEdits;
  }
  get schedule(): string | undefined {
    return this.#state.schedule;
  }
  get drift(): DriftReport | undefined {
    return this.#state.drift;
  }
  get suspended(): readonly SuspendedTarget[] {
    return this.#state.suspended ?? [];
  }
  get repository(): RepositoryReport | undefined {
    return this.#repository;
  }

  /** When the next retry of a failed run is due (the work queue's back-off), as ISO 8601. */
  get nextRetryAt(): string | undefined {
    const at = this.#nextRetry();
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  /** Where `nextRetryAt` is read from: the work queue owns the retry. */
  followRetries(nextRetry: () => number | undefined): void {
    this.#nextRetry = nextRetry;
  }

  /** When the schedule next starts a full reconcile, as ISO 8601 (none without a schedule). */
  get nextScheduledAt(): string | undefined {
    const at = this.#nextScheduled();
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  /** Where `nextScheduledAt` is read from: the schedule owns its ticks. */
  followSchedule(next: () => number | undefined): void {
    this.#nextScheduled = next;
  }

  setRepository(diagnostics: readonly Diagnostic[]): void {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    this.#repository = {
      valid: errors === 0,
      errors,
      warnings: diagnostics.length - errors,
      diagnostics: diagnostics.slice(0, 100).map((d) => ({ severity: d.severity, code: d.code, file: d.file, line: d.line, column: d.column, ...(d.cell === undefined ? {} : { cell: d.cell }) })),
    };
    this.changed();
  }

  recordRun(trigger: Trigger, startedAt: number, durationMs: number, run: RunOutcome | { kind: 'git_failed'; message: string }, files?: number): RunReport {
    const report: RunReport = {
      id: ++this.#lastRunId,
      trigger,
      startedAt: new Date(startedAt).toISOString(),
      durationMs,
      result: run.kind === 'git_failed' ? 'git_failed' : runResultOf(run),
      ...(files === undefined ? {} : { files }),
      targets: run.kind === 'done' ? run.targets.map(describeTarget) : [],
      ...(run.kind === 'rejected' || run.kind === 'locked' ? { error: run.error.message } : {}),
      ...(run.kind === 'git_failed' ? { error: run.message } : {}),
      ...(run.kind === 'invalid' ? { error: `the repository has ${run.diagnostics.filter((d) => d.severity === 'error').length} error(s); nothing was sent` } : {}),
    };
    this.runs.unshift(report);
    this.runs.length = Math.min(this.runs.length, KEEP_RUNS);
    if (run.kind === 'done') {
      for (const t of run.targets) if ('result' in t && t.result !== undefined && (t.kind === 'converged' || t.kind === 'changed')) this.ids.set(t.target, t.result.ids);
    }
    const failure = report.error ?? report.targets.find((t) => t.error !== undefined)?.error;
    if (failure === undefined) this.changed();
    else this.update({ lastError: { at: new Date(startedAt + durationMs).toISOString(), message: failure } });
    return report;
  }

  /**
   * Records a verify run: the checks of the glossaries it verified replace theirs; glossaries the
   * repository no longer declares (`declared`) are forgotten.
   */
  recordVerify(outcome: VerifyOutcome, at: number, glossaries: readonly string[], declared: ReadonlySet<string>): void {
    const entry = this.verify.get(outcome.target) ?? { last: { at: '', result: '', glossaries: [] }, checks: new Map<string, CheckReport[]>() };
    entry.last = {
      at: new Date(at).toISOString(),
      result: verifyResultOf(outcome),
      ...(outcome.kind === 'verified' || outcome.kind === 'over_cap' ? { characters: outcome.budget.characters, maxCharacters: outcome.budget.maxCharacters } : {}),
      glossaries: [...glossaries].sort(),
    };
    if (outcome.kind === 'verified' || outcome.kind === 'no_checks') {
      for (const name of glossaries) entry.checks.delete(name);
      for (const check of checkReports(outcome)) entry.checks.set(check.glossary, [...(entry.checks.get(check.glossary) ?? []), check]);
    }
    for (const name of [...entry.checks.keys()]) if (!declared.has(name)) entry.checks.delete(name);
    this.verify.set(outcome.target, entry);
    this.changed();
  }

  /** Passing and failing checks of a target, as last verified. */
  verifyCounts(target: string): { pass: number; fail: number } {
    const all = [...(this.verify.get(target)?.checks.values() ?? [])].flat();
    return { pass: all.filter((c) => c.result === 'pass').length, fail: all.filter((c) => c.result === 'fail').length };
  }

  /**
   * Ready: the repository is valid and the last reconcile succeeded, or one is running; with
   * --git-pull, and fewer than GIT_FAILURES_NOT_READY pulls in a row failed; with --on-drift pull,
   * and the last drift pull did not fail (the daemon then writes nothing, see drift-pull.ts). A
   * suspended target whose last reconcile found differences (`pending`: planned, not written) is
   * ready too, as Flux and Argo CD keep a suspended resource's health: suspending is a choice, not a
   * fault; the reason says so, and /status and termsync_suspended show it.
   */
  readiness(): { ready: boolean; reason: string } {
    if (this.git !== undefined && this.git.failures >= GIT_FAILURES_NOT_READY) {
      return { ready: false, reason: `the last ${this.git.failures} git pulls failed (${this.git.error ?? 'no reason given'}): the service follows an old revision` };
    }
    if (this.repository === undefined) return { ready: false, reason: 'the repository has not been read yet' };
    if (!this.repository.valid) return { ready: false, reason: `the repository has ${this.repository.errors} error(s)` };
    if (this.drift?.result === 'failed') {
      return {
        ready: false,
        reason: `the drift pull failed (${this.drift.error ?? 'no reason given'}): nothing is written to the service until the edits made there can be adopted; the next full reconcile tries again`,
      };
    }
    const suspended = new Set(this.suspended.map((s) => s.target));
    const note = suspended.size === 0 ? '' : `; suspended: ${[...suspended].join(', ')} (differences are reported, nothing is written)`;
    const byTarget = this.targets.readiness(suspended);
    if (byTarget !== undefined) return byTarget.ready ? { ready: true, reason: `${byTarget.reason}${note}` } : byTarget;
    if (this.running !== undefined) return { ready: true, reason: `a reconcile is running${note}` };
    const last = this.runs[0];
    if (last === undefined) return { ready: false, reason: 'no reconcile has run yet' };
    const succeeded = (t: TargetReport): boolean => t.result === 'converged' || t.result === 'changed' || (t.result === 'pending' && suspended.has(t.target));
    if (last.result === 'converged' || last.result === 'changed' || (last.targets.length > 0 && last.targets.every(succeeded))) {
      return { ready: true, reason: `the last reconcile ended ${last.result}${note}` };
    }
    // Why, when the run says: a key or URL missing (`set TERMSYNC_API_KEY`), the service refusing the key …
    const why = last.error ?? last.targets.find((t) => t.error !== undefined)?.error;
    return { ready: false, reason: `the last reconcile ended ${last.result}${why === undefined ? '' : `: ${why}`}` };
  }

  toJSON(): Record<string, unknown> {
    return {
      startedAt: this.startedAt,
      ready: this.readiness(),
      running: this.running ?? null,
      repository: this.repository ?? null,
      schedule: this.schedule ?? null,
      nextScheduledAt: this.nextScheduledAt ?? null,
      suspended: this.suspended,
      nextRetryAt: this.nextRetryAt ?? null,
      git: this.git ?? null,
      localEdits: this.localEdits ?? null,
      lastError: this.lastError ?? null,
      ids: Object.fromEntries(this.ids),
      verify: Object.fromEntries(
        [...this.verify].map(([target, v]) => [target, { ...v.last, ...this.verifyCounts(target), checks: [...v.checks.values()].flat() }]),
      ),
      drift: this.drift ?? null,
      ...this.targets.toJSON(),
      runs: this.runs,
    };
  }
}
