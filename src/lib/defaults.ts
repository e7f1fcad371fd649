/**
 * Defaults that more than one layer needs, written once: the project config schema, the client and
 * its queue, and the CLI's help read them from here (p-queue keeps its options the same way).
 */
export const DEFAULTS = {
  /** `rate_limit.requests_per_second` of the project config. */
  requestsPerSecond: 5,
  /**
   * `rate_limit.concurrency` at the default rate: requests in flight at once. When the config sets
   * no concurrency it follows the rate (`defaultConcurrency`); this is its value at 5 requests/s.
   */
  concurrency: 4,
  /** Attempts one request gets for transient failures (5xx, network), retries included (`TERMSYNC_MAX_ATTEMPTS`). */
  maxAttempts: 10,
  /**
   * Attempts a request gets when nobody listens at the service URL (connection refused, unknown
   * host) and the service has not answered once yet: a mistyped URL fails in seconds.
   */
  firstContactAttempts: 3,
  /** Overall time one operation may take, waits for throttling and back-off included. */
  operationDeadlineMs: 600_000,
  /**
   * Total time one HTTP exchange may take, headers and body (`TERMSYNC_REQUEST_TIMEOUT_MS`). The
   * agent's timeouts below are idle timeouts: a server sending a byte now and then never trips them.
   */
  requestDeadlineMs: 120_000,
  /**
   * Largest answer body accepted, in bytes (`TERMSYNC_MAX_RESPONSE_BYTES`): far above the largest
   * legitimate answer (a 10 MiB glossary as JSON), far below what would exhaust memory.
   */
  maxResponseBytes: 64 * 1024 * 1024,
  /** The HTTP agent's timeouts (idle: between bytes). */
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 60_000,
  keepAliveTimeoutMs: 10_000,
  /** The daemon's HTTP endpoints (`/healthz`, `/readyz`, `/metrics`, `/status`). */
  listen: '127.0.0.1:9464',
  /** `verify.max_characters`: characters one verify run may send to one target. */
  verifyMaxCharacters: 5_000,
  /** `verify.sample`: entries per dictionary checked alone (0: only the declared tests). */
  verifySample: 0,
  /** `verify.seed`: the sample's seed. */
  verifySeed: 1,
  /** `ui.keep_runs`: runs the daemon's dashboard keeps in memory, each with its plan. */
  uiKeepRuns: 50,
} as const;

/**
 * Bounds of the rule below: seconds of requests kept in flight (what a request takes from send to
 * answer, the service's latency plus ours, rounded up), and the range the result is kept in.
 */
export const CONCURRENCY_RULE = { seconds: 0.4, min: 4, max: 16 } as const;

/**
 * `rate_limit.concurrency` when the config sets none: enough requests in flight to keep the rate
 * (Little's law: in flight = rate × time a request takes), so that after a pause the second's
 * allowance can go out together. `ceil(requests_per_second × 0.4)` kept between 4 and 16: 4 up to
 * 10 requests/s, 8 at 20, 16 from 40 on. A concurrency set in the config always wins.
 */
export function defaultConcurrency(requestsPerSecond: number): number {
  const { seconds, min, max } = CONCURRENCY_RULE;
  if (!Number.isFinite(requestsPerSecond) || requestsPerSecond <= 0) return min;
  // The small tolerance keeps 10 × 0.4 at 4 whatever the floating point says.
  return Math.min(max, Math.max(min, Math.ceil(requestsPerSecond * seconds - 1e-9)));
}

/** Environment variable: how many attempts a request gets before it counts as failed (retries + 1). */
export const MAX_ATTEMPTS_ENV = 'TERMSYNC_MAX_ATTEMPTS';
/** Environment variable: `requestDeadlineMs`, in milliseconds. */
export const REQUEST_TIMEOUT_ENV = 'TERMSYNC_REQUEST_TIMEOUT_MS';
/** Environment variable: `operationDeadlineMs`, in milliseconds. */
export const OPERATION_DEADLINE_ENV = 'TERMSYNC_OPERATION_DEADLINE_MS';
/** Environment variable: `maxResponseBytes`. */
export const MAX_RESPONSE_BYTES_ENV = 'TERMSYNC_MAX_RESPONSE_BYTES';
/**
 * Environment variable: threads that read the repository. `1`: the main thread only; `2`: a worker
 * thread too, whatever the machine; unset or `auto`: a worker thread when the work is large and a
 * CPU is actually free for it.
 */
export const LOAD_THREADS_ENV = 'TERMSYNC_LOAD_THREADS';
