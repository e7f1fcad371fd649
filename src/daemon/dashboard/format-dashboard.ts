import type { PlanSummary } from '../../model/plan.js';
import type { RunReport } from '../daemon-status.js';
import { html, type Html } from './html.js';

/** `2026-11-28 14:03:07 UTC` (the page is read by people; the `datetime` attribute keeps the ISO form). */
export function timeText(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
}

export function timeHtml(iso: string | undefined): Html {
  if (iso === undefined) return html`—`;
  return html`<time datetime="${iso}">${timeText(iso)}</time>`;
}

/** `850 ms`, `12.4 s`, `3 min 5 s`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

/** How a result reads at a glance: good, waiting for someone, or failed. */
export function resultTone(result: string): 'ok' | 'warn' | 'bad' | 'info' {
  if (result === 'converged' || result === 'changed' || result === 'in_sync' || result === 'passed' || result === 'written' || result === 'applied') return 'ok';
  if (result === 'pending' || result === 'blocked' || result === 'stale' || result === 'interrupted' || result === 'differs' || result === 'unknown' || result === 'skipped') return 'warn';
  if (result === 'running' || result === 'suspended') return 'info';
  return 'bad';
}

const RESULT_TEXT: Readonly<Record<string, string>> = {
  converged: 'in sync',
  changed: 'changed',
  pending: 'changes pending',
  blocked: 'blocked by a guard',
  stale: 'stale plan',
  partial: 'partly applied',
  refused: 'key refused',
  unreachable: 'service unreachable',
  misconfigured: 'misconfigured',
  interrupted: 'interrupted',
  invalid: 'repository has errors',
  locked: 'lock held',
  rejected: 'rejected',
  git_failed: 'git pull failed',
  in_sync: 'in sync',
  differs: 'differs',
  failing: 'failing',
  unknown: 'not read yet',
};

/** A result as a badge: its words (the label as the metrics write it stays in the title). */
export function resultBadge(result: string): Html {
  return html`<span class="badge ${resultTone(result)}" title="${result}">${RESULT_TEXT[result] ?? result.replaceAll('_', ' ')}</span>`;
}

const TRIGGER_TEXT: Readonly<Record<string, string>> = {
  startup: 'start-up',
  files: 'file change',
  schedule: 'schedule',
  retry: 'retry',
  reload: 'reload (SIGHUP)',
  git: 'git pull',
  webhook: 'webhook',
  api: 'POST /reconcile',
};

export function triggerText(trigger: string): string {
  return TRIGGER_TEXT[trigger] ?? trigger.replaceAll('_', ' ');
}

/** `+2 ~1 -0` of a plan summary, in words for the title. */
export function summaryHtml(summary: PlanSummary | undefined): Html {
  if (summary === undefined) return html`—`;
  const none = summary.add + summary.change + summary.destroy === 0;
  const words = `Plan: ${summary.add} to add, ${summary.change} to change, ${summary.destroy} to destroy.`;
  return none ? html`<span class="summary" title="${words}">no changes</span>` : html`<span class="summary" title="${words}">+${summary.add} ~${summary.change} −${summary.destroy}</span>`;
}

/** The summary of a run's target, or of every target added up. */
export function runSummary(report: RunReport, target?: string): PlanSummary | undefined {
  const targets = report.targets.filter((t) => target === undefined || t.target === target);
  const summaries = targets.map((t) => t.summary).filter((s) => s !== undefined);
  if (summaries.length === 0) return undefined;
  if (summaries.length === 1) return summaries[0];
  return summaries.reduce((a, b) => ({
    ...a,
    add: a.add + b.add,
    change: a.change + b.change,
    destroy: a.destroy + b.destroy,
  }));
}

/** The link to a run's page. */
export function runLink(id: number, text?: string): Html {
  return html`<a href="/run?id=${id}">${text ?? `#${id}`}</a>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
