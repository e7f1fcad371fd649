import type { RunReport, SuspendedTarget } from '../daemon-status.js';
import { lastTargetRun, resourceRows, stateCounts, triggerOrder, type DashboardState } from './dashboard-state.js';
import { durationText, plural, resultBadge, runLink, runSummary, summaryHtml, timeHtml, triggerText } from './format-dashboard.js';
import { html, joinHtml, type Html } from './html.js';
import { durationChart } from './render-charts.js';
import { renderPage, type PageParts } from './render-layout.js';

/** Runs listed on the overview; the Runs page has every run kept. */
const RECENT_RUNS = 10;
/** Points of the overview's duration chart (the Charts page has all that are kept). */
const OVERVIEW_DURATIONS = 100;
/** Located errors listed on the overview; the run's page has up to a hundred. */
const OVERVIEW_PROBLEMS = 10;

/** What suspended a target. */
const SUSPENDED_BY: Readonly<Record<SuspendedTarget['by'], string>> = { flag: '--suspend', config: 'suspend: true in the config', target: "the target's suspend: true" };

/** The header's readiness line of every page, and the change of the daemon's state it was read at. */
export function readinessOf(state: DashboardState): PageParts['readiness'] {
  return { ...state.status.readiness(), version: state.status.version };
}

function daemonLine(state: DashboardState): Html {
  const { status } = state;
  const parts: Html[] = [];
  if (status.running !== undefined) parts.push(html`<li>${resultBadge('running')} A reconcile is running: ${triggerText(status.running.trigger)}, since ${timeHtml(status.running.startedAt)}.</li>`);
  const suspended = status.suspended;
  if (suspended.length > 0) parts.push(html`<li>${resultBadge('suspended')} Suspended: ${joinHtml(suspended.map((s) => html`<span class="name">${s.target}</span> (${SUSPENDED_BY[s.by]})`), html`, `)}: differences are planned and reported, nothing is written.</li>`);
  const retry = status.nextRetryAt;
  if (retry !== undefined) parts.push(html`<li>The failed run is retried at ${timeHtml(retry)}.</li>`);
  if (status.lastError !== undefined) parts.push(html`<li>Last error (${timeHtml(status.lastError.at)}): <span class="message">${status.lastError.message}</span></li>`);
  if (status.git !== undefined) {
    const git = status.git;
    parts.push(
      git.ok
        ? html`<li>Git revision applied: <code>${(git.head ?? '').slice(0, 12)}</code> (pulled ${timeHtml(git.at)}).</li>`
        : html`<li>${resultBadge('git_failed')} The last ${plural(git.failures, 'git pull')} failed: <span class="message">${git.error ?? ''}</span></li>`,
    );
  }
  return parts.length === 0 ? html`` : html`<ul class="daemon-line">${parts}</ul>`;
}

function byTriggerTable(state: DashboardState, target: string): Html {
  const last = state.history.lastByTrigger();
  const rows = triggerOrder().map((trigger) => {
    const run = last.get(trigger);
    if (run === undefined) return html`<tr><th scope="row">${triggerText(trigger)}</th><td colspan="5" class="empty">not yet</td></tr>`;
    const part = run.targets.find((t) => t.target === target);
    return html`<tr><th scope="row">${triggerText(trigger)}</th><td>${runLink(run.id)}</td><td>${timeHtml(run.startedAt)}</td><td>${durationText(run.durationMs)}</td><td>${resultBadge(part?.result ?? run.result)}</td><td>${summaryHtml(part?.summary)}</td></tr>`;
  });
  return html`<table class="data"><caption>Last run by trigger</caption><thead><tr><th scope="col">Trigger</th><th scope="col">Run</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Result</th><th scope="col">Plan</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function driftFact(state: DashboardState, target: string): Html {
  if (state.onDrift === 'pull') {
    const pull = state.history.driftPulls().find((p) => p.report.target === target || p.report.target === '');
    if (pull === undefined) return html`no drift pull yet (<code>--on-drift pull</code>)`;
    const r = pull.report;
    if (r.result === 'written') return html`${resultBadge('written')} ${plural(r.termChanges ?? 0, 'term change')} pulled into ${plural(r.files?.length ?? 0, 'file')}${r.branch === undefined ? '' : html`, pushed to <code>${r.branch}</code>`} (${timeHtml(r.at)}) · <a href="/drift">drift</a>`;
    if (r.result === 'failed') return html`${resultBadge('failed')} the drift pull failed (${timeHtml(r.at)}): <span class="message">${r.error ?? ''}</span>`;
    return html`${resultBadge('in_sync')} none at the last drift pull (${timeHtml(r.at)})`;
  }
  const scheduled = state.history.lastByTrigger().get('schedule');
  const part = scheduled?.targets.find((t) => t.target === target);
  if (scheduled === undefined || part === undefined) return html`no scheduled run yet`;
  const changes = (part.summary?.add ?? 0) + (part.summary?.change ?? 0) + (part.summary?.destroy ?? 0);
  if (changes === 0) return html`${resultBadge('in_sync')} none at the last scheduled run (${timeHtml(scheduled.startedAt)})`;
  const did = state.onDrift === 'report' ? 'reported' : part.result === 'changed' ? 'repaired' : part.result;
  return html`<span class="badge warn">${plural(changes, 'resource')}</span> differed at the last scheduled run (${runLink(scheduled.id)}, ${timeHtml(scheduled.startedAt)}): ${did} · <a href="/drift">drift</a>`;
}

function testsFact(state: DashboardState, target: string): Html {
  const verify = state.status.verify.get(target);
  if (verify === undefined) return html`not run yet (they run after a reconcile that changed a glossary with <code>tests:</code>)`;
  const { pass, fail } = state.status.verifyCounts(target);
  return html`<span class="badge ${fail > 0 ? 'bad' : 'ok'}">${pass} passing, ${fail} failing</span> (last verify ${timeHtml(verify.last.at)}: ${verify.last.result})`;
}

function targetCard(state: DashboardState, target: string, index: number): Html {
  const last = lastTargetRun(state, target);
  const counts = stateCounts(resourceRows(state), target);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const facts: Html[] = [
    html`<dt>State</dt><dd>${last === undefined ? html`not reconciled yet` : html`${resultBadge(last.part.result)} at run ${runLink(last.run.id)} (${timeHtml(last.run.startedAt)})${last.part.error === undefined ? '' : html`: <span class="message">${last.part.error}</span>`}`}</dd>`,
    html`<dt>Resources</dt><dd><a href="/resources">${plural(total, 'resource')}</a>: ${counts.in_sync} in sync${counts.differs > 0 ? `, ${counts.differs} differ` : ''}${counts.failing > 0 ? `, ${counts.failing} failing` : ''}${counts.invalid > 0 ? `, ${counts.invalid} with errors in their files` : ''}</dd>`,
    html`<dt>Next scheduled run</dt><dd>${state.status.schedule === undefined ? html`no schedule` : html`${timeHtml(state.status.nextScheduledAt)} (<code>${state.status.schedule}</code>)`}</dd>`,
    html`<dt>Drift found</dt><dd>${driftFact(state, target)}</dd>`,
    html`<dt>Glossary tests</dt><dd>${testsFact(state, target)}</dd>`,
  ];
  const suspended = state.status.suspended.find((s) => s.target === target);
  facts.push(html`<dt>Suspended</dt><dd>${suspended === undefined ? 'no' : html`${resultBadge('suspended')} ${SUSPENDED_BY[suspended.by]}: differences are planned and reported, nothing is written`}</dd>`);
  return html`<section class="card" aria-labelledby="target-${index}"><h2 id="target-${index}">Target <span class="name">${target}</span></h2><dl class="facts">${facts}</dl>${byTriggerTable(state, target)}</section>`;
}

function repositorySection(state: DashboardState): Html {
  const repo = state.status.repository;
  if (repo === undefined) return html`<section class="card"><h2>Repository</h2><p>Not read yet.</p></section>`;
  if (repo.valid) return html`<section class="card"><h2>Repository</h2><p>${resultBadge('in_sync')} valid${repo.warnings > 0 ? `, ${plural(repo.warnings, 'warning')}` : ''}.</p></section>`;
  const failed = state.history.runs().find((r) => r.report.result === 'invalid');
  const listed = repo.diagnostics.filter((d) => d.severity === 'error').slice(0, OVERVIEW_PROBLEMS);
  return html`<section class="card problem"><h2>Repository</h2><p>${resultBadge('invalid')} ${plural(repo.errors, 'error')}: nothing is sent until they are fixed.${failed === undefined ? '' : html` The located errors: run ${runLink(failed.report.id)}.`}</p><ul class="problems">${listed.map(
    (d) => html`<li><code class="location">${d.file}:${d.line}:${d.column}</code> ${d.code}</li>`,
  )}</ul></section>`;
}

export function runsTable(runs: readonly RunReport[], caption: string): Html {
  if (runs.length === 0) return html`<p class="empty">No reconcile has run yet.</p>`;
  return html`<table class="data runs"><caption>${caption}</caption><thead><tr><th scope="col">Run</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Result</th><th scope="col">Plan</th></tr></thead><tbody>${runs.map(
    (r) => html`<tr><td>${runLink(r.id)}</td><td>${triggerText(r.trigger)}${r.files === undefined ? '' : html` <span class="muted">(${plural(r.files, 'file')})</span>`}</td><td>${timeHtml(r.startedAt)}</td><td>${durationText(r.durationMs)}</td><td>${resultBadge(r.result)}</td><td>${summaryHtml(runSummary(r))}</td></tr>`,
  )}</tbody></table>`;
}

/** `/`: each target, ready or not and why, the last run of each trigger, drift, tests; the repository; the recent runs. */
export function renderOverview(state: DashboardState): string {
  const targets = state.history.targets();
  const cards = targets.length === 0 ? html`<p class="empty">No reconcile has reached a target yet.</p>` : html`${targets.map((t, i) => targetCard(state, t, i))}`;
  const recent = state.history.runs().slice(0, RECENT_RUNS).map((r) => r.report);
  const durations = state.history.durations().slice(-OVERVIEW_DURATIONS);
  const body = html`<h1>Overview</h1>
<div id="overview" data-live>
${daemonLine(state)}
${cards}
${repositorySection(state)}
<section class="card"><h2>Recent runs</h2>${runsTable(recent, `The last ${plural(recent.length, 'run')} (all kept: Runs)`)}</section>
<section class="card"><h2>Reconcile duration</h2>${durationChart(durations, 'overview-durations')}</section>
</div>`;
  return renderPage({ title: 'Overview', section: '/', readiness: readinessOf(state), body });
}
