import { resourceRows, type DashboardState, type ResourceRow } from './dashboard-state.js';
import { plural, resultBadge, runLink, timeHtml } from './format-dashboard.js';
import { html, type Html } from './html.js';
import { renderPage } from './render-layout.js';
import { readinessOf } from './render-overview.js';

export const SORTS = ['name', 'state', 'changed', 'file'] as const;
export type ResourceSort = (typeof SORTS)[number];

/** Worst first: what needs a look comes to the top. */
const STATE_ORDER = { failing: 0, invalid: 1, differs: 2, unknown: 3, in_sync: 4 } as const;

const STATE_WORDS = { in_sync: 'in_sync', differs: 'differs', failing: 'failing', invalid: 'invalid', unknown: 'unknown' } as const;

function compare(sort: ResourceSort): (a: ResourceRow, b: ResourceRow) => number {
  const byName = (a: ResourceRow, b: ResourceRow): number => a.item.name.localeCompare(b.item.name, 'en') || a.target.localeCompare(b.target, 'en') || a.item.kind.localeCompare(b.item.kind);
  if (sort === 'state') return (a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state] || byName(a, b);
  if (sort === 'changed') return (a, b) => (b.lastChange?.runId ?? 0) - (a.lastChange?.runId ?? 0) || byName(a, b);
  if (sort === 'file') return (a, b) => a.item.file.localeCompare(b.item.file, 'en') || byName(a, b);
  return byName;
}

/** Whether a row matches a filter: every word of it in the name, the file, the live id or the target (ignoring case). */
export function matchesFilter(row: ResourceRow, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return true;
  const text = `${row.item.name} ${row.item.file} ${row.liveId ?? ''} ${row.target}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

function dictionariesCell(row: ResourceRow): Html {
  const item = row.item;
  if (item.kind === 'style_rules') return html`${item.language ?? ''}, ${plural(item.instructions ?? 0, 'custom instruction')}`;
  return html`${item.dictionaries.map((d, i) => html`${i > 0 ? ' · ' : ''}${d.pair} <span class="count">${d.entries.toLocaleString('en')}</span>`)}`;
}

function row(r: ResourceRow, withTarget: boolean): Html {
  const tests = r.item.tests === 0 ? html`<span class="muted">—</span>` : html`<span class="${r.tests.fail > 0 ? 'fail' : ''}">${r.tests.pass}/${r.tests.pass + r.tests.fail}</span>`;
  return html`<tr><th scope="row"><span class="name">${r.item.name}</span> <span class="muted">${r.item.kind === 'glossary' ? (r.item.api ?? 'v3') : 'style rules'}</span></th><td><code>${r.item.file}</code></td>${withTarget ? html`<td>${r.target}</td>` : ''}<td>${r.liveId === undefined ? html`<span class="muted">—</span>` : html`<code>${r.liveId}</code>`}</td><td>${dictionariesCell(r)}</td><td>${resultBadge(STATE_WORDS[r.state])}${r.why === undefined ? '' : html` <span class="why">${r.why}</span>`}</td><td>${tests}</td><td>${r.lastChange === undefined ? html`<span class="muted">—</span>` : html`${timeHtml(r.lastChange.at)} ${runLink(r.lastChange.runId)}`}</td></tr>`;
}

function sortLink(sort: ResourceSort, current: ResourceSort, filter: string, label: string): Html {
  const query = `?sort=${sort}${filter === '' ? '' : `&q=${encodeURIComponent(filter)}`}`;
  return sort === current ? html`<a href="${query}" aria-current="true">${label} ▾</a>` : html`<a href="${query}">${label}</a>`;
}

/**
 * `/resources`: every declared glossary and style rule list on each target, with its file, live id,
 * dictionaries and entry counts, state and last change; filtered (`?q=`, and as you type with the
 * page's script) and sorted (`?sort=`).
 */
export function renderResources(state: DashboardState, options: { readonly filter?: string; readonly sort?: string } = {}): string {
  const filter = (options.filter ?? '').slice(0, 200);
  const sort: ResourceSort = (SORTS as readonly string[]).includes(options.sort ?? '') ? (options.sort as ResourceSort) : 'name';
  const all = resourceRows(state).sort(compare(sort));
  const shown = all.filter((r) => matchesFilter(r, filter));
  const withTarget = state.history.targets().length > 1;
  const head = html`<tr><th scope="col">${sortLink('name', sort, filter, 'Name')}</th><th scope="col">${sortLink('file', sort, filter, 'File')}</th>${withTarget ? html`<th scope="col">Target</th>` : ''}<th scope="col">Live id</th><th scope="col">Dictionaries (entries)</th><th scope="col">${sortLink('state', sort, filter, 'State')}</th><th scope="col">Tests</th><th scope="col">${sortLink('changed', sort, filter, 'Last change')}</th></tr>`;
  const body = html`<h1>Resources</h1>
<form class="filter" method="get" action="/resources" role="search">
<label for="resource-filter">Filter by name, file or id</label>
<input id="resource-filter" name="q" type="search" value="${filter}" autocomplete="off" spellcheck="false">
<input type="hidden" name="sort" value="${sort}">
<button type="submit">Filter</button>
</form>
<div id="resources" data-live>
<p id="resource-count" class="count-line" role="status">${shown.length === all.length ? plural(all.length, 'resource') : `${shown.length.toLocaleString('en')} of ${plural(all.length, 'resource')}`}</p>
${all.length === 0 ? html`<p class="empty">No resource is known yet: they are listed once a reconcile has read the repository.</p>` : html`<table class="data resources" id="resource-table"><caption>Declared resources, sorted by ${sort}</caption><thead>${head}</thead><tbody>${shown.map((r) => row(r, withTarget))}</tbody></table>`}
</div>`;
  return renderPage({ title: 'Resources', section: '/resources', readiness: readinessOf(state), body });
}
