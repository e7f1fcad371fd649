import { createTask, parse } from 'node-cron';
import type { ClockTimer, TimerClock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';

/** A running source of ticks for one cron expression. */
export interface Ticks {
  stop(): void;
  /** When the next tick is due (ms since the epoch), where the ticker knows. */
  next?(): number | undefined;
}

/**
 * Starts calling `tick` at each time `expression` (cron, 5 or 6 fields, already validated by the
 * config's rules or the `--schedule` option's check) matches. The one place that knows how the
 * schedule keeps time: the daemon's clock by default (`sleepingTicker`), node-cron's own timer as
 * an alternative (`cronTicker`).
 */
export type Ticker = (expression: string, tick: () => void, logger: Logger) => Ticks;

/** node-cron: a task that checks the expression every second. */
export const cronTicker: Ticker = (expression, tick, logger) => {
  const task = createTask(expression, tick, {
    name: 'termsync-full-reconcile',
    noOverlap: true,
    logger: {
      info: () => undefined,
      debug: () => undefined,
      warn: (m) => logger.warn({ cron: String(m) }, 'schedule'),
      error: (m) => logger.error({ cron: String(m) }, 'schedule'),
    },
  });
  void task.start();
  return { stop: () => void task.destroy(), next: () => task.getNextRun()?.getTime() };
};

/** The longest a sleep lasts before the next match is worked out again (a clock set forward or back is then followed within a day). */
const MAX_SLEEP_MS = 86_400_000;
/** Days searched for the next matching day: enough for any date node-cron accepts (a 29 February on a given weekday recurs within 28 years). */
const MAX_DAYS = 366 * 28;

/** The first (hour, minute, second) of the lists, in that order, later than `after` (undefined: none later today). */
function laterToday(fields: { hour: number[]; minute: number[]; second: number[] }, after: readonly [number, number, number]): [number, number, number] | undefined {
  for (const h of fields.hour) {
    if (h < after[0]) continue;
    for (const m of fields.minute) {
      if (h === after[0] && m < after[1]) continue;
      for (const s of fields.second) {
        if (h === after[0] && m === after[1] && s <= after[2]) continue;
        return [h, m, s];
      }
    }
  }
  return undefined;
}

/**
 * The next time after `afterMs` that `expression` matches, in the process's time zone (as node-cron
 * keeps it): node-cron parses the expression into its lists of seconds, minutes and hours, and says
 * whether a day matches (its day-of-month and day-of-week rules, `L` and `#` included); this only
 * walks the days. Undefined when no day within MAX_DAYS matches (30 February).
 */
export function nextMatch(expression: string, afterMs: number, matches: (date: Date) => boolean): number | undefined {
  const parsed = parse(expression);
  const fields = { hour: [...parsed.hour].sort((a, b) => a - b), minute: [...parsed.minute].sort((a, b) => a - b), second: [...parsed.second].sort((a, b) => a - b) };
  const first: [number, number, number] = [fields.hour[0] ?? 0, fields.minute[0] ?? 0, fields.second[0] ?? 0];
  const after = new Date(afterMs);
  let time: [number, number, number] | undefined = laterToday(fields, [after.getHours(), after.getMinutes(), after.getSeconds()]);
  for (let day = 0; day < MAX_DAYS; day++) {
    if (time !== undefined) {
      const candidate = new Date(after.getFullYear(), after.getMonth(), after.getDate() + day, ...time);
      // A time a change of daylight saving time skips or repeats is checked like any other.
      if (candidate.getTime() > afterMs && matches(candidate)) return candidate.getTime();
    }
    time = first;
  }
  return undefined;
}

/**
 * Sleeps on `clock` until the expression's next match, ticks, and sleeps again: no timer in
 * between (node-cron's task is only asked whether a day matches, never started).
 */
export function sleepingTicker(clock: TimerClock): Ticker {
  return (expression, tick, logger) => {
    const task = createTask(expression, () => undefined, { name: 'termsync-full-reconcile-matcher' });
    const matches = (date: Date): boolean => task.match(date);
    let timer: ClockTimer | undefined;
    let stopped = false;
    let nextAt: number | undefined;
    const arm = (afterMs: number): void => {
      const next = nextMatch(expression, afterMs, matches);
      nextAt = next;
      if (next === undefined) {
        logger.warn({ schedule: expression }, 'the schedule never matches: no scheduled full reconcile');
        return;
      }
      const wait = (): void => {
        const left = next - clock.now();
        if (left > 0) {
          timer = clock.setTimer(Math.min(left, MAX_SLEEP_MS), () => (stopped ? undefined : wait()));
          return;
        }
        arm(Math.max(next, clock.now()));
        tick();
      };
      wait();
    };
    arm(clock.now());
    return {
      next: () => nextAt,
      stop: () => {
        stopped = true;
        timer?.cancel();
        void task.destroy();
      },
    };
  };
}

/** The full-reconcile schedule: follows the expression in force (the option's, else the config's). */
export interface Schedule {
  /** The expression ticking now (undefined: none). */
  readonly expression: string | undefined;
  /** When the next scheduled run is due (ms since the epoch); undefined without a schedule or where the ticker cannot say. */
  next(): number | undefined;
  /** Ticks on `expression` from now on; a new one replaces the old, undefined stops it. False when it was already in force. */
  follow(expression: string | undefined): boolean;
  /** Stops for good: `follow` starts nothing afterwards. */
  stop(): void;
}

export function createSchedule(options: { readonly tick: () => void; readonly logger: Logger; readonly ticker?: Ticker; readonly clock?: TimerClock }): Schedule {
  const ticker = options.ticker ?? (options.clock === undefined ? cronTicker : sleepingTicker(options.clock));
  let current: { readonly expression: string; readonly ticks: Ticks } | undefined;
  let stopped = false;
  // Without a schedule, drift made on the service waits for the next file change: said once each
  // time the daemon comes to have none (at start-up too), never silently.
  let saidNone = false;
  const sayNone = (): void => {
    if (saidNone || stopped) return;
    saidNone = true;
    options.logger.info('no full reconcile scheduled: edits made on the service are found only when a file changes; set `schedule` in the config (or --schedule) to repair drift');
  };
  return {
    get expression() {
      return current?.expression;
    },
    next: () => current?.ticks.next?.(),
    follow(expression) {
      if (expression === undefined) sayNone();
      if (expression === current?.expression) return false;
      current?.ticks.stop();
      current = undefined;
      if (expression === undefined || stopped) return true;
      saidNone = false;
      current = { expression, ticks: ticker(expression, options.tick, options.logger) };
      options.logger.info({ schedule: expression }, 'full reconcile scheduled');
      return true;
    },
    stop() {
      stopped = true;
      current?.ticks.stop();
      current = undefined;
    },
  };
}
