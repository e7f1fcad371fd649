import { describe, expect, it } from 'vitest';
import { createFlowControl, type FlowControl } from '../../src/api/flow-control.js';
import { classifyStatus, describeNetworkError, fullJitterBackoff, glossaryCooldownMs, parseRetryAfter } from '../../src/api/retry-policy.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';

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

  /** Successes at loads 1..n, one millisecond apart, as the answers of one second's sends. */
  const acceptUpTo = (flow: FlowControl, clock: VirtualClock, n: number): void => {
    for (let load = 1; load <= n; load += 1) {
      flow.onSuccess(false, { at: clock.now(), load });
      clock.advance(1);
    }
  };
  /** Refusals (Retry-After: 1) at these loads, then the pause sat out and the gate opened again. */
  const refuse = (flow: FlowControl, clock: VirtualClock, ...loads: number[]): void => {
    for (const load of loads) flow.onThrottle(1000, { at: clock.now(), load });
    clock.advance(Math.max(0, flow.openAt(false) - clock.now()));
    flow.openAt(false);
  };

  it('caps the rate just below the load the service refused, once a second round confirms it', () => {
    const clock = createVirtualClock({ start: 0 });
    const rates: number[] = [];
    const flow = createFlowControl({ clock, requestsPerSecond: 40, onRate: (r) => rates.push(r) });
    acceptUpTo(flow, clock, 20);
    refuse(flow, clock, 21); // one round: the top load of a burst may be refused by chance
    expect(flow.currentRate()).toBe(40);
    acceptUpTo(flow, clock, 20);
    flow.onThrottle(1000, { at: clock.now(), load: 23 });
    flow.onThrottle(1000, { at: clock.now(), load: 21 });
    flow.onThrottle(1000, { at: clock.now(), load: 22 });
    expect(flow.currentRate()).toBe(40); // judged when the pause is over, with every answer in
    refuse(flow, clock);
    expect(flow.currentRate()).toBe(20);
    expect(rates).toEqual([20]);
    // The window now holds 20 a second, not 40.
    for (let i = 0; i < 20; i += 1) flow.markSent().done();
    expect(flow.windowWaitMs()).toBe(1005);
  });

  it('needs a third round when the refusals at the top were single, and forgets rounds the service has since disproved', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 25 });
    acceptUpTo(flow, clock, 20);
    refuse(flow, clock, 21);
    acceptUpTo(flow, clock, 22); // accepted above the refused load: that refusal was chance
    refuse(flow, clock, 23);
    acceptUpTo(flow, clock, 22);
    refuse(flow, clock, 23);
    expect(flow.currentRate()).toBe(25); // two rounds at 23, one refusal each
    refuse(flow, clock, 23);
    expect(flow.currentRate()).toBe(22);
  });

  it('climbs back additively, one step per ~20 s of successes, and a refusal at the refused load again cuts at once', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 40 });
    acceptUpTo(flow, clock, 20);
    refuse(flow, clock, 21, 22);
    refuse(flow, clock, 21, 22);
    expect(flow.currentRate()).toBe(20);
    const seen: number[] = [];
    for (let i = 0; i < 20 * 20 + 21 * 20; i += 1) {
      flow.onSuccess(false, { at: clock.now(), load: 20 });
      seen.push(flow.currentRate());
    }
    expect(seen.indexOf(21)).toBe(20 * 20 - 1); // after 400 successes at 20/s
    expect(seen.at(-1)).toBe(22); // +1 each step, not doubling
    expect(new Set(seen)).toEqual(new Set([20, 21, 22]));
    refuse(flow, clock, 21); // refused where it was refused before: no second round needed
    expect(flow.currentRate()).toBe(20);
  });

  it('keeps the rate for refusals not correlated with load: at a load just accepted, at load 1, and on a noisy service', () => {
    const clock = createVirtualClock({ start: 0 });
    const rates: number[] = [];
    const flow = createFlowControl({ clock, requestsPerSecond: 20, onRate: (r) => rates.push(r) });
    acceptUpTo(flow, clock, 12);
    refuse(flow, clock, 3, 7, 12); // the service accepted 12 a second moments ago
    refuse(flow, clock, 1); // a lone request right after a pause
    refuse(flow, clock, 1);
    expect(rates).toEqual([]);
    // The service has refused at loads it accepts: it is noisy, so three rounds refused at the top
    // are not yet proof; the fourth in a row is.
    acceptUpTo(flow, clock, 12);
    refuse(flow, clock, 13, 14);
    refuse(flow, clock, 13, 14);
    refuse(flow, clock, 13);
    expect(flow.currentRate()).toBe(20);
    refuse(flow, clock, 13);
    expect(flow.currentRate()).toBe(12);
    // Proof expires (an accepted load counts for 10 s) and so does the noise (30 s): two rounds
    // refused above every load accepted since then cut.
    clock.advance(30_001);
    refuse(flow, clock, 5, 6);
    refuse(flow, clock, 5, 6);
    expect(flow.currentRate()).toBe(4);
  });

  it('gives each send the load the service surely counted and the load it may have counted', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 10 });
    const first = flow.markSent();
    expect([first.settledLoad, first.load]).toEqual([1, 1]);
    clock.advance(1100);
    const second = flow.markSent(); // the first left over a second ago, but has not been answered
    expect([second.settledLoad, second.load]).toEqual([1, 2]);
    first.done();
    clock.advance(500);
    const third = flow.markSent(); // the first was answered half a second ago: it may still count
    expect([third.settledLoad, third.load]).toEqual([2, 3]);
    // A success proves only the load surely counted; a refusal is judged by the load possibly counted.
    flow.onSuccess(false, third);
    for (let round = 0; round < 3; round += 1) refuse(flow, clock, 3); // three rounds of single refusals confirm
    expect(flow.currentRate()).toBe(2);
  });

  it('releases the window\'s allowance together after a pause, so that concurrent refusals share one pause', () => {
    const clock = createVirtualClock({ start: 0 });
    const pauses: number[] = [];
    const flow = createFlowControl({ clock, requestsPerSecond: 4, onPause: (ms) => pauses.push(ms) });
    expect([flow.reserveSend(), flow.reserveSend()]).toEqual([0, 250]); // evenly spaced at first
    clock.advance(300);
    flow.onSuccess(false, { at: 0, load: 3 }); // the service has accepted this load: the refusals are not about it
    flow.onThrottle(1000, { at: 250, load: 2 });
    clock.advance(20);
    flow.onThrottle(1000, { at: 260, load: 3 }); // in flight when the first refusal came: same pause
    expect(pauses).toEqual([1000, 20]);
    expect(flow.openAt(false)).toBe(1320);
    clock.advance(1000);
    // Four (the rate) at once when the gate opens, then the even spacing again.
    expect(Array.from({ length: 5 }, () => flow.reserveSend())).toEqual([1320, 1320, 1320, 1320, 1570]);
  });

  it('closes the gate for everyone on a throttle, and only for glossaries on 456, within the budget', () => {
    const clock = createVirtualClock({ start: 0 });
    const flow = createFlowControl({ clock, requestsPerSecond: 10, glossaryCooldownBudgetMs: 25_000 });
    expect(flow.onThrottle(2000, { at: 0, load: 1 })).toBe(2000);
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
