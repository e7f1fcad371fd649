import { durationText, resultTone, timeText, triggerText } from './format-dashboard.js';
import { html, joinHtml, type Html } from './html.js';
import type { DurationPoint } from './run-history.js';
import { STATUS_GROUPS, THROTTLE_KINDS, type MinuteTraffic, type StatusGroup, type ThrottleKind } from './traffic-series.js';

/*
 * Charts drawn on the server as SVG, from numbers only: no script, no outside asset, colours from
 * the stylesheet (classes). Each has a title and a description for screen readers, a legend in
 * words, and its numbers as a table beside it.
 */

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };
const PLOT_W = WIDTH - PAD.left - PAD.right;
const PLOT_H = HEIGHT - PAD.top - PAD.bottom;

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function n(value: number): string {
  return (Math.round(value * 10) / 10).toString();
}

function axes(maxY: number, label: (v: number) => string, xLabels: readonly { x: number; text: string }[]): Html {
  const ticks = [0, 0.5, 1].map((f) => {
    const y = PAD.top + PLOT_H * (1 - f);
    return html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${n(y)}" y2="${n(y)}"/><text class="tick" x="${PAD.left - 6}" y="${n(y + 4)}" text-anchor="end">${label(maxY * f)}</text>`;
  });
  const xs = xLabels.map((l) => html`<text class="tick" x="${n(l.x)}" y="${HEIGHT - 8}" text-anchor="middle">${l.text}</text>`);
  return html`${ticks}${xs}`;
}

function svg(id: string, title: string, description: string, body: Html): Html {
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" preserveAspectRatio="xMidYMid meet"><title id="${id}-title">${title}</title><desc id="${id}-desc">${description}</desc>${body}</svg>`;
}

function clock(ms: number): string {
  return timeText(new Date(ms).toISOString()).slice(11, 16);
}

/** Reconcile duration over time: one dot per run, its tone by result (the table lists each run). */
export function durationChart(points: readonly DurationPoint[], id = 'durations'): Html {
  if (points.length === 0) return html`<p class="empty">No reconcile has run yet.</p>`;
  const first = points[0]?.at ?? 0;
  const last = points.at(-1)?.at ?? first;
  const span = Math.max(1, last - first);
  const maxY = niceMax(Math.max(...points.map((p) => p.ms)));
  const x = (at: number): number => (points.length === 1 ? PAD.left + PLOT_W / 2 : PAD.left + ((at - first) / span) * PLOT_W);
  const y = (ms: number): number => PAD.top + PLOT_H * (1 - ms / maxY);
  const line = points.map((p) => `${n(x(p.at))},${n(y(p.ms))}`).join(' ');
  const dots = points.map(
    (p) => html`<circle class="dot ${resultTone(p.result)}" cx="${n(x(p.at))}" cy="${n(y(p.ms))}" r="3.5"><title>run ${p.runId}: ${triggerText(p.trigger)}, ${durationText(p.ms)}, ${p.result}</title></circle>`,
  );
  const slowest = points.reduce((a, b) => (b.ms > a.ms ? b : a));
  const description = `${points.length} runs from ${timeText(new Date(first).toISOString())} to ${timeText(new Date(last).toISOString())}; the slowest took ${durationText(slowest.ms)} (run ${slowest.runId}).`;
  const body = html`${axes(maxY, (v) => durationText(v), [
    { x: PAD.left, text: clock(first) },
    { x: WIDTH - PAD.right - 16, text: clock(last) },
  ])}<polyline class="trend" points="${line}"/>${dots}`;
  return svg(id, 'Reconcile duration over time', description, body);
}

function stackedBars<K extends string>(
  id: string,
  title: string,
  minutes: readonly MinuteTraffic[],
  keys: readonly K[],
  valueOf: (m: MinuteTraffic, key: K) => number,
  label: (v: number) => string,
  description: string,
): Html {
  const totals = minutes.map((m) => keys.reduce((sum, k) => sum + valueOf(m, k), 0));
  const maxY = niceMax(Math.max(0, ...totals));
  const slot = PLOT_W / Math.max(1, minutes.length);
  const bars = minutes.map((m, i) => {
    let base = PAD.top + PLOT_H;
    const parts = keys.map((k) => {
      const v = valueOf(m, k);
      if (v <= 0) return html``;
      const h = (v / maxY) * PLOT_H;
      base -= h;
      return html`<rect class="s-${k}" x="${n(PAD.left + i * slot + 1)}" y="${n(base)}" width="${n(Math.max(1, slot - 2))}" height="${n(h)}"><title>${clock(m.minute)}: ${label(v)} (${k})</title></rect>`;
    });
    return joinHtml(parts);
  });
  const first = minutes[0]?.minute ?? 0;
  const last = minutes.at(-1)?.minute ?? first;
  return svg(
    id,
    title,
    description,
    html`${axes(maxY, label, [
      { x: PAD.left + 12, text: clock(first) },
      { x: WIDTH - PAD.right - 16, text: clock(last) },
    ])}${bars}`,
  );
}

function legend<K extends string>(keys: readonly K[], totals: (k: K) => number, unit: (v: number) => string): Html {
  return html`<ul class="legend">${keys.map((k) => html`<li><span class="swatch s-${k}" aria-hidden="true"></span>${k}: ${unit(totals(k))}</li>`)}</ul>`;
}

function sum<K extends string>(minutes: readonly MinuteTraffic[], valueOf: (m: MinuteTraffic, key: K) => number, key: K): number {
  return minutes.reduce((s, m) => s + valueOf(m, key), 0);
}

const requestsOf = (m: MinuteTraffic, k: StatusGroup): number => m.requests[k];
const waitOf = (m: MinuteTraffic, k: ThrottleKind): number => m.waitMs[k] / 1000;

/** Requests to the service per minute, stacked by status (429, 456 and 529 each their own colour). */
export function requestsChart(minutes: readonly MinuteTraffic[], id = 'requests'): Html {
  const total = (k: StatusGroup): number => sum(minutes, requestsOf, k);
  const all = STATUS_GROUPS.reduce((s, k) => s + total(k), 0);
  const description = `${all} requests in the last ${minutes.length} minutes: ${STATUS_GROUPS.map((k) => `${k} ${total(k)}`).join(', ')}.`;
  return html`${stackedBars(id, 'Requests per minute by status', minutes, STATUS_GROUPS, requestsOf, (v) => String(Math.round(v)), description)}${legend(STATUS_GROUPS, total, (v) => String(v))}`;
}

/** Seconds per minute the request queue stood still because the service throttled (429, 529) or cooled glossary calls down (456). */
export function throttleChart(minutes: readonly MinuteTraffic[], id = 'throttle'): Html {
  const total = (k: ThrottleKind): number => sum(minutes, waitOf, k);
  const description = `Seconds paused in the last ${minutes.length} minutes: ${THROTTLE_KINDS.map((k) => `${k} ${total(k).toFixed(1)} s`).join(', ')}.`;
  return html`${stackedBars(id, 'Throttle waits (seconds paused per minute)', minutes, THROTTLE_KINDS, waitOf, (v) => `${n(v)} s`, description)}${legend(THROTTLE_KINDS, total, (v) => `${v.toFixed(1)} s`)}`;
}

/** The numbers of the traffic charts: the minutes that had any. */
export function trafficTable(minutes: readonly MinuteTraffic[]): Html {
  const busy = minutes.filter((m) => STATUS_GROUPS.some((k) => m.requests[k] > 0) || THROTTLE_KINDS.some((k) => m.waitMs[k] > 0));
  if (busy.length === 0) return html`<p class="empty">No request to the service in this time.</p>`;
  return html`<table class="data"><caption>Requests and pauses per minute (minutes without any left out)</caption><thead><tr><th scope="col">Minute</th>${STATUS_GROUPS.map((k) => html`<th scope="col">${k}</th>`)}${THROTTLE_KINDS.map((k) => html`<th scope="col">paused ${k}</th>`)}</tr></thead><tbody>${busy.map(
    (m) => html`<tr><th scope="row">${timeText(new Date(m.minute).toISOString()).slice(0, 16)}</th>${STATUS_GROUPS.map((k) => html`<td>${m.requests[k]}</td>`)}${THROTTLE_KINDS.map((k) => html`<td>${(m.waitMs[k] / 1000).toFixed(1)} s</td>`)}</tr>`,
  )}</tbody></table>`;
}
