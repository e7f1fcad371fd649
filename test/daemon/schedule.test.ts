import { createTask, getTasks } from 'node-cron';
import { describe, expect, it } from 'vitest';
import { createSchedule, cronTicker, nextMatch, sleepingTicker, type Ticker } from '../../src/daemon/schedule.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

/** A ticker the test fires by hand, recording what it was started with. */
function handTicker(): { ticker: Ticker; started: string[]; stopped: string[]; tick: () => void } {
  const started: string[] = [];
  const stopped: string[] = [];
  let current: (() => void) | undefined;
  return {
    started,
    stopped,
    tick: () => current?.(),
    ticker: (expression, tick) => {
      started.push(expression);
      current = tick;
      return {
        stop: () => {
          stopped.push(expression);
          current = undefined;
        },
      };
    },
  };
}

describe('the schedule', () => {
  it('follows the expression in force: a new one replaces the old, the same one changes nothing, none stops it', () => {
    const hand = handTicker();
    let ticks = 0;
    const schedule = createSchedule({ tick: () => (ticks += 1), logger: silentLogger, ticker: hand.ticker });
    expect(schedule.follow('*/15 * * * *')).toBe(true);
    expect(schedule.follow('*/15 * * * *')).toBe(false);
    hand.tick();
    expect(ticks).toBe(1);
    expect(schedule.follow('0 * * * *')).toBe(true);
    expect(hand.started).toEqual(['*/15 * * * *', '0 * * * *']);
    expect(hand.stopped).toEqual(['*/15 * * * *']);
    expect(schedule.follow(undefined)).toBe(true);
    expect(schedule.expression).toBeUndefined();
    hand.tick();
    expect(ticks).toBe(1);
    schedule.follow('* * * * *');
    schedule.stop();
    schedule.follow('*/5 * * * *');
    expect(hand.started).toEqual(['*/15 * * * *', '0 * * * *', '* * * * *']);
    expect(schedule.expression).toBeUndefined();
  });

  it('says when there is no schedule (drift waits for a file change), once each time it comes to have none', () => {
    const lines: string[] = [];
    const logger = createLogger({}, { write: (line: string) => void lines.push((JSON.parse(line) as { msg: string }).msg) });
    const schedule = createSchedule({ tick: () => undefined, logger, ticker: handTicker().ticker });
    schedule.follow(undefined); // the first config loaded has no `schedule`
    schedule.follow(undefined);
    expect(lines).toEqual([expect.stringMatching(/^no full reconcile scheduled: edits made on the service are found only when a file changes; set `schedule` in the config \(or --schedule\)/)]);
    schedule.follow('*/15 * * * *');
    schedule.follow(undefined);
    expect(lines.filter((l) => l.startsWith('no full reconcile scheduled'))).toHaveLength(2);
    expect(lines).toContain('full reconcile scheduled');
  });

  it('ticks on node-cron by default, and stopping it removes the task', async () => {
    const before = getTasks().size;
    let stop = (): void => undefined;
    // node-cron checks every second: the first tick of a every-second expression comes within one.
    await new Promise<void>((resolve) => {
      const schedule = createSchedule({ tick: resolve, logger: silentLogger, ticker: cronTicker });
      schedule.follow('* * * * * *');
      expect(getTasks().size).toBe(before + 1);
      stop = () => schedule.stop();
    });
    stop();
    expect(getTasks().size).toBe(before);
  });
});

describe('the sleeping ticker (the default: one timer on the daemon clock, until the next match)', () => {
  const minute = 60_000;

  it('ticks at each match and at no other time, with one timer armed at any moment', () => {
    const clock = createVirtualClock({ manual: true });
    let ticks = 0;
    const ticks15 = sleepingTicker(clock)('*/15 * * * *', () => (ticks += 1), silentLogger);
    // 00:00:00 (a match itself) is now: the next one is a quarter of an hour later.
    expect(clock.pendingSleeps()).toBe(1);
    clock.advance(15 * minute - 1);
    expect(ticks).toBe(0);
    clock.advance(1);
    expect(ticks).toBe(1);
    expect(clock.pendingSleeps()).toBe(1);
    clock.advance(45 * minute);
    expect(ticks).toBe(4);
    ticks15.stop();
    expect(clock.pendingSleeps()).toBe(0);
    clock.advance(60 * minute);
    expect(ticks).toBe(4);
  });

  it('follows seconds (6 fields), and sleeps a whole day through for a daily expression', () => {
    const clock = createVirtualClock({ manual: true });
    let fast = 0;
    let daily = 0;
    const a = sleepingTicker(clock)('*/20 * * * * *', () => (fast += 1), silentLogger);
    const b = sleepingTicker(clock)('17 3 * * *', () => (daily += 1), silentLogger);
    clock.advance(minute);
    expect(fast).toBe(3);
    a.stop();
    // Waking at most once a day to work the next match out again, not once a second.
    expect(clock.pendingSleeps()).toBe(1);
    clock.advance(24 * 60 * minute);
    expect(daily).toBe(1);
    clock.advance(24 * 60 * minute);
    expect(daily).toBe(2);
    b.stop();
  });

  it('finds the same next match as node-cron, day-of-week names, L and # included', () => {
    const expressions = ['*/15 * * * *', '0 9 * * MON-FRI', '30 2 L * *', '0 12 * * 5#2', '*/7 */3 * * *', '0 0 29 2 *', '15 10 1,15 * *', '0 */2 * JAN,JUL *', '5 4 * * 0'];
    for (const expression of expressions) {
      const task = createTask(expression, () => undefined);
      const now = Date.now();
      const [theirs] = task.getNextRuns(1);
      expect(nextMatch(expression, now, (d) => task.match(d)), expression).toBe(theirs?.getTime());
      void task.destroy();
    }
  });
});
