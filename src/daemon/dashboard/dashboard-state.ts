import type { DaemonStatus, RunReport } from '../daemon-status.js';
import { TRIGGERS, type Trigger } from '../triggers.js';
import type { ResourceItem, ResourceState, RunHistory } from './run-history.js';
import type { TrafficSeries } from './traffic-series.js';

/** Everything a page is drawn from: the daemon's state as `/status` serves it, and the dashboard's run history. */
export interface DashboardState {
  readonly status: DaemonStatus;
  readonly history: RunHistory;
  readonly traffic: TrafficSeries;
  /** What a full reconcile does with differences (`--on-drift`). */
  readonly onDrift: 'apply' | 'report' | 'pull';
  /** The daemon's clock, ms since the epoch. */
  readonly now: number;
}

/** The triggers in the order of the trigger table (a new way to start a run is one more row there, and here). */
export function triggerOrder(): Trigger[] {
  return Object.keys(TRIGGERS) as Trigger[];
}

/** One resource on one target, as the Resources page lists it. */
export interface ResourceRow {
  readonly item: ResourceItem;
  readonly target: string;
  readonly state: ResourceState;
  readonly why?: string;
  readonly liveId?: string;
  readonly lastChange?: { readonly at: string; readonly runId: number };
  readonly tests: { readonly pass: number; readonly fail: number };
}

export function resourceRows(state: DashboardState): ResourceRow[] {
  const { history, status } = state;
  const rows: ResourceRow[] = [];
  for (const target of history.targets()) {
    const ids = status.ids.get(target);
    const checks = status.verify.get(target)?.checks;
    for (const item of history.inventory()) {
      const s = history.resourceStatus(target, item.kind, item.name);
      const liveId = item.kind === 'glossary' ? ids?.glossaries[item.name] : ids?.style_rules[item.name];
      const own = item.kind === 'glossary' ? (checks?.get(item.name) ?? []) : [];
      rows.push({
        item,
        target,
        state: s.state,
        ...(s.why === undefined ? {} : { why: s.why }),
        ...(liveId === undefined ? {} : { liveId }),
        ...(s.lastChange === undefined ? {} : { lastChange: s.lastChange }),
        tests: { pass: own.filter((c) => c.result === 'pass').length, fail: own.filter((c) => c.result === 'fail').length },
      });
    }
  }
  return rows;
}

/** How many resources of a target stand in each state. */
export function stateCounts(rows: readonly ResourceRow[], target: string): Record<ResourceState, number> {
  const counts: Record<ResourceState, number> = { in_sync: 0, differs: 0, failing: 0, invalid: 0, unknown: 0 };
  for (const row of rows) if (row.target === target) counts[row.state]++;
  return counts;
}

/** The last run that reached `target`, and that target's part of it. */
export function lastTargetRun(state: DashboardState, target: string): { run: RunReport; part: RunReport['targets'][number] } | undefined {
  for (const { report: run } of state.history.runs()) {
    const part = run.targets.find((t) => t.target === target);
    if (part !== undefined) return { run, part };
  }
  return undefined;
}
