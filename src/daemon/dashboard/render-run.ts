import type { Diagnostic } from '../../lib/diagnostics.js';
import type { OperationOutcome } from '../../model/index.js';
import type { DashboardState } from './dashboard-state.js';
import { durationText, plural, resultBadge, timeHtml, triggerText } from './format-dashboard.js';
import { html, type Html } from './html.js';
import { renderPage } from './render-layout.js';
import { readinessOf, runsTable } from './render-overview.js';
import { renderPlanHtml } from './render-plan-html.js';
import type { RunRecord, TargetRecord } from './run-history.js';

/** Where terms would be: why they are not. */
export const TERMS_HIDDEN = 'Terms are not shown: ui.show_terms is false in the config (the default when the daemon listens beyond this machine).';

function location(d: Diagnostic): string {
  return `${d.file}:${d.cell ?? `${d.line}:${d.column}`}`;
}

/** The repository's problems of a load: where, which rule, and the message where terms may be shown (a message may quote one). */
function problemsTable(record: RunRecord, showTerms: boolean): Html {
  const left = record.diagnosticCount - record.diagnostics.length;
  return html`<table class="data problems"><caption>Problems of the repository (${plural(record.diagnosticCount, 'problem')})</caption><thead><tr><th scope="col">Where</th><th scope="col">Severity</th><th scope="col">Rule</th><th scope="col">Message</th></tr></thead><tbody>${record.diagnostics.map(
    (d) => html`<tr class="${d.severity}"><td><code class="location">${location(d)}</code></td><td>${d.severity}</td><td><code>${d.code}</code></td><td>${showTerms ? html`<span class="message">${d.message}</span>` : html`<span class="muted">hidden (ui.show_terms)</span>`}</td></tr>`,
  )}</tbody></table>${left > 0 ? html`<p class="muted">… and ${plural(left, 'more problem')}: <code>termsync validate</code> lists all.</p>` : ''}${showTerms ? '' : html`<p class="muted">${TERMS_HIDDEN}</p>`}`;
}

function outcomeDetail(o: OperationOutcome): Html {
  if (o.status === 'applied') return html`${o.createdId === undefined ? '' : html`id <code>${o.createdId}</code>`}${o.note === undefined ? '' : html` <span class="muted">${o.note}</span>`}`;
  if (o.status === 'failed') return html`<span class="message">${o.error === undefined ? 'failed' : `${o.error.code}: ${o.error.message}`}</span>${o.error?.traceId === undefined ? '' : html` <span class="muted">(trace id ${o.error.traceId})</span>`}`;
  return html`<span class="muted">${o.skippedBecause ?? 'skipped'}</span>`;
}

function operationsTable(t: TargetRecord): Html {
  if (t.operations.length === 0) return html``;
  return html`<table class="data operations"><caption>What apply did, operation by operation</caption><thead><tr><th scope="col">Operation</th><th scope="col">Request</th><th scope="col">Resource</th><th scope="col">Result</th><th scope="col">Detail</th></tr></thead><tbody>${t.operations.map(
    (o) => html`<tr><td>${o.key}</td><td><code>${o.request}</code></td><td>${o.resource.kind === 'glossary' ? 'glossary' : 'style rules'} <span class="name">${o.resource.name}</span></td><td>${resultBadge(o.status)}</td><td>${outcomeDetail(o)}</td></tr>`,
  )}</tbody></table>${t.operationsLeftOut > 0 ? html`<p class="muted">… and ${plural(t.operationsLeftOut, 'more operation')} (the metrics count all of them).</p>` : ''}`;
}

/** A target's plan as the pull-request comment shows it: with its term diffs, or without them and saying why. */
export function planSection(t: TargetRecord, showTerms: boolean): Html {
  if (t.plan === undefined) return html`<p class="muted">No plan: the run ended before one was made.</p>`;
  const markdown = showTerms ? (t.plan.withTerms ?? t.plan.withoutTerms) : t.plan.withoutTerms;
  const hidden = t.plan.termChanges > 0 && (!showTerms || t.plan.withTerms === undefined);
  return html`<div class="plan">${renderPlanHtml(markdown)}</div>${hidden ? html`<p class="muted">${showTerms ? 'The term diffs of this run were not kept: terms could not be shown when it ran.' : TERMS_HIDDEN} (${plural(t.plan.termChanges, 'term change')})</p>` : ''}`;
}

function targetSection(t: TargetRecord, showTerms: boolean, index: number): Html {
  return html`<section class="card" aria-labelledby="run-target-${index}"><h2 id="run-target-${index}">Target <span class="name">${t.target}</span> ${resultBadge(t.result)}</h2>${t.error === undefined ? '' : html`<p class="problem"><span class="message">${t.error}</span></p>`}${planSection(t, showTerms)}${operationsTable(t)}</section>`;
}

/** `/run?id=N`: the run, each target's plan (summary, API calls in order, term diffs), what apply did, the located errors of a load that failed. */
export function renderRun(state: DashboardState, record: RunRecord): string {
  const r = record.report;
  const showTerms = state.history.settings.showTerms;
  const facts = html`<dl class="facts"><dt>Trigger</dt><dd>${triggerText(r.trigger)}${r.files === undefined ? ' (a full reconcile: every managed dictionary read)' : ` (${plural(r.files, 'changed file')})`}</dd><dt>Started</dt><dd>${timeHtml(r.startedAt)}</dd><dt>Took</dt><dd>${durationText(r.durationMs)}</dd><dt>Result</dt><dd>${resultBadge(r.result)}</dd></dl>`;
  const error = r.error === undefined ? html`` : html`<p class="problem">${r.result === 'invalid' ? 'Nothing was sent: ' : ''}<span class="message">${r.error}</span></p>`;
  const body = html`<h1>Run ${r.id}</h1>
<div id="run" data-live>
<section class="card">${facts}${error}</section>
${record.diagnostics.length > 0 ? html`<section class="card" aria-labelledby="run-problems"><h2 id="run-problems">${r.result === 'invalid' ? 'Located errors' : 'Warnings'}</h2>${problemsTable(record, showTerms)}</section>` : ''}
${record.targets.map((t, i) => targetSection(t, showTerms, i))}
</div>`;
  return renderPage({ title: `Run ${r.id}`, section: '/runs', readiness: readinessOf(state), body });
}

/** `/run?id=N` of a run no longer kept (or never made). */
export function renderRunGone(state: DashboardState, id: string): string {
  const kept = state.history.runs();
  const body = html`<h1>Run not found</h1><div id="run" data-live><p>No run ${id} is kept: the dashboard keeps the last ${plural(state.history.settings.keepRuns, 'run')} (<code>ui.keep_runs</code>)${kept.length > 0 ? html`, now runs ${kept.at(-1)?.report.id ?? ''} to ${kept[0]?.report.id ?? ''}` : ''}.</p></div>`;
  return renderPage({ title: 'Run not found', section: '/runs', readiness: readinessOf(state), body });
}

/** `/runs`: every run kept. */
export function renderRuns(state: DashboardState): string {
  const runs = state.history.runs().map((r) => r.report);
  const body = html`<h1>Runs</h1><div id="runs" data-live>${runsTable(runs, `The last ${plural(runs.length, 'run')} kept (ui.keep_runs: ${state.history.settings.keepRuns}), newest first`)}</div>`;
  return renderPage({ title: 'Runs', section: '/runs', readiness: readinessOf(state), body });
}
