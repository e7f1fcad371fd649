import type { DashboardState } from './dashboard-state.js';
import { durationText, resultBadge, runLink, timeHtml, triggerText } from './format-dashboard.js';
import { html } from './html.js';
import { durationChart, requestsChart, throttleChart, trafficTable } from './render-charts.js';
import { renderPage } from './render-layout.js';
import { readinessOf } from './render-overview.js';

/** Minutes the traffic charts cover. */
const CHART_MINUTES = 60;

/** `/charts`: reconcile duration over time, requests per minute by status, throttle waits; each with its numbers. */
export function renderCharts(state: DashboardState): string {
  const durations = state.history.durations();
  const minutes = state.traffic.minutes(CHART_MINUTES);
  const body = html`<h1>Charts</h1>
<div id="charts" data-live>
<section class="card" aria-labelledby="chart-durations"><h2 id="chart-durations">Reconcile duration</h2>${durationChart(durations)}
<details><summary>The numbers (${durations.length} runs)</summary><table class="data"><caption>Runs, oldest first</caption><thead><tr><th scope="col">Run</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Took</th><th scope="col">Result</th></tr></thead><tbody>${durations.map(
    (p) => html`<tr><td>${state.history.run(p.runId) === undefined ? `#${p.runId}` : runLink(p.runId)}</td><td>${triggerText(p.trigger)}</td><td>${timeHtml(new Date(p.at).toISOString())}</td><td>${durationText(p.ms)}</td><td>${resultBadge(p.result)}</td></tr>`,
  )}</tbody></table></details></section>
<section class="card" aria-labelledby="chart-requests"><h2 id="chart-requests">Requests to the service, per minute, by status</h2>${requestsChart(minutes)}</section>
<section class="card" aria-labelledby="chart-throttle"><h2 id="chart-throttle">Throttle waits</h2><p class="muted">Seconds each minute the request queue stood still because the service throttled (429, 529: every request) or cooled glossary calls down (456).</p>${throttleChart(minutes)}
<details><summary>The numbers</summary>${trafficTable(minutes)}</details></section>
</div>`;
  return renderPage({ title: 'Charts', section: '/charts', readiness: readinessOf(state), body });
}
