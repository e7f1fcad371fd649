import { describe, expect, it } from 'vitest';
import { createFlowControl } from '../../src/api/flow-control.js';
import { classifyStatus, describeNetworkError, fullJitterBackoff, glossaryCooldownMs, parseRetryAfter } from '../../src/api/retry-policy.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('retry policy', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter(new Date(now - 7000).toUTCString(), now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
  });

  it('classifies answers', () => {
    expect([200, 204, 429, 529, 456, 500, 502, 503, 504, 401, 403, 400, 404, 413].map(classifyStatus)).toEqual([
      'ok', 'ok', 'throttle', 'throttle', 'glossary_quota', 'transient', 'transient', 'transient', 'transient', 'auth', 'auth', 'final', 'final', 'final',
    ]);
  });

  it('backs off exponentially with full jitter, capped', () => {
    expect([0, 1, 2, 3].map((a) => fullJitterBackoff(a, () => 0.999, 100, 500))).toEqual([99, 199, 399, 499]);
    expect(fullJitterBackoff(5, () => 0, 100, 500)).toBe(0);
    expect([0, 1, 2, 3, 9].map((s) => glossaryCooldownMs(s))).toEqual([5000, 10000, 20000, 40000, 60000]);
  });

  it('tells requests that never left from those that may have landed', () => {
    expect(describeNetworkError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toEqual({ code: 'ECONNREFUSED', maybeSent: false });
    const socket = Object.assign(new Error('closed'), { code: 'UND_ERR_SOCKET', cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
    expect(describeNetworkError(socket)).toEqual({ code: 'UND_ERR_SOCKET', maybeSent: true });
  });
});

describe('flow control', () => {
  it('spaces sends evenly at the configured rate', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 3 });
    expect(Array.from({ length: 5 }, () => flow.reserveSend())).toEqual([0, 334, 667, 1000, 1334]);
  });

  it('sends no more than `rate` requests in any second, counted from when earlier ones were answered', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 4, windowMarginMs: 5 });
    const first = flow.markSent();
    clock.advance(40);
    first.done(); // answered 40 ms later: the server may have counted it as late as that
    for (let i = 0; i < 3; i += 1) flow.markSent().done();
    expect(flow.windowWaitMs()).toBe(1005); // 40 + 1000 + 5 - 40
    clock.advance(1005);
    expect(flow.windowWaitMs()).toBe(0);
    flow.markSent(); // still in flight
    for (let i = 0; i < 3; i += 1) flow.markSent().done();
    expect(flow.windowWaitMs()).toBe(10); // look again until the bounding request is answered
  });

  it('halves the rate once per round of throttling and raises it after a run of successes, never above the configured rate', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 10 });
    flow.onThrottle(1000, 0);
    expect(flow.currentRate()).toBe(5);
    flow.onThrottle(1000, 0); // an answer to a request sent before the decrease: no second halving
    expect(flow.currentRate()).toBe(5);
    clock.advance(10);
    flow.onThrottle(1000, 5);
    expect(flow.currentRate()).toBe(2.5);
    const rates: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      flow.onSuccess(false);
      rates.push(flow.currentRate());
    }
    expect(rates[1]).toBe(2.5); // not raised before a run of successes
    expect(rates.every((r, i) => i === 0 || r >= (rates[i - 1] ?? 0))).toBe(true);
    expect(Math.max(...rates)).toBe(10);
  });

  it('never drops below a quarter of the configured rate and is back at it after a few short runs of successes', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 5 });
    for (let i = 0; i < 10; i += 1) {
      clock.advance(100);
      flow.onThrottle(1000, clock.now() - 1); // each sent after the previous decrease
    }
    expect(flow.currentRate()).toBe(1.25);
    let successes = 0;
    while (flow.currentRate() < 5) {
      flow.onSuccess(false);
      successes += 1;
      expect(successes).toBeLessThanOrEqual(6);
    }
    expect(flow.currentRate()).toBe(5);
  });

  it('recovers under random throttling: 20 % of answers 429, the mean rate stays near the configured one', () => {
    // Simulated on the virtual clock: one request per 1/rate seconds, each answered 429 with
    // probability 0.2 (a seeded draw), the gate pausing 1 s as Retry-After: 1 asks.
    const clock = createVirtualClock({ start: 0 });
    let seed = 42;
    const draw = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const flow = createFlowControl({ clock, requestsPerSecond: 5, random: draw });
    const rates: number[] = [];
    let done = 0;
    while (done < 200) {
      const at = Math.max(flow.openAt(false), flow.reserveSend());
      clock.advance(Math.max(0, at - clock.now()));
      const sentAt = clock.now();
      clock.advance(20);
      if (draw() < 0.2) flow.onThrottle(1000, sentAt);
      else {
        flow.onSuccess(false);
        done += 1;
      }
      rates.push(flow.currentRate());
    }
    expect(Math.min(...rates)).toBeGreaterThanOrEqual(1.25);
    const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
    expect(mean).toBeGreaterThan(2.5);
    // 263 sends at 5/s are 53 s and the 63 throttles pause 1 s each: 116 s at best. (With the
    // old floor of 1/16 and additive increase this took 600 s.)
    expect(rates).toHaveLength(263);
    expect(clock.now()).toBeLessThan(140_000);
  });

  it('closes the gate for everyone on a throttle, and only for glossaries on 456, within the budget', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 10, glossaryCooldownBudgetMs: 25_000 });
    expect(flow.onThrottle(2000, 0)).toBe(2000);
    expect(flow.openAt(false)).toBe(2000);
    expect(flow.onGlossaryQuota(10_000)).toBe(10_000);
    expect(flow.openAt(false)).toBe(2000);
    expect(flow.openAt(true)).toBe(10_000);
    expect(flow.onGlossaryQuota(undefined)).toBe(10_000); // 5 s × 2: the default cool-down doubles
    // Overlapping cool-downs count once: until 10 s is spent, not 20 s.
    expect(flow.openAt(true)).toBe(10_000);
    clock.advance(10_000);
    expect(flow.onGlossaryQuota(10_000)).toBe(10_000); // 20 s spent
    clock.advance(10_000);
    expect(flow.onGlossaryQuota(10_000)).toBeUndefined(); // 30 s would exceed the 25 s budget
  });
});
