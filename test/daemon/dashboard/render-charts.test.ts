import { describe, expect, it } from 'vitest';
import { durationChart, niceMax, requestsChart, throttleChart } from '../../../src/daemon/dashboard/render-charts.js';
import { createTrafficSeries } from '../../../src/daemon/dashboard/traffic-series.js';
import { createVirtualClock } from '../../../src/lib/virtual-clock.js';

describe("the dashboard's charts", () => {
  it('count requests per minute by status, 429, 456 and 529 each apart, and the seconds paused, on the daemon clock', () => {
    const clock = createVirtualClock({ manual: true, start: Date.UTC(2026, 10, 28, 12, 0, 0) });
    const traffic = createTrafficSeries(clock);
    const hooks = traffic.hooks;
    for (const status of [200, 200, 201, 429, 456, 529, 503, 404]) hooks.onRequest?.('GET', '/v3/glossaries', status, 5);
    hooks.onRequest?.('GET', '/v3/glossaries', 'network', 5);
    hooks.onPause?.('429', 2000);
    clock.advance(60_000);
    hooks.onRequest?.('PUT', '/v3/glossaries/{id}/dictionaries', 200, 5);
    hooks.onPause?.('456', 500);
    const minutes = traffic.minutes(3);
    expect(minutes.map((m) => m.requests)).toEqual([
      { '2xx': 0, '3xx': 0, '4xx': 0, '429': 0, '456': 0, '529': 0, '5xx': 0, network: 0 },
      { '2xx': 3, '3xx': 0, '4xx': 1, '429': 1, '456': 1, '529': 1, '5xx': 1, network: 1 },
      { '2xx': 1, '3xx': 0, '4xx': 0, '429': 0, '456': 0, '529': 0, '5xx': 0, network: 0 },
    ]);
    expect(minutes.map((m) => m.waitMs)).toEqual([
      { '429': 0, '456': 0, '529': 0 },
      { '429': 2000, '456': 0, '529': 0 },
      { '429': 0, '456': 500, '529': 0 },
    ]);
    const requests = requestsChart(minutes).text;
    expect(requests).toContain('10 requests in the last 3 minutes: 2xx 4, 3xx 0, 4xx 1, 429 1, 456 1, 529 1, 5xx 1, network 1.');
    for (const series of ['429', '456', '529']) expect(requests).toMatch(new RegExp(`<rect class="s-${series}"[^>]*><title>12:00: 1 \\(${series}\\)</title>`));
    expect(requests).toMatch(/<li><span class="swatch s-429" aria-hidden="true"><\/span>429: 1<\/li>/);
    const waits = throttleChart(minutes).text;
    expect(waits).toContain('Seconds paused in the last 3 minutes: 429 2.0 s, 456 0.5 s, 529 0.0 s.');
    // Minutes older than the series keeps are forgotten.
    clock.advance(200 * 60_000);
    hooks.onRequest?.('GET', '/v3/glossaries', 200, 5);
    expect(traffic.minutes(120).reduce((n, m) => n + m.requests['2xx'], 0)).toBe(1);
  });

  it('draw reconcile durations on a round scale, one dot per run with its result', () => {
    expect([0, 0.3, 1, 7, 12, 4100].map(niceMax)).toEqual([1, 0.5, 1, 10, 20, 5000]);
    const at = Date.UTC(2026, 10, 28, 12, 0, 0);
    const chart = durationChart([
      { runId: 1, at, ms: 2300, result: 'changed', trigger: 'startup' },
      { runId: 2, at: at + 60_000, ms: 80, result: 'invalid', trigger: 'files' },
    ]).text;
    expect(chart).toContain('2 runs from 2026-11-28 12:00:00 UTC to 2026-11-28 12:01:00 UTC; the slowest took 2.3 s (run 1).');
    expect(chart).toMatch(/<circle class="dot ok"[^>]*><title>run 1: start-up, 2.3 s, changed<\/title>/);
    expect(chart).toMatch(/<circle class="dot bad"[^>]*><title>run 2: file change, 80 ms, invalid<\/title>/);
    expect(chart).toContain('>5.0 s</text>');
    expect(durationChart([]).text).toContain('No reconcile has run yet.');
  });
});
