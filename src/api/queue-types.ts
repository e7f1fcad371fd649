import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { BaseUrl } from './check-base-url.js';
import type { ServiceFailure } from './errors.js';
import type { FlowControl } from './flow-control.js';
import type { ExchangeLimits, HttpAnswer, HttpRequest } from './send-request.js';

/** The request queue's types: what the client hands it, and what it answers. */

export interface RetryOptions {
  /** Transient failures (5xx, network) one operation may meet before it fails. Throttling answers do not count: the deadline bounds them. */
  readonly maxAttempts?: number;
  /** Overall time one operation may take, waits included. */
  readonly deadlineMs?: number;
  /** Total 456 cool-down the client sits out before 456 becomes an error. */
  readonly glossaryCooldownBudgetMs?: number;
}

/** Optional callbacks; a daemon feeds its metrics registry from them. */
export interface ClientMetricsHooks {
  onRequest?(method: string, route: string, status: number | 'network', ms: number): void;
  /** One throttling answer and the wait it asked for (concurrent answers share one pause: see onPause). */
  onThrottle?(kind: '429' | '529' | '456', waitMs: number): void;
  /** The queue paused (429/529: every request; 456: glossary requests) or its pause was pushed out; `ms` is the time added. */
  onPause?(kind: '429' | '529' | '456', ms: number): void;
  /** The adaptive send rate in requests per second: once at the start (the configured rate), then at every change. */
  onRate?(requestsPerSecond: number): void;
  onRetry?(method: string, route: string, reason: string, attempt: number): void;
}

export interface ApiCall extends HttpRequest {
  /** Path template for logs and metrics, e.g. `/v3/glossaries/{id}`. */
  readonly route: string;
  /** Safe to send again as is (GET, PUT, DELETE, PATCH). A POST create is not. */
  readonly idempotent: boolean;
  /** A DELETE whose earlier attempt had an unknown outcome: a 404 now means it landed. */
  readonly goneMeansDone?: boolean;
}

/** What one operation may still spend: shared by the resends and look-ups of one create. */
export interface OperationBudget {
  readonly deadline: number;
  failures: number;
  attempts: number;
  /** An earlier attempt may have been processed (network error after send, 5xx). */
  outcomeUnknown: boolean;
}

export type CallResult =
  | { readonly kind: 'answer'; readonly answer: HttpAnswer }
  /**
   * Only for non-idempotent calls: the request may have landed; look before resending. `failure`
   * is the 5xx answer that left it unknown (absent when the connection failed), so that a create
   * that never lands can be reported with the service's status, message and trace id.
   */
  | { readonly kind: 'unknown_outcome'; readonly failure?: ServiceFailure & { readonly status: number } };

export interface RequestQueueOptions {
  readonly dispatcher: Dispatcher;
  readonly base: BaseUrl;
  readonly apiKey: string;
  /** Named in the 401 message (the variable, never the value). */
  readonly apiKeyEnv: string;
  /** The Authorization scheme (default Service-Auth-Key). */
  readonly authScheme?: string;
  /** Named when nobody listens at the URL (the variable, never its value's secrets: URLs carry none). */
  readonly baseUrlEnv?: string;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Aborts everything, exchanges in flight included. */
  readonly signal?: AbortSignal;
  /**
   * Stops the queue (SIGINT/SIGTERM, the daemon's graceful stop): a request that has not left is
   * not sent (`aborted`, with 0 attempts for its operation), a failed attempt is not retried, a read
   * in flight is dropped; a write in flight is answered first, so that its operation reports what
   * the service did. Default: `signal`.
   */
  readonly stop?: AbortSignal;
  readonly concurrency: number;
  readonly requestsPerSecond: number;
  readonly retry: RetryOptions;
  /** Size and time limits of one exchange (defaults in `DEFAULTS`). */
  readonly limits?: Partial<ExchangeLimits>;
  readonly metrics?: ClientMetricsHooks;
  readonly random?: () => number;
}

export interface RequestQueue {
  newOperation(): OperationBudget;
  call(request: ApiCall, op: OperationBudget): Promise<CallResult>;
  readonly flow: FlowControl;
  /**
   * Counts a failed attempt of `op` and sleeps a jittered back-off before the next one. False when
   * the operation has used up its attempts (nothing slept).
   */
  backOff(request: ApiCall, op: OperationBudget, reason: string): Promise<boolean>;
  onIdle(): Promise<void>;
  /**
   * The client is being closed: operations still waiting to retry (a sibling failed and ended the
   * run) stop now instead of retrying against a closed connection pool.
   */
  close(): void;
}
