import type { ClientMetricsHooks } from '../../api/index.js';
import type { Clock } from '../../lib/clock.js';

/** How the dashboard groups the service's answers: the throttling ones (429, 456, 529) each on their own. */
export const STATUS_GROUPS = ['2xx', '3xx', '4xx', '429', '456', '529', '5xx', 'network'] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];

export const THROTTLE_KINDS = ['429', '456', '529'] as const;
export type ThrottleKind = (typeof THROTTLE_KINDS)[number];

/** One minute of requests to the service: answers by group, and the time the request queue stood still by the status that asked. */
export interface MinuteTraffic {
  /** The minute's start, ms since the epoch. */
  readonly minute: number;
  readonly requests: Readonly<Record<StatusGroup, number>>;
  readonly waitMs: Readonly<Record<ThrottleKind, number>>;
}

/** Requests per minute by status and throttle waits, for the dashboard's charts: fed by the service client's hooks, bounded to the last minutes. */
export interface TrafficSeries {
  readonly hooks: ClientMetricsHooks;
  /** The last `minutes` minutes up to now, oldest first, minutes without traffic included (all zero). */
  minutes(minutes?: number): MinuteTraffic[];
}

const MINUTE = 60_000;

export function statusGroup(status: number | 'network'): StatusGroup {
  if (status === 'network') return 'network';
  if (status === 429 || status === 456 || status === 529) return String(status) as StatusGroup;
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  return '2xx';
}

function emptyMinute(minute: number): { minute: number; requests: Record<StatusGroup, number>; waitMs: Record<ThrottleKind, number> } {
  return {
    minute,
    requests: Object.fromEntries(STATUS_GROUPS.map((g) => [g, 0])) as Record<StatusGroup, number>,
    waitMs: Object.fromEntries(THROTTLE_KINDS.map((k) => [k, 0])) as Record<ThrottleKind, number>,
  };
}

/** Keeps `keepMinutes` minutes (default two hours) on the daemon's clock. */
export function createTrafficSeries(clock: Clock, keepMinutes = 120): TrafficSeries {
  const buckets = new Map<number, ReturnType<typeof emptyMinute>>();
  const bucket = (): ReturnType<typeof emptyMinute> => {
    const minute = Math.floor(clock.now() / MINUTE) * MINUTE;
    let b = buckets.get(minute);
    if (b === undefined) {
      b = emptyMinute(minute);
      buckets.set(minute, b);
      for (const key of buckets.keys()) if (key <= minute - keepMinutes * MINUTE) buckets.delete(key);
    }
    return b;
  };
  return {
    hooks: {
      onRequest: (_method, _route, status) => void bucket().requests[statusGroup(status)]++,
      onPause: (kind, ms) => void (bucket().waitMs[kind] += ms),
    },
    minutes(minutes = 60) {
      const last = Math.floor(clock.now() / MINUTE) * MINUTE;
      const out: MinuteTraffic[] = [];
      for (let m = last - (Math.min(minutes, keepMinutes) - 1) * MINUTE; m <= last; m += MINUTE) out.push(buckets.get(m) ?? emptyMinute(m));
      return out;
    },
  };
}

/** Both sets of hooks, each told of every event. */
export function teeHooks(a: ClientMetricsHooks, b: ClientMetricsHooks): ClientMetricsHooks {
  return {
    onRequest: (...args) => {
      a.onRequest?.(...args);
      b.onRequest?.(...args);
    },
    onThrottle: (...args) => {
      a.onThrottle?.(...args);
      b.onThrottle?.(...args);
    },
    onPause: (...args) => {
      a.onPause?.(...args);
      b.onPause?.(...args);
    },
    onRate: (...args) => {
      a.onRate?.(...args);
      b.onRate?.(...args);
    },
    onRetry: (...args) => {
      a.onRetry?.(...args);
      b.onRetry?.(...args);
    },
  };
}
