import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { Clock } from '../lib/clock.js';
import { DEFAULTS } from '../lib/defaults.js';
import { REDACT_PATHS, type Logger } from '../lib/logger.js';
import { ServiceError, type ServiceFailure } from './errors.js';
import { createFlowControl, type FlowControl, type SendTicket } from './flow-control.js';
import { parseErrorBody } from './parse-responses.js';
import type { ApiCall, ClientMetricsHooks, OperationBudget, RequestQueueOptions } from './queue-types.js';
import { fullJitterBackoff } from './retry-policy.js';
import { formatMs, isHtml, requestTarget, sendRequest, type HttpAnswer } from './send-request.js';

/** What every part of one queue shares: its settings, its gates and slots, and what it has learnt. */
export interface QueueContext {
  readonly options: RequestQueueOptions;
  readonly clock: Clock;
  readonly metrics: ClientMetricsHooks | undefined;
  readonly log: Logger;
  readonly flow: FlowControl;
  /** Bounds the requests in flight (p-queue); pacing is the flow's. */
  readonly slots: PQueue;
  /** Aborts everything, exchanges in flight included (the caller's signal, or the client closing). */
  readonly signal: AbortSignal;
  /** Stops the queue: see RequestQueueOptions.stop. */
  readonly stopping: AbortSignal;
  readonly random: () => number;
  readonly maxAttempts: number;
  readonly deadlineMs: number;
  readonly requestDeadlineMs: number;
  readonly maxResponseBytes: number;
  /** The service's URL as messages show it. */
  readonly shownUrl: string;
  /** Sleeps on the queue's clock; aborted when the queue stops. */
  readonly sleep: (ms: number) => Promise<void>;
  readonly state: {
    /** The status of the answer being handled, for the pause hook (set just before onThrottle). */
    pauseKind: '429' | '529' | '456';
    /**
     * Until the service has answered once, nobody listening (refused, unknown host) most likely
     * means a mistyped URL: a few quick attempts instead of the full budget.
     */
    answered: boolean;
    /** The first network failure is said at warn level (the CLI's default), so a run does not wait in silence. */
    networkFailureSaid: boolean;
  };
}

/*
 * Sleeps of this queue listen on the run's signal through one listener, not one each: every call
 * waiting out a pause or a back-off sleeps at once (hundreds in a fault storm, whatever the
 * concurrency), and one listener per sleeper made Node warn of a listener leak on stderr.
 */
function createSleep(clock: Clock, stopping: AbortSignal): (ms: number) => Promise<void> {
  const sleepers = new Set<AbortController>();
  stopping.addEventListener('abort', () => {
    for (const sleeper of sleepers) sleeper.abort(stopping.reason);
  }, { once: true });
  return async (ms) => {
    if (stopping.aborted) throw stopping.reason as Error;
    const sleeper = new AbortController();
    sleepers.add(sleeper);
    try {
      await clock.sleep(ms, sleeper.signal);
    } finally {
      sleepers.delete(sleeper);
    }
  };
}

export function createQueueContext(options: RequestQueueOptions, closing: AbortSignal): QueueContext {
  const { clock, metrics } = options;
  const signal = options.signal === undefined ? closing : AbortSignal.any([options.signal, closing]);
  // An apply hands all its operations to the queue at once; while the service throttles, each one
  // waits (a back-off, or the paused queue) with a listener on this signal, removed when the wait
  // ends. Their number is the number of operations: no leak, and not bounded by the concurrency.
  // Node's leak warning would be a plain line on stderr among the JSON log lines: off for this one.
  setMaxListeners(0, signal);
  const stopping = options.stop === undefined ? signal : AbortSignal.any([options.stop, signal]);
  setMaxListeners(0, stopping);
  const random = options.random ?? Math.random;
  // Redaction again on our child, in case the injected logger was built without it. We log no
  // headers at all; this guards against a future slip.
  const log = options.logger.child({ component: 'api' }, { redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
  const state: QueueContext['state'] = { pauseKind: '429', answered: false, networkFailureSaid: false };
  const flow = createFlowControl({
    clock,
    requestsPerSecond: options.requestsPerSecond,
    random,
    onRate: (rate) => {
      log.debug({ rate }, 'adaptive rate changed');
      metrics?.onRate?.(rate);
    },
    onPause: (ms) => metrics?.onPause?.(state.pauseKind, ms),
    ...(options.retry.glossaryCooldownBudgetMs === undefined ? {} : { glossaryCooldownBudgetMs: options.retry.glossaryCooldownBudgetMs }),
  });
  metrics?.onRate?.(flow.currentRate());
  return {
    options,
    clock,
    metrics,
    log,
    flow,
    slots: new PQueue({ concurrency: options.concurrency }),
    signal,
    stopping,
    random,
    maxAttempts: options.retry.maxAttempts ?? DEFAULTS.maxAttempts,
    deadlineMs: options.retry.deadlineMs ?? DEFAULTS.operationDeadlineMs,
    requestDeadlineMs: options.limits?.deadlineMs ?? DEFAULTS.requestDeadlineMs,
    maxResponseBytes: options.limits?.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    shownUrl: `${options.base.origin}${options.base.prefix}`,
    sleep: createSleep(clock, stopping),
    state,
  };
}

/** What a failed call tells (see ServiceFailure): the request, the attempts, and the answer's error body. */
export function failureOf(ctx: QueueContext, request: ApiCall, op: OperationBudget, answer?: HttpAnswer): ServiceFailure {
  const failure: { -readonly [K in keyof ServiceFailure]: ServiceFailure[K] } = {
    method: request.method,
    path: requestTarget(request),
    attempts: op.attempts,
  };
  if (answer) {
    failure.status = answer.status;
    const body = parseErrorBody(answer.text, ctx.options.apiKey);
    if (body.message !== undefined) failure.serviceMessage = body.message;
    if (body.code !== undefined) failure.serviceCode = body.code;
    if (body.detail !== undefined) failure.detail = body.detail;
    else if (body.message === undefined && isHtml(answer)) failure.detail = "an HTML page, not the service's answer: a proxy or gateway may have answered";
    if (answer.traceId !== undefined) failure.traceId = answer.traceId;
  }
  return failure;
}

/**
 * Once the queue is stopped: what this request's operation did, said plainly. Nothing sent (0
 * attempts): the caller reports the operation as not started. An exchange dropped: its outcome is
 * unknown. Otherwise an attempt failed and is not retried.
 */
export function throwIfAborted(ctx: QueueContext, request: ApiCall, op: OperationBudget, exchange = false): void {
  if (!ctx.stopping.aborted) return;
  const summary =
    op.attempts === 0
      ? 'not sent: the run was interrupted'
      : exchange
        ? `interrupted while waiting for the answer (attempt ${op.attempts}): the service may or may not have done it`
        : `interrupted before attempt ${op.attempts + 1}: the earlier ${op.attempts === 1 ? 'attempt' : 'attempts'} did not succeed`;
  throw new ServiceError('aborted', failureOf(ctx, request, op), summary);
}

/** Sleeps until `at` unless that is past the operation's deadline. */
export async function waitUntil(ctx: QueueContext, at: number, request: ApiCall, op: OperationBudget, why: 'throttled' | 'deadline'): Promise<void> {
  const now = ctx.clock.now();
  if (at <= now) return;
  if (at > op.deadline) {
    const summary =
      why === 'throttled'
        ? `the service asks to wait ${Math.ceil((at - now) / 1000)} s, beyond the operation deadline`
        : `gave up: the operation deadline (${ctx.deadlineMs} ms) would pass while waiting to retry`;
    throw new ServiceError(why, failureOf(ctx, request, op), summary);
  }
  try {
    await ctx.sleep(at - now);
  } catch (error) {
    throwIfAborted(ctx, request, op);
    throw error;
  }
}

/** Counts a failed attempt and sleeps a jittered back-off (at least `retryAfterMs`) unless the attempts are used up. */
export async function retryAfterBackoff(ctx: QueueContext, request: ApiCall, op: OperationBudget, reason: string, retryAfterMs?: number, limit = ctx.maxAttempts): Promise<void> {
  op.failures += 1;
  if (op.failures >= limit) return;
  ctx.metrics?.onRetry?.(request.method, request.route, reason, op.attempts);
  const wait = Math.max(retryAfterMs ?? 0, fullJitterBackoff(op.failures - 1, ctx.random));
  ctx.log.debug({ method: request.method, route: request.route, reason, waitMs: wait, attempt: op.attempts }, 'retrying after back-off');
  await waitUntil(ctx, ctx.clock.now() + wait, request, op, 'deadline');
}

const GATE_CLOSED = Symbol('gate closed');

/** One attempt's end: the answer, or what went wrong on the way (with when it left and at which load). */
export type Attempt = { answer: HttpAnswer; sent: SendTicket } | { network: unknown; sent: SendTicket; atOperationDeadline: boolean };

/** Inside a slot: pace, then send, unless a gate closed meanwhile (GATE_CLOSED: wait outside and come back). */
async function sendInSlot(ctx: QueueContext, request: ApiCall, op: OperationBudget, glossary: boolean): Promise<Attempt | typeof GATE_CLOSED> {
  const { clock, flow } = ctx;
  if (flow.openAt(glossary) > clock.now()) return GATE_CLOSED;
  const at = flow.reserveSend();
  if (at > clock.now()) await ctx.sleep(at - clock.now());
  for (let wait = flow.windowWaitMs(); wait > 0; wait = flow.windowWaitMs()) await ctx.sleep(wait);
  // The gate may have closed while we waited for our turn: requests already sent cannot be
  // recalled, but this one has not left yet.
  if (flow.openAt(glossary) > clock.now()) return GATE_CLOSED;
  // Stopped while it waited for a slot: it does not leave.
  throwIfAborted(ctx, request, op);
  // The operation's deadline holds during the exchange too, not only between attempts.
  const left = op.deadline - clock.now();
  if (left <= 0) throw new ServiceError('deadline', failureOf(ctx, request, op), `gave up: the operation deadline (${formatMs(ctx.deadlineMs)}) has passed`);
  const limits = { maxResponseBytes: ctx.maxResponseBytes, deadlineMs: Math.min(ctx.requestDeadlineMs, left) };
  const sent = flow.markSent();
  op.attempts += 1;
  // `at`: the queue's clock when it left (bench/run.js checks from it that nothing left during a pause).
  // Its fields only when it is written (the path's query is encoded anew for each request).
  if (ctx.log.isLevelEnabled('trace')) ctx.log.trace({ method: request.method, path: requestTarget(request), attempt: op.attempts, at: sent.at }, 'sending');
  const { options } = ctx;
  try {
    // A read is dropped when the queue stops; a write is answered first (see `stop`).
    const abortOn = request.method === 'GET' ? ctx.stopping : ctx.signal;
    const exchange = sendRequest(options.dispatcher, options.base, options.apiKey, request, abortOn, limits, options.authScheme);
    return { answer: await (clock.track?.(exchange) ?? exchange), sent };
  } catch (error) {
    return { network: error, sent, atOperationDeadline: left <= ctx.requestDeadlineMs };
  } finally {
    sent.done();
  }
}

/** One send: wait for the gates outside any slot, then take a slot, pace, and send. */
export async function attempt(ctx: QueueContext, request: ApiCall, op: OperationBudget, glossary: boolean): Promise<Attempt> {
  for (;;) {
    throwIfAborted(ctx, request, op);
    // Waiting outside the slot: a glossary call cooling down must not hold a slot a style-rule call could use.
    await waitUntil(ctx, ctx.flow.openAt(glossary), request, op, 'throttled');
    const result = await ctx.slots.add(() => sendInSlot(ctx, request, op, glossary)).catch((error: unknown) => {
      throwIfAborted(ctx, request, op); // a wait inside the slot was aborted
      throw error;
    });
    if (result !== GATE_CLOSED) return result;
  }
}
