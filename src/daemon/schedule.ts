import { createTask } from 'node-cron';
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
 * schedule keeps time: node-cron's own timer today; sleeping on the daemon's clock until the next
 * match would replace this function and nothing else.
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

export function createSchedule(options: { readonly tick: () => void; readonly logger: Logger; readonly ticker?: Ticker }): Schedule {
  const ticker = options.ticker ?? cronTicker;
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
