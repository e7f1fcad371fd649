import type { Diagnostic } from '../lib/diagnostics.js';
import type { PlanSummary } from '../model/plan.js';
import type { RunOutcome, TargetOutcome } from '../reconcile/index.js';
import type { RunResult, Trigger } from './daemon-metrics.js';

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
}

/** Diagnostics by location and rule only: their messages may quote terms, which `/status` never shows. */
export interface DiagnosticLocation {
  readonly severity: Diagnostic['severity'];
  readonly code: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

const KEEP_RUNS = 20;

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
  running: { readonly trigger: Trigger; readonly startedAt: string } | undefined;
  repository: { readonly valid: boolean; readonly errors: number; readonly warnings: number; readonly diagnostics: readonly DiagnosticLocation[] } | undefined;
  readonly runs: RunReport[] = [];
  readonly ids = new Map<string, { readonly glossaries: Readonly<Record<string, string>>; readonly style_rules: Readonly<Record<string, string>> }>();
  lastError: { readonly at: string; readonly message: string } | undefined;
  git: GitReport | undefined;
  schedule: string | undefined;
  nextRetryAt: string | undefined;

  constructor(now: number) {
    this.startedAt = new Date(now).toISOString();
  }

  setRepository(diagnostics: readonly Diagnostic[]): void {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    this.repository = {
      valid: errors === 0,
      errors,
      warnings: diagnostics.length - errors,
      diagnostics: diagnostics.slice(0, 100).map((d) => ({ severity: d.severity, code: d.code, file: d.file, line: d.line, column: d.column, ...(d.cell === undefined ? {} : { cell: d.cell }) })),
    };
  }

  recordRun(trigger: Trigger, startedAt: number, durationMs: number, run: RunOutcome | { kind: 'git_failed'; message: string }, files?: number): RunReport {
    const report: RunReport = {
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
    if (failure !== undefined) this.lastError = { at: new Date(startedAt + durationMs).toISOString(), message: failure };
    return report;
  }

  /** Ready: the repository is valid and the last reconcile succeeded, or one is running. */
  readiness(): { ready: boolean; reason: string } {
    if (this.repository === undefined) return { ready: false, reason: 'the repository has not been read yet' };
    if (!this.repository.valid) return { ready: false, reason: `the repository has ${this.repository.errors} error(s)` };
    if (this.running !== undefined) return { ready: true, reason: 'a reconcile is running' };
    const last = this.runs[0];
    if (last === undefined) return { ready: false, reason: 'no reconcile has run yet' };
    return last.result === 'converged' || last.result === 'changed'
      ? { ready: true, reason: `the last reconcile ended ${last.result}` }
      : { ready: false, reason: `the last reconcile ended ${last.result}` };
  }

  toJSON(): Record<string, unknown> {
    return {
      startedAt: this.startedAt,
      ready: this.readiness(),
      running: this.running ?? null,
      repository: this.repository ?? null,
      schedule: this.schedule ?? null,
      nextRetryAt: this.nextRetryAt ?? null,
      git: this.git ?? null,
      lastError: this.lastError ?? null,
      ids: Object.fromEntries(this.ids),
      runs: this.runs,
    };
  }
}
