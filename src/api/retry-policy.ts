/**
 * Pure rules of the retry loop: what an answer means, how long to wait. No I/O, no clock.
 */

export type AnswerClass =
  | 'ok'
  /** 429 or 529: the whole queue pauses (Retry-After, or back-off). */
  | 'throttle'
  /** 456: glossary endpoints cool down; other endpoints keep going. */
  | 'glossary_quota'
  /** 500, 502, 503, 504: the request may or may not have been processed. */
  | 'transient'
  | 'auth'
  | 'final';

export function classifyStatus(status: number): AnswerClass {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429 || status === 529) return 'throttle';
  if (status === 456) return 'glossary_quota';
  if (status === 500 || status === 502 || status === 503 || status === 504) return 'transient';
  if (status === 401 || status === 403) return 'auth';
  return 'final';
}

/**
 * `Retry-After` in milliseconds from `now`: delta-seconds (integer, or decimal as some proxies
 * send) or an HTTP date. `undefined` when absent or unreadable — the caller then backs off.
 * Deliberately uncapped: a long Retry-After is the service's word; the operation deadline decides
 * whether to wait that long.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // An HTTP date names a weekday and a month; without letters it is not one (Date.parse would
  // happily read "-1" as a year).
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** "Full jitter": uniformly between 0 and the capped exponential (AWS architecture blog). */
export function fullJitterBackoff(attempt: number, random: () => number, baseMs = 250, capMs = 30_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.floor(random() * ceiling);
}

/** The 456 cool-down without Retry-After: longer than a throttle pause, doubling, capped. */
export function glossaryCooldownMs(streak: number, baseMs = 5_000, capMs = 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, streak));
}

export interface NetworkFailure {
  /** undici / Node error code, e.g. `UND_ERR_SOCKET`, `ECONNRESET`, `ECONNREFUSED`. */
  readonly code: string;
  /** False only when the request certainly never left (the connection was never made). */
  readonly maybeSent: boolean;
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error codes of an error and its causes (undici wraps the socket error in `cause`). */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const c = (current as { code?: unknown }).code;
    if (typeof c === 'string') codes.push(c);
    current = current.cause;
  }
  return codes;
}

export function describeNetworkError(error: unknown): NetworkFailure {
  const codes = errorCodes(error);
  return { code: codes[0] ?? 'network', maybeSent: !codes.some((c) => NEVER_SENT.has(c)) };
}

/** Nobody listens there: the connection was refused or the host name does not exist. */
const NOBODY_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/**
 * Whether a network failure says that nobody is there (refused, unknown host) rather than that the
 * way there is slow or broken (timeouts, resets, DNS not answering). Before the service has answered
 * once, that is most likely a mistyped URL: not worth the full retry budget.
 */
export function isNobodyThere(error: unknown): boolean {
  return errorCodes(error).some((c) => NOBODY_THERE.has(c));
}
