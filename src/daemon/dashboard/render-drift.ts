import type { DashboardState } from './dashboard-state.js';
import { plural, resultBadge, runLink, timeHtml } from './format-dashboard.js';
import { html, type Html } from './html.js';
import { renderPage } from './render-layout.js';
import { readinessOf } from './render-overview.js';
import { planSection, TERMS_HIDDEN } from './render-run.js';
import type { DriftPullRecord, TargetRecord } from './run-history.js';

const MODE_TEXT: Readonly<Record<DashboardState['onDrift'], string>> = {
  apply: 'the scheduled full reconcile writes the repository over what changed on the service (--on-drift apply)',
  report: 'the scheduled full reconcile reports what changed on the service and writes nothing (--on-drift report)',
  pull: 'each full reconcile first writes what changed on the service into the repository’s files (--on-drift pull), then applies what is left',
};

/** What the daemon did with the differences a scheduled run found on a target. */
function whatWasDone(state: DashboardState, t: TargetRecord): string {
  if (t.result === 'changed') return 'repaired: the service holds the repository’s state again';
  if (t.result === 'pending') return state.onDrift === 'report' ? 'reported: nothing was written (--on-drift report)' : 'held: nothing was written while the drift pull fails';
  if (t.result === 'blocked') return 'held by a safety guard: nothing was written';
  if (t.result === 'partial') return 'partly repaired: some operations failed (the run’s page lists them)';
  return t.result;
}

function pullSection(record: DriftPullRecord, showTerms: boolean, index: number): Html {
  const r = record.report;
  const what =
    r.result === 'written'
      ? html`pulled into ${plural(r.files?.length ?? 0, 'file')}: ${plural(r.termChanges ?? 0, 'term change')} in ${plural(r.glossaries ?? 0, 'glossary', 'glossaries')}, ${plural(r.styleRules ?? 0, 'style rule list')}${r.branch === undefined ? '' : html`; pushed to the branch <code>${r.branch}</code> for review`}${r.error === undefined ? '' : html`; the branch could not be pushed: <span class="message">${r.error}</span>`}`
      : r.result === 'failed'
        ? html`the pull failed, so the run wrote nothing to the service: <span class="message">${r.error ?? ''}</span>`
        : html`nothing to pull: the repository holds what the service has`;
  const files = r.files === undefined || r.files.length === 0 ? html`` : html`<ul class="files">${r.files.map((f) => html`<li><code>${f}</code></li>`)}</ul>`;
  const terms = record.text !== undefined && showTerms ? html`<pre class="drift-text">${record.text}</pre>` : r.result === 'written' ? html`<p class="muted">${showTerms ? 'The drift term by term was not kept: terms could not be shown when it was pulled.' : TERMS_HIDDEN}</p>` : html``;
  return html`<section class="card" aria-labelledby="pull-${index}"><h2 id="pull-${index}">Drift pull ${timeHtml(r.at)} ${resultBadge(r.result)}</h2><p>Target <span class="name">${r.target === '' ? '(none chosen)' : r.target}</span>: ${what}</p>${files}${terms}</section>`;
}

/** `/drift`: what changed on the service outside git, term by term, and what the daemon did about it. */
export function renderDrift(state: DashboardState): string {
  const showTerms = state.history.settings.showTerms;
  const scheduled = state.history
    .runs()
    .filter((r) => r.report.trigger === 'schedule')
    .flatMap((r) => r.targets.filter((t) => (t.plan?.changes ?? 0) > 0).map((t) => ({ run: r, target: t })));
  const pulls = state.history.driftPulls();
  const found = scheduled.map(
    ({ run, target }, i) =>
      html`<section class="card" aria-labelledby="drift-${i}"><h2 id="drift-${i}">Scheduled run ${runLink(run.report.id)}, ${timeHtml(run.report.startedAt)}: target <span class="name">${target.target}</span></h2><p>${resultBadge(target.result)} ${whatWasDone(state, target)}. In the term diffs, <code>-</code> is what the service held and <code>+</code> what the repository holds.</p>${planSection(target, showTerms)}</section>`,
  );
  const none = scheduled.length === 0 && pulls.length === 0 ? html`<p class="empty">No drift found in the runs kept: every scheduled run found the service equal to the repository${state.history.lastByTrigger().has('schedule') ? '' : ' (no scheduled run yet)'}.</p>` : html``;
  const body = html`<h1>Drift</h1>
<div id="drift" data-live>
<p>Drift is what changed on the service outside git. Here ${MODE_TEXT[state.onDrift]}.</p>
${none}
${pulls.map((p, i) => pullSection(p, showTerms, i))}
${found}
</div>`;
  return renderPage({ title: 'Drift', section: '/drift', readiness: readinessOf(state), body });
}
