import { getTasks } from 'node-cron';
import { describe, expect, it } from 'vitest';
import { createSchedule, cronTicker, type Ticker } from '../../src/daemon/schedule.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';

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
