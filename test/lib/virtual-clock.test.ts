import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

describe('virtual clock', () => {
  it('wakes sleepers in time order and jumps time to each wake-up', async () => {
    const clock = createVirtualClock({ start: 1000 });
    const woke: [string, number][] = [];
    const nap = (name: string, ms: number) => clock.sleep(ms).then(() => woke.push([name, clock.now()]));
    await Promise.all([nap('late', 300), nap('early', 100), nap('tie-1', 200), nap('tie-2', 200)]);
    expect(woke).toEqual([['early', 1100], ['tie-1', 1200], ['tie-2', 1200], ['late', 1300]]);
  });

  it('holds still while tracked work is pending', async () => {
    const clock = createVirtualClock({ start: 0 });
    let release = (): void => undefined;
    const work = clock.track(new Promise<void>((r) => (release = r)));
    const slept = clock.sleep(500);
    for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
    expect(clock.now()).toBe(0);
    expect(clock.pendingSleeps()).toBe(1);
    release();
    await work;
    await slept;
    expect(clock.now()).toBe(500);
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = createVirtualClock({ start: 0 });
    const controller = new AbortController();
    const slept = clock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(clock.pendingSleeps()).toBe(0);
  });
});
