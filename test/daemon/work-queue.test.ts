import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { createWorkQueue, exponentialBackoff, processQueue, type WorkItem, type WorkQueue } from '../../src/daemon/work-queue.js';

/** Requests are lists of what asked for the run, so a test sees what coalesced into what. */
function queue(options: { baseMs?: number; maxMs?: number } = {}): { clock: ReturnType<typeof createVirtualClock>; q: WorkQueue<string, string[]> } {
  const clock = createVirtualClock({ start: 0, manual: true });
  const q = createWorkQueue<string, string[]>({ clock, merge: (a, b) => [...a, ...b], rateLimiter: exponentialBackoff(options.baseMs ?? 100, options.maxMs ?? 500) });
  return { clock, q };
}

/** Lets every promise callback that is already due run: whatever the queue resolves, it resolves synchronously or in a microtask. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A get() whose answer the test reads later, and whether it has come. */
function pendingGet(q: WorkQueue<string, string[]>): { readonly done: boolean; readonly item: WorkItem<string, string[]> | undefined; readonly promise: Promise<unknown> } {
  const state: { done: boolean; item: WorkItem<string, string[]> | undefined; promise: Promise<unknown> } = { done: false, item: undefined, promise: Promise.resolve() };
  state.promise = q.get().then((item) => {
    state.done = true;
    state.item = item;
  });
  return state;
}

describe('the work queue', () => {
  it('coalesces adds of a queued key into one item carrying every request, in order of the keys', async () => {
    const { q } = queue();
    q.add('a', ['files x']);
    q.add('b', ['startup']);
    q.add('a', ['files y']);
    q.add('a', ['schedule']);
    expect(q.length()).toBe(2);
    expect(await q.get()).toEqual({ key: 'a', request: ['files x', 'files y', 'schedule'] });
    expect(await q.get()).toEqual({ key: 'b', request: ['startup'] });
    expect(q.length()).toBe(0);
  });

  it('hands a key to one worker at a time; other keys run alongside', async () => {
    const { q } = queue();
    const running = new Set<string>();
    const overlaps: string[] = [];
    const log: string[] = [];
    const release: (() => void)[] = [];
    const handle = async ({ key, request }: WorkItem<string, string[]>): Promise<void> => {
      if (running.has(key)) overlaps.push(key);
      running.add(key);
      log.push(`${key}:${request.join('+')}`);
      await new Promise<void>((resolve) => release.push(resolve));
      running.delete(key);
    };
    const workers = processQueue(q, handle, { workers: 3, crashed: (_item, error) => void overlaps.push(String(error)) });
    q.add('a', ['1']);
    q.add('b', ['1']);
    await settle();
    // While a and b run, a is added twice more: the third worker must not take it.
    q.add('a', ['2']);
    q.add('a', ['3']);
    await settle();
    expect(log).toEqual(['a:1', 'b:1']);
    for (const r of release.splice(0)) r();
    await settle();
    // a's adds during its run: exactly one more run, with both requests.
    expect(log).toEqual(['a:1', 'b:1', 'a:2+3']);
    for (const r of release.splice(0)) r();
    await q.idle();
    expect(overlaps).toEqual([]);
    q.shutDown();
    await workers;
  });

  it('a key added during its run gives exactly one more run, and then none', async () => {
    const { q } = queue();
    q.add('k', ['first']);
    const first = await q.get();
    expect(first?.request).toEqual(['first']);
    q.add('k', ['during 1']);
    q.add('k', ['during 2']);
    // Not handed out while the first run is not done.
    const next = pendingGet(q);
    await settle();
    expect(next.done).toBe(false);
    q.done('k');
    await next.promise;
    expect(next.item).toEqual({ key: 'k', request: ['during 1', 'during 2'] });
    q.done('k');
    expect(q.length()).toBe(0);
    const none = pendingGet(q);
    await settle();
    expect(none.done).toBe(false);
    q.shutDown();
    await none.promise;
    expect(none.item).toBeUndefined();
  });

  it('backs a failed key off on the clock: base, doubled, capped; forget starts over and drops the waiting retry', async () => {
    const { clock, q } = queue({ baseMs: 100, maxMs: 500 });
    const waits: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const at = q.addRateLimited('k', [`retry ${i + 1}`]) ?? NaN;
      waits.push(at - clock.now());
      expect(q.waitingUntil('k')).toBe(at);
      const got = pendingGet(q);
      clock.advance(waits[i]! - 1);
      await settle();
      expect(got.done).toBe(false);
      clock.advance(1);
      await got.promise;
      expect(got.item).toEqual({ key: 'k', request: [`retry ${i + 1}`] });
      expect(q.waitingUntil('k')).toBeUndefined();
      q.done('k');
    }
    expect(waits).toEqual([100, 200, 400, 500, 500]);
    expect(q.failures('k')).toBe(5);

    // A retry waits; the key succeeds meanwhile: the retry is dropped and the next failure waits the base again.
    q.addRateLimited('k', ['dropped']);
    q.forget('k');
    expect(q.waitingUntil('k')).toBeUndefined();
    expect(clock.pendingSleeps()).toBe(0);
    clock.advance(10_000);
    expect(q.length()).toBe(0);
    expect((q.addRateLimited('k', ['again']) ?? NaN) - clock.now()).toBe(100);
  });

  it('keeps one delayed add per key: the later replaces the earlier, their requests folded together', async () => {
    const { clock, q } = queue();
    q.addAfter('k', ['first'], 1000);
    q.addAfter('k', ['second'], 300);
    expect(q.waitingUntil('k')).toBe(300);
    expect(clock.pendingSleeps()).toBe(1);
    clock.advance(300);
    expect(await q.get()).toEqual({ key: 'k', request: ['first', 'second'] });
    clock.advance(1000);
    expect(q.length()).toBe(0);
  });

  it('a retry that falls due while its key runs coalesces into one more run', async () => {
    const { clock, q } = queue();
    q.add('k', ['files']);
    await q.get();
    q.addRateLimited('k', ['retry']);
    clock.advance(100);
    q.add('k', ['schedule']);
    q.done('k');
    expect(await q.get()).toEqual({ key: 'k', request: ['retry', 'schedule'] });
  });

  it('idle() resolves once nothing is queued or running; a delayed add does not count', async () => {
    const { q } = queue();
    let idle = false;
    q.add('k', ['one']);
    const waited = q.idle().then(() => (idle = true));
    const item = await q.get();
    await settle();
    expect(idle).toBe(false);
    q.addAfter('k', ['later'], 5_000);
    q.done(item?.key ?? '');
    await waited;
    expect(idle).toBe(true);
  });

  it('shutDown drops what is queued and waiting, ignores later adds, answers get() with undefined, and lets the running item finish', async () => {
    const { clock, q } = queue();
    let finish = (): void => undefined;
    const handled: string[] = [];
    const workers = processQueue(
      q,
      async ({ key, request }) => {
        handled.push(`${key}:${request.join('+')}`);
        await new Promise<void>((resolve) => (finish = resolve));
      },
      { workers: 1, crashed: () => undefined },
    );
    q.add('a', ['running']);
    await settle();
    q.add('a', ['queued again']);
    q.add('b', ['queued']);
    q.addRateLimited('c', ['waiting']);
    q.shutDown();
    expect(q.shuttingDown).toBe(true);
    expect(clock.pendingSleeps()).toBe(0);
    q.add('d', ['after']);
    expect(q.addAfter('d', ['after'], 10)).toBeUndefined();
    expect(q.length()).toBe(0);
    let stopped = false;
    void workers.then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    finish();
    await workers;
    expect(handled).toEqual(['a:running']);
    expect(await q.get()).toBeUndefined();
    await q.idle();
  });

  it('a handler that throws is reported and the worker goes on', async () => {
    const { q } = queue();
    const crashed: string[] = [];
    const handled: string[] = [];
    const workers = processQueue(
      q,
      async ({ key }) => {
        await Promise.resolve();
        if (key === 'bad') throw new Error('bug');
        handled.push(key);
      },
      { workers: 1, crashed: (item, error) => void crashed.push(`${item.key}: ${(error as Error).message}`) },
    );
    q.add('bad', []);
    q.add('good', []);
    await q.idle();
    expect(crashed).toEqual(['bad: bug']);
    expect(handled).toEqual(['good']);
    q.shutDown();
    await workers;
  });

  it('refuses a back-off that is not a positive range', () => {
    expect(() => exponentialBackoff(0, 100)).toThrow('expected 0 < base <= max back-off, got base 0 ms and max 100 ms');
    expect(() => exponentialBackoff(200, 100)).toThrow(/got base 200 ms and max 100 ms/);
  });
});
