import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import { DEFAULTS } from '../lib/defaults.js';
import { REDACT_PATHS, type Logger } from '../lib/logger.js';
import type { BaseUrl } from './check-base-url.js';
import { ServiceAuthError, ServiceError, type ServiceFailure } from './errors.js';
import { createFlowControl, type FlowControl, type SendTicket } from './flow-control.js';
import { parseErrorBody } from './parse-responses.js';
import { classifyStatus, describeNetworkError, fullJitterBackoff, isNobodyThere, parseRetryAfter } from './retry-policy.js';
import {
  AnswerRejected,
  clip,
  ExchangeDeadline,
  formatMs,
  isHtml,
  requestTarget,
  sendRequest,
  TransportError,
  type ExchangeLimits,
  type HttpAnswer,
  type HttpRequest,
} from './send-request.js';

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

const GATE_CLOSED = Symbol('gate closed');

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'bad request',
  404: 'not found',
  409: 'conflict',
  413: 'request too large',
  415: 'unsupported entries format',
  422: 'unprocessable request',
};

function isGlossaryPath(path: string): boolean {
  return path.startsWith('/v3/glossaries') || path.startsWith('/v2/glossar');
}

export function createRequestQueue(options: RequestQueueOptions): RequestQueue {
  const { clock, metrics } = options;
  const closing = new AbortController();
  const signal = options.signal === undefined ? closing.signal : AbortSignal.any([options.signal, closing.signal]);
  // An apply hands all its operations to the queue at once; while the service throttles, each one
  // waits (a back-off, or the paused queue) with a listener on this signal, removed when the wait
  // ends. Their number is the number of operations: no leak, and not bounded by the concurrency.
  // Node's leak warning would be a plain line on stderr among the JSON log lines: off for this one.
  setMaxListeners(0, signal);
  const stopping = options.stop === undefined ? signal : AbortSignal.any([options.stop, signal]);
  setMaxListeners(0, stopping);
  const random = options.random ?? Math.random;
  const maxAttempts = options.retry.maxAttempts ?? DEFAULTS.maxAttempts;
  const deadlineMs = options.retry.deadlineMs ?? DEFAULTS.operationDeadlineMs;
  const requestDeadlineMs = options.limits?.deadlineMs ?? DEFAULTS.requestDeadlineMs;
  const maxResponseBytes = options.limits?.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  // Redaction again on our child, in case the injected logger was built without it. We log no
  // headers at all; this guards against a future slip.
  const log = options.logger.child({ component: 'api' }, { redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
  // The status of the answer being handled, for the pause hook (set just before onThrottle).
  let pauseKind: '429' | '529' | '456' = '429';
  const flow = createFlowControl({
    clock,
    requestsPerSecond: options.requestsPerSecond,
    random,
    onRate: (rate) => {
      log.debug({ rate }, 'adaptive rate changed');
      metrics?.onRate?.(rate);
    },
    onPause: (ms) => metrics?.onPause?.(pauseKind, ms),
    ...(options.retry.glossaryCooldownBudgetMs === undefined ? {} : { glossaryCooldownBudgetMs: options.retry.glossaryCooldownBudgetMs }),
  });
  metrics?.onRate?.(flow.currentRate());
  const slots = new PQueue({ concurrency: options.concurrency });
  const track = <T>(work: Promise<T>): Promise<T> => clock.track?.(work) ?? work;
  const shownUrl = `${options.base.origin}${options.base.prefix}`;
  // Until the service has answered once, nobody listening (refused, unknown host) most likely means
  // a mistyped URL: a few quick attempts instead of the full budget. The first network failure is
  // said at warn level (the CLI's default), so a run does not wait in silence.
  let answered = false;
  let networkFailureSaid = false;

  const failureOf = (request: ApiCall, op: OperationBudget, answer?: HttpAnswer): ServiceFailure => {
    const failure: { -readonly [K in keyof ServiceFailure]: ServiceFailure[K] } = {
      method: request.method,
      path: requestTarget(request),
      attempts: op.attempts,
    };
    if (answer) {
      failure.status = answer.status;
      const body = parseErrorBody(answer.text, options.apiKey);
      if (body.message !== undefined) failure.serviceMessage = body.message;
      if (body.code !== undefined) failure.serviceCode = body.code;
      if (body.detail !== undefined) failure.detail = body.detail;
      else if (body.message === undefined && isHtml(answer)) failure.detail = "an HTML page, not the service's answer: a proxy or gateway may have answered";
      if (answer.traceId !== undefined) failure.traceId = answer.traceId;
    }
    return failure;
  };

  /*
   * Sleeps of this queue listen on the run's signal through one listener, not one each: every call
   * waiting out a pause or a back-off sleeps at once (hundreds in a fault storm, whatever the
   * concurrency), and one listener per sleeper made Node warn of a listener leak on stderr.
   */
  const sleepers = new Set<AbortController>();
  stopping.addEventListener('abort', () => {
    for (const sleeper of sleepers) sleeper.abort(stopping.reason);
  }, { once: true });
  const sleep = async (ms: number): Promise<void> => {
    if (stopping.aborted) throw stopping.reason as Error;
    const sleeper = new AbortController();
    sleepers.add(sleeper);
    try {
      await clock.sleep(ms, sleeper.signal);
    } finally {
      sleepers.delete(sleeper);
    }
  };

  /**
   * Once the queue is stopped: what this request's operation did, said plainly. Nothing sent (0
   * attempts): the caller reports the operation as not started. An exchange dropped: its outcome is
   * unknown. Otherwise an attempt failed and is not retried.
   */
  const throwIfAborted = (request: ApiCall, op: OperationBudget, exchange = false): void => {
    if (!stopping.aborted) return;
    const summary =
      op.attempts === 0
        ? 'not sent: the run was interrupted'
        : exchange
          ? `interrupted while waiting for the answer (attempt ${op.attempts}): the service may or may not have done it`
          : `interrupted before attempt ${op.attempts + 1}: the earlier ${op.attempts === 1 ? 'attempt' : 'attempts'} did not succeed`;
    throw new ServiceError('aborted', failureOf(request, op), summary);
  };

  /** Sleeps until `at` unless that is past the operation's deadline. */
  const waitUntil = async (at: number, request: ApiCall, op: OperationBudget, why: 'throttled' | 'deadline'): Promise<void> => {
    const now = clock.now();
    if (at <= now) return;
    if (at > op.deadline) {
      const summary =
        why === 'throttled'
          ? `the service asks to wait ${Math.ceil((at - now) / 1000)} s, beyond the operation deadline`
          : `gave up: the operation deadline (${deadlineMs} ms) would pass while waiting to retry`;
      throw new ServiceError(why, failureOf(request, op), summary);
    }
    try {
      await sleep(at - now);
    } catch (error) {
      throwIfAborted(request, op);
      throw error;
    }
  };

  /** One send: wait for the gates outside any slot, then take a slot, pace, and send. */
  type Attempt = { answer: HttpAnswer; sent: SendTicket } | { network: unknown; sent: SendTicket; atOperationDeadline: boolean };
  const attempt = async (request: ApiCall, op: OperationBudget, glossary: boolean): Promise<Attempt> => {
    for (;;) {
      throwIfAborted(request, op);
      // Waiting outside the slot: a glossary call cooling down must not hold a slot a style-rule call could use.
      await waitUntil(flow.openAt(glossary), request, op, 'throttled');
      const result = await slots.add(async () => {
        if (flow.openAt(glossary) > clock.now()) return GATE_CLOSED;
        const at = flow.reserveSend();
        if (at > clock.now()) await sleep(at - clock.now());
        for (let wait = flow.windowWaitMs(); wait > 0; wait = flow.windowWaitMs()) await sleep(wait);
        // The gate may have closed while we waited for our turn: requests already sent cannot be
        // recalled, but this one has not left yet.
        if (flow.openAt(glossary) > clock.now()) return GATE_CLOSED;
        // Stopped while it waited for a slot: it does not leave.
        throwIfAborted(request, op);
        // The operation's deadline holds during the exchange too, not only between attempts.
        const left = op.deadline - clock.now();
        if (left <= 0) throw new ServiceError('deadline', failureOf(request, op), `gave up: the operation deadline (${formatMs(deadlineMs)}) has passed`);
        const limits = { maxResponseBytes, deadlineMs: Math.min(requestDeadlineMs, left) };
        const sent = flow.markSent();
        op.attempts += 1;
        // `at`: the queue's clock when it left (bench/run.js checks from it that nothing left during a pause).
        log.trace({ method: request.method, path: requestTarget(request), attempt: op.attempts, at: sent.at }, 'sending');
        try {
          // A read is dropped when the queue stops; a write is answered first (see `stop`).
          const abortOn = request.method === 'GET' ? stopping : signal;
          return { answer: await track(sendRequest(options.dispatcher, options.base, options.apiKey, request, abortOn, limits, options.authScheme)), sent };
        } catch (error) {
          return { network: error, sent, atOperationDeadline: left <= requestDeadlineMs };
        } finally {
          sent.done();
        }
      }).catch((error: unknown) => {
        throwIfAborted(request, op); // a wait inside the slot was aborted
        throw error;
      });
      if (result !== GATE_CLOSED) return result;
    }
  };

  /**
   * Says why it is slow, once per pause (the answers of requests already in flight fall inside it):
   * info from 1 s, warn from 5 s so that the CLI's default level (warn) shows the long ones.
   */
  const notePause = (what: string, waitMs: number): void => {
    if (waitMs <= 1000) return;
    const line = `${what} for ${(waitMs / 1000).toFixed(1)} s`;
    if (waitMs >= 5000) log.warn(line);
    else log.info(line);
  };

  const retryAfterBackoff = async (request: ApiCall, op: OperationBudget, reason: string, retryAfterMs?: number, limit = maxAttempts): Promise<void> => {
    op.failures += 1;
    if (op.failures >= limit) return;
    metrics?.onRetry?.(request.method, request.route, reason, op.attempts);
    const wait = Math.max(retryAfterMs ?? 0, fullJitterBackoff(op.failures - 1, random));
    log.debug({ method: request.method, route: request.route, reason, waitMs: wait, attempt: op.attempts }, 'retrying after back-off');
    await waitUntil(clock.now() + wait, request, op, 'deadline');
  };

  const call = async (request: ApiCall, op: OperationBudget): Promise<CallResult> => {
    const glossary = isGlossaryPath(request.path);
    for (;;) {
      const result = await attempt(request, op, glossary);
      const ms = clock.now() - result.sent.at; // the exchange itself, not the wait in the queue

      if ('network' in result) {
        throwIfAborted(request, op, true);
        const problem = result.network;
        if (problem instanceof AnswerRejected) {
          metrics?.onRequest?.(request.method, request.route, problem.status, ms);
          const failure = { ...failureOf(request, op), status: problem.status, ...(problem.traceId === undefined ? {} : { traceId: problem.traceId }) };
          throw new ServiceError(problem.code, failure, problem.message);
        }
        if (problem instanceof ExchangeDeadline && result.atOperationDeadline) {
          metrics?.onRequest?.(request.method, request.route, 'network', ms);
          throw new ServiceError('deadline', failureOf(request, op), `no complete answer before the operation deadline (${formatMs(deadlineMs)}) passed`, { cause: problem });
        }
        const net = describeNetworkError(problem);
        metrics?.onRequest?.(request.method, request.route, 'network', ms);
        log.debug({ method: request.method, route: request.route, error: net.code, attempt: op.attempts }, 'network failure');
        if (net.maybeSent) op.outcomeUnknown = true;
        if (!request.idempotent && net.maybeSent) return { kind: 'unknown_outcome' };
        const limit = !answered && isNobodyThere(result.network) ? Math.min(maxAttempts, DEFAULTS.firstContactAttempts) : maxAttempts;
        const left = limit - op.failures - 1;
        if (!networkFailureSaid && left > 0) {
          networkFailureSaid = true;
          log.warn({ method: request.method, route: request.route, error: net.code }, `cannot reach ${shownUrl} (${net.code}), retrying ${left} more time${left === 1 ? '' : 's'}…`);
        }
        await retryAfterBackoff(request, op, `network:${net.code}`, undefined, limit);
        if (op.failures >= limit) {
          const why = problem instanceof TransportError || problem instanceof ExchangeDeadline ? `: ${problem.message}` : '';
          const summary = net.maybeSent
            ? `network failure (${net.code}${why}) after ${op.attempts} attempts`
            : `cannot reach ${shownUrl} (${net.code}) after ${op.attempts} attempts: check ${options.baseUrlEnv ?? 'the service URL'} and that the service is running`;
          throw new ServiceError(net.maybeSent ? 'network' : 'unreachable', failureOf(request, op), summary, { cause: result.network });
        }
        continue;
      }

      const { answer, sent } = result;
      answered = true;
      metrics?.onRequest?.(request.method, request.route, answer.status, ms);
      log.debug({ method: request.method, route: request.route, status: answer.status, ms, attempt: op.attempts }, 'service answer');
      const retryAfterMs = parseRetryAfter(answer.retryAfter, clock.now());

      switch (classifyStatus(answer.status)) {
        case 'ok':
          flow.onSuccess(glossary, sent);
          return { kind: 'answer', answer };
        case 'throttle': {
          const pausing = flow.openAt(false) <= clock.now();
          pauseKind = answer.status === 529 ? '529' : '429';
          const wait = flow.onThrottle(retryAfterMs, sent);
          if (pausing) notePause(`service throttled (${answer.status}): pausing all requests`, wait);
          metrics?.onThrottle?.(answer.status === 529 ? '529' : '429', wait);
          // `until`: when the gate opens again (the latest of every pause asked for so far), by the queue's clock.
          log.debug({ status: answer.status, waitMs: wait, until: flow.openAt(false), rate: flow.currentRate() }, 'throttled: pausing the queue');
          if (clock.now() + wait > op.deadline) {
            throw new ServiceError('throttled', failureOf(request, op, answer), `still throttled (${answer.status}) at the operation deadline`);
          }
          continue;
        }
        case 'glossary_quota': {
          const pausing = flow.openAt(glossary) <= clock.now();
          const glossaryOpenBefore = Math.max(flow.openAt(true), clock.now());
          pauseKind = '456';
          const wait = glossary ? flow.onGlossaryQuota(retryAfterMs) : flow.onThrottle(retryAfterMs, sent);
          if (wait === undefined) {
            throw new ServiceError(
              'glossary_quota',
              failureOf(request, op, answer),
              'glossary quota exceeded (456) and the cool-down budget is spent',
            );
          }
          if (pausing) notePause(`glossary quota exceeded (456): pausing ${glossary ? 'glossary' : 'all'} requests`, wait);
          // The glossary cool-down is not the flow's throttle gate: report the time it added here.
          if (glossary && flow.openAt(true) > glossaryOpenBefore) metrics?.onPause?.('456', flow.openAt(true) - glossaryOpenBefore);
          metrics?.onThrottle?.('456', wait);
          log.debug({ status: 456, waitMs: wait }, 'glossary quota: cooling down glossary calls');
          continue;
        }
        case 'transient':
          op.outcomeUnknown = true;
          if (!request.idempotent) return { kind: 'unknown_outcome', failure: { ...failureOf(request, op, answer), status: answer.status } };
          await retryAfterBackoff(request, op, `http_${answer.status}`, retryAfterMs);
          if (op.failures >= maxAttempts) {
            throw new ServiceError(`http_${answer.status}`, failureOf(request, op, answer), `HTTP ${answer.status} after ${op.attempts} attempts`);
          }
          continue;
        case 'auth': {
          const status = answer.status === 401 ? 401 : 403;
          const write = request.method !== 'GET';
          const summary =
            status === 401
              ? `the service rejected the API key from ${options.apiKeyEnv} (401)`
              : write
                ? 'the key is read-only: writes are not permitted (403)'
                : 'the key is not permitted to read this (403)';
          throw new ServiceAuthError({ ...failureOf(request, op, answer), status }, summary);
        }
        case 'final':
          if (answer.status >= 300 && answer.status < 400) {
            // Never followed: the key would go along to wherever it points.
            const to = answer.location === undefined ? '' : ` to ${clip(answer.location)}`;
            throw new ServiceError(
              'redirect',
              failureOf(request, op, answer),
              `the service answered with a redirect (${answer.status})${to}, which termsync does not follow (the API key would go along): point the target's base URL at the service itself`,
            );
          }
          if (answer.status === 404 && request.goneMeansDone && op.outcomeUnknown) {
            // The earlier attempt did the delete; its answer was lost.
            return { kind: 'answer', answer: { status: 204, text: '' } };
          }
          throw new ServiceError(
            `http_${answer.status}`,
            failureOf(request, op, answer),
            `${STATUS_TEXT[answer.status] ?? 'failed'} (${answer.status})`,
          );
      }
    }
  };

  return {
    flow,
    newOperation: () => ({ deadline: clock.now() + deadlineMs, failures: 0, attempts: 0, outcomeUnknown: false }),
    call,
    backOff: async (request, op, reason) => {
      await retryAfterBackoff(request, op, reason);
      return op.failures < maxAttempts;
    },
    onIdle: () => slots.onIdle(),
    close: () => closing.abort(),
  };
}
