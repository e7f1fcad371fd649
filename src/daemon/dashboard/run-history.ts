import type { Diagnostic } from '../../lib/diagnostics.js';
import type { DesiredState } from '../../model/desired.js';
import type { Drift } from '../../model/drift.js';
import type { OperationOutcome, Plan, ResourceKind } from '../../model/index.js';
import type { RunOutcome, TargetOutcome } from '../../reconcile/index.js';
import { renderDriftText, renderPlanMarkdown } from '../../report/index.js';
import type { DriftReport, RunReport } from '../daemon-status.js';
import type { Trigger } from '../triggers.js';

/** What the dashboard shows of a run's target: its plan as the pull-request comment shows it, and what apply did. */
export interface TargetRecord {
  readonly target: string;
  readonly result: TargetOutcome['kind'];
  /**
   * The plan as markdown (report/render-plan-markdown.ts, the pull-request comment), with its term
   * diffs only where terms could be shown when the run ended (`withTerms`), and always without.
   */
  readonly plan?: { readonly withTerms?: string; readonly withoutTerms: string; readonly changes: number; readonly termChanges: number };
  /** What apply did, operation by operation (the first OPERATIONS_KEPT). */
  readonly operations: readonly OperationOutcome[];
  /** Operations left out of `operations`. */
  readonly operationsLeftOut: number;
  readonly error?: string;
}

/** One run as the dashboard keeps it: the `/status` report, each target's plan and results, the repository's problems. */
export interface RunRecord {
  readonly report: RunReport;
  readonly targets: readonly TargetRecord[];
  /** The problems of the load (the located errors of a repository that could not be used), the first DIAGNOSTICS_KEPT. */
  readonly diagnostics: readonly Diagnostic[];
  readonly diagnosticCount: number;
}

/** One drift pull (`--on-drift pull`): what `/status` says of it, and the drift term by term where terms could be shown. */
export interface DriftPullRecord {
  readonly report: DriftReport;
  /** report/render-drift.ts's text (what the drift branch's commit message says), at most DRIFT_TEXT_CHARS. */
  readonly text?: string;
}

/** How a declared resource stands on a target, as the last run that covered it left it. */
export type ResourceState = 'in_sync' | 'differs' | 'failing' | 'invalid' | 'unknown';

export interface ResourceStatus {
  readonly state: ResourceState;
  /** Why it is not in sync: the failed operation's error, the problem in its file. */
  readonly why?: string;
  /** The last run that wrote it. */
  readonly lastChange?: { readonly at: string; readonly runId: number };
}

/** A declared glossary or style rule list, as the last usable load of the repository declared it. */
export interface ResourceItem {
  readonly kind: ResourceKind;
  readonly name: string;
  readonly file: string;
  readonly api?: 'v2' | 'v3';
  readonly language?: string;
  readonly dictionaries: readonly { readonly pair: string; readonly entries: number; readonly file?: string }[];
  readonly instructions?: number;
  readonly tests: number;
}

export interface DurationPoint {
  readonly runId: number;
  /** Start, ms since the epoch. */
  readonly at: number;
  readonly ms: number;
  readonly result: RunReport['result'];
  readonly trigger: Trigger;
}

/** What the dashboard may show; from the config's `ui:` and the listen address. */
export interface DashboardSettings {
  readonly showTerms: boolean;
  readonly keepRuns: number;
}

const OPERATIONS_KEPT = 500;
const DIAGNOSTICS_KEPT = 100;
/** Points of the reconcile-duration chart. */
export const DURATIONS_KEPT = 500;
const DRIFT_TEXT_CHARS = 65_000;

export function resourceKey(kind: ResourceKind, name: string): string {
  return `${kind}\u0000${name}`;
}

/** The plan without its term diffs: what the page shows where terms may not be shown (the counts stay). */
function withoutTermDiffs(plan: Plan): Plan {
  return { ...plan, changes: plan.changes.map((c) => ({ ...c, dictionaries: c.dictionaries.map((d) => ({ ...d, entryChanges: [] })) })) };
}

function planRecord(plan: Plan, showTerms: boolean): NonNullable<TargetRecord['plan']> {
  const termChanges = plan.changes.reduce((n, c) => n + c.dictionaries.reduce((m, d) => m + d.entryChanges.length, 0), 0);
  return {
    ...(showTerms ? { withTerms: renderPlanMarkdown(plan) } : {}),
    withoutTerms: renderPlanMarkdown(withoutTermDiffs(plan)),
    changes: plan.changes.length,
    termChanges,
  };
}

function targetRecord(outcome: TargetOutcome, showTerms: boolean): TargetRecord {
  const plan = 'plan' in outcome ? outcome.plan : undefined;
  const result = 'result' in outcome ? outcome.result : undefined;
  const outcomes = result?.outcomes ?? [];
  const error = 'error' in outcome && outcome.error !== undefined ? outcome.error.message : outcome.kind === 'stale' ? `saved plan is stale: ${outcome.differences.join('; ')}` : undefined;
  return {
    target: outcome.target,
    result: outcome.kind,
    ...(plan === undefined ? {} : { plan: planRecord(plan, showTerms) }),
    operations: outcomes.slice(0, OPERATIONS_KEPT),
    operationsLeftOut: Math.max(0, outcomes.length - OPERATIONS_KEPT),
    ...(error === undefined ? {} : { error }),
  };
}

function inventoryOf(desired: DesiredState): ResourceItem[] {
  const glossaries = desired.glossaries.map(
    (g): ResourceItem => ({
      kind: 'glossary',
      name: g.name,
      file: g.origin.file,
      api: g.api,
      dictionaries: g.dictionaries.map((d) => ({ pair: `${d.sourceLang}-${d.targetLang}`, entries: d.entries.size, ...(d.entriesFile === undefined ? {} : { file: d.entriesFile }) })),
      tests: g.tests?.length ?? 0,
    }),
  );
  const styleRules = desired.styleRules.map(
    (s): ResourceItem => ({ kind: 'style_rules', name: s.name, file: s.origin.file, language: s.language, dictionaries: [], instructions: s.customInstructions.length, tests: 0 }),
  );
  return [...glossaries, ...styleRules];
}

/** The files a resource is read from: its resource file and its entries files. */
function filesOf(item: ResourceItem): string[] {
  return [item.file, ...item.dictionaries.flatMap((d) => (d.file === undefined ? [] : [d.file]))];
}

/**
 * The dashboard's memory of the daemon's runs, bounded: the last `keepRuns` runs with their plans
 * (as markdown, at most the pull-request comment's size each), the durations of the last
 * DURATIONS_KEPT runs, the drift pulls, and how each declared resource stands on each target. Fed
 * by the reconcile runner as each run is recorded; read by the dashboard's pages.
 */
export class RunHistory {
  #settings: DashboardSettings;
  readonly #defaultShowTerms: boolean;
  /** Newest first. */
  readonly #runs: RunRecord[] = [];
  /** Oldest first. */
  readonly #durations: DurationPoint[] = [];
  /** Newest first. */
  readonly #driftPulls: DriftPullRecord[] = [];
  readonly #lastByTrigger = new Map<Trigger, RunReport>();
  #inventory: readonly ResourceItem[] = [];
  #targets: readonly string[] = [];
  readonly #states = new Map<string, Map<string, ResourceStatus>>();

  /** `showTerms`: the default of `ui.show_terms` (true when the daemon listens on loopback only). */
  constructor(defaults: { readonly showTerms: boolean; readonly keepRuns: number }) {
    this.#defaultShowTerms = defaults.showTerms;
    this.#settings = { showTerms: defaults.showTerms, keepRuns: defaults.keepRuns };
  }

  get settings(): DashboardSettings {
    return this.#settings;
  }

  /** The `ui:` of a config that loaded (a repository with errors keeps the settings of the last one that did). */
  configure(ui: { readonly showTerms?: boolean; readonly keepRuns: number } | undefined): void {
    if (ui === undefined) return;
    this.#settings = { showTerms: ui.showTerms ?? this.#defaultShowTerms, keepRuns: ui.keepRuns };
    this.#trim();
  }

  /** A run as `DaemonStatus.recordRun` reported it, with the outcome it was made from. */
  record(report: RunReport, run: RunOutcome | { readonly kind: 'git_failed' }): void {
    const showTerms = this.#settings.showTerms;
    const diagnostics = 'diagnostics' in run ? run.diagnostics : [];
    this.#runs.unshift({
      report,
      targets: run.kind === 'done' ? run.targets.map((t) => targetRecord(t, showTerms)) : [],
      diagnostics: diagnostics.slice(0, DIAGNOSTICS_KEPT),
      diagnosticCount: diagnostics.length,
    });
    this.#durations.push({ runId: report.id, at: Date.parse(report.startedAt), ms: report.durationMs, result: report.result, trigger: report.trigger });
    this.#lastByTrigger.set(report.trigger, report);
    if (run.kind === 'done') {
      this.#inventory = inventoryOf(run.desired);
      this.#targets = run.targets.map((t) => t.target);
      for (const outcome of run.targets) this.#follow(outcome, report);
    } else if (run.kind === 'invalid') {
      this.#markInvalid(run.diagnostics);
    }
    this.#trim();
  }

  /** A drift pull's outcome (`--on-drift pull`), with the drift it adopted. */
  recordDriftPull(report: DriftReport, drift?: Drift): void {
    const text = drift !== undefined && this.#settings.showTerms ? renderDriftText(drift) : undefined;
    this.#driftPulls.unshift({ report, ...(text === undefined ? {} : { text: text.length > DRIFT_TEXT_CHARS ? `${text.slice(0, DRIFT_TEXT_CHARS)}\n… (cut)\n` : text }) });
    this.#trim();
  }

  /** Newest first. */
  runs(): readonly RunRecord[] {
    return this.#runs;
  }

  run(id: number): RunRecord | undefined {
    return this.#runs.find((r) => r.report.id === id);
  }

  durations(): readonly DurationPoint[] {
    return this.#durations;
  }

  driftPulls(): readonly DriftPullRecord[] {
    return this.#driftPulls;
  }

  /** The last run of each trigger (also one older than the runs kept). */
  lastByTrigger(): ReadonlyMap<Trigger, RunReport> {
    return this.#lastByTrigger;
  }

  /** The targets of the last run that reached them (the config's, or the one of --target). */
  targets(): readonly string[] {
    return this.#targets;
  }

  inventory(): readonly ResourceItem[] {
    return this.#inventory;
  }

  resourceStatus(target: string, kind: ResourceKind, name: string): ResourceStatus {
    return this.#states.get(target)?.get(resourceKey(kind, name)) ?? { state: 'unknown' };
  }

  #trim(): void {
    this.#runs.length = Math.min(this.#runs.length, this.#settings.keepRuns);
    this.#driftPulls.length = Math.min(this.#driftPulls.length, this.#settings.keepRuns);
    if (this.#durations.length > DURATIONS_KEPT) this.#durations.splice(0, this.#durations.length - DURATIONS_KEPT);
  }

  /**
   * How the target's resources stand after this run: a resource the plan changed is in sync once
   * every operation of it was applied, failing when one failed or was skipped, differing when
   * nothing was applied (a plan only, a guard); a resource the plan did not name is in sync after a
   * full run, and as before after a run of changed files (which read only what they touch).
   */
  #follow(outcome: TargetOutcome, report: RunReport): void {
    const plan = 'plan' in outcome ? outcome.plan : undefined;
    if (plan === undefined) return;
    const before = this.#states.get(outcome.target) ?? new Map<string, ResourceStatus>();
    const states = new Map<string, ResourceStatus>();
    const ended = new Date(Date.parse(report.startedAt) + report.durationMs).toISOString();
    const full = report.files === undefined;
    for (const item of this.#inventory) {
      const key = resourceKey(item.kind, item.name);
      const previous = before.get(key);
      states.set(key, full || previous === undefined || previous.state === 'invalid' ? { state: 'in_sync', ...(previous?.lastChange === undefined ? {} : { lastChange: previous.lastChange }) } : previous);
    }
    const result = 'result' in outcome ? outcome.result : undefined;
    const byKey = new Map((result?.outcomes ?? []).map((o) => [o.key, o]));
    for (const change of plan.changes) {
      const key = resourceKey(change.address.kind, change.address.name);
      if (!states.has(key)) continue;
      const previous = states.get(key);
      const lastChange = previous?.lastChange === undefined ? {} : { lastChange: previous.lastChange };
      if (result === undefined) {
        states.set(key, { state: 'differs', why: `${change.action} planned, not applied (${outcome.kind})`, ...lastChange });
        continue;
      }
      const ops = change.operations.map((k) => byKey.get(k)).filter((o) => o !== undefined);
      const failed = ops.find((o) => o.status !== 'applied');
      if (failed === undefined && ops.length === change.operations.length) states.set(key, { state: 'in_sync', lastChange: { at: ended, runId: report.id } });
      else states.set(key, { state: 'failing', why: failed?.error?.message ?? failed?.skippedBecause ?? 'not every operation ran', ...lastChange });
    }
    this.#states.set(outcome.target, states);
  }

  /** A load with errors: the resources whose files hold one are `invalid` on every target (nothing was sent). */
  #markInvalid(diagnostics: readonly Diagnostic[]): void {
    const errors = new Map<string, Diagnostic>();
    for (const d of diagnostics) if (d.severity === 'error' && !errors.has(d.file)) errors.set(d.file, d);
    for (const target of this.#targets) {
      const states = this.#states.get(target) ?? new Map<string, ResourceStatus>();
      for (const item of this.#inventory) {
        const error = filesOf(item).map((f) => errors.get(f)).find((d) => d !== undefined);
        if (error === undefined) continue;
        const previous = states.get(resourceKey(item.kind, item.name));
        states.set(resourceKey(item.kind, item.name), {
          state: 'invalid',
          why: `${error.file}:${error.cell ?? `${error.line}:${error.column}`}: ${error.code}`,
          ...(previous?.lastChange === undefined ? {} : { lastChange: previous.lastChange }),
        });
      }
      this.#states.set(target, states);
    }
  }
}
