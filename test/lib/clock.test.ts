import { describe, expect, it } from 'vitest';
import { repeatEvery, systemClock } from '../../src/lib/clock.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('clock timers', () => {
  it('a manual virtual clock fires timers only when advanced, in time order, each at its own time', () => {
    const clock = createVirtualClock({ start: 0, manual: true });
    const fired: [string, number][] = [];
    clock.setTimer(300, () => fired.push(['late', clock.now()]));
    clock.setTimer(100, () => fired.push(['early', clock.now()]));
    const cancelled = clock.setTimer(200, () => fired.push(['cancelled', clock.now()]));
    cancelled.cancel();
    expect(clock.nextWakeAt()).toBe(100);
    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([['early', 100]]);
    clock.advance(1000);
    expect(fired).toEqual([['early', 100], ['late', 300]]);
    expect(clock.now()).toBe(1100);
    expect(clock.pendingSleeps()).toBe(0);
  });

  it('a manual virtual clock never moves by itself, even with sleepers waiting', async () => {
    const clock = createVirtualClock({ start: 0, manual: true });
    let woke = false;
    const slept = clock.sleep(50).then(() => (woke = true));
    for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
    expect(woke).toBe(false);
    expect(clock.now()).toBe(0);
    clock.advance(50);
    await slept;
    expect(woke).toBe(true);
  });

  it('an automatic virtual clock jumps to a timer as it does to a sleeper', async () => {
    const clock = createVirtualClock({ start: 0 });
    const at = await new Promise<number>((resolve) => clock.setTimer(5_000, () => resolve(clock.now())));
    expect(at).toBe(5_000);
  });

  it('repeatEvery fires once per period passed, a timer armed during advance included, and stops when cancelled', () => {
    const clock = createVirtualClock({ start: 0, manual: true });
    const at: number[] = [];
    const every = repeatEvery(clock, 100, () => at.push(clock.now()));
    clock.advance(350);
    expect(at).toEqual([100, 200, 300]);
    every.cancel();
    clock.advance(1000);
    expect(at).toEqual([100, 200, 300]);
    expect(clock.pendingSleeps()).toBe(0);
  });

  it('the system clock fires timers in order and not once cancelled', async () => {
    const fired: string[] = [];
    systemClock.setTimer(1, () => fired.push('cancelled')).cancel();
    systemClock.setTimer(2, () => fired.push('kept'));
    // Node runs a 1 ms timer before a later one of 3 ms: once the last has fired, the first would have.
    await new Promise<void>((resolve) => systemClock.setTimer(3, resolve));
    expect(fired).toEqual(['kept']);
  });

  it('only the virtual clock can hold still during I/O', () => {
    expect('track' in systemClock).toBe(false);
    expect('track' in createVirtualClock()).toBe(true);
  });
});
