import { DEFAULTS } from '../lib/defaults.js';
import { ServiceAuthError, ServiceError } from './errors.js';
import { failureOf, retryAfterBackoff, throwIfAborted, type Attempt, type QueueContext } from './queue-context.js';
import type { ApiCall, CallResult, OperationBudget } from './queue-types.js';
import { classifyStatus, describeNetworkError, isNobodyThere, parseRetryAfter } from './retry-policy.js';
import { AnswerRejected, clip, DEFAULT_AUTH_SCHEME, ExchangeDeadline, formatMs, TransportError, type HttpAnswer } from './send-request.js';

/**
 * What one attempt's end means for its call: the call's result, `retry` (the waits it asked for
 * already slept), or an error thrown. Network failures and answers each have their handler.
 */
export type Next = CallResult | 'retry';

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'bad request',
  404: 'not found',
  409: 'conflict',
  413: 'request too large',
  415: 'unsupported entries format',
  422: 'unprocessable request',
};

/** No answer (or one refused as it came): retried as the policy allows, else the error that says why. */
export async function onNetworkFailure(ctx: QueueContext, request: ApiCall, op: OperationBudget, result: Extract<Attempt, { network: unknown }>, ms: number): Promise<Next> {
  const { metrics, log, state, maxAttempts } = ctx;
  throwIfAborted(ctx, request, op, true);
  const problem = result.network;
  if (problem instanceof AnswerRejected) {
    metrics?.onRequest?.(request.method, request.route, problem.status, ms);
    const failure = { ...failureOf(ctx, request, op), status: problem.status, ...(problem.traceId === undefined ? {} : { traceId: problem.traceId }) };
    throw new ServiceError(problem.code, failure, problem.message);
  }
  if (problem instanceof ExchangeDeadline && result.atOperationDeadline) {
    metrics?.onRequest?.(request.method, request.route, 'network', ms);
    throw new ServiceError('deadline', failureOf(ctx, request, op), `no complete answer before the operation deadline (${formatMs(ctx.deadlineMs)}) passed`, { cause: problem });
  }
  const net = describeNetworkError(problem);
  metrics?.onRequest?.(request.method, request.route, 'network', ms);
  log.debug({ method: request.method, route: request.route, error: net.code, attempt: op.attempts }, 'network failure');
  if (net.maybeSent) op.outcomeUnknown = true;
  if (!request.idempotent && net.maybeSent) return { kind: 'unknown_outcome' };
  const limit = !state.answered && isNobodyThere(problem) ? Math.min(maxAttempts, DEFAULTS.firstContactAttempts) : maxAttempts;
  const left = limit - op.failures - 1;
  if (!state.networkFailureSaid && left > 0) {
    state.networkFailureSaid = true;
    log.warn({ method: request.method, route: request.route, error: net.code }, `cannot reach ${ctx.shownUrl} (${net.code}), retrying ${left} more time${left === 1 ? '' : 's'}…`);
  }
  await retryAfterBackoff(ctx, request, op, `network:${net.code}`, undefined, limit);
  if (op.failures >= limit) {
    const why = problem instanceof TransportError || problem instanceof ExchangeDeadline ? `: ${problem.message}` : '';
    const summary = net.maybeSent
      ? `network failure (${net.code}${why}) after ${op.attempts} attempts`
      : `cannot reach ${ctx.shownUrl} (${net.code}) after ${op.attempts} attempts: check ${ctx.options.baseUrlEnv ?? 'the service URL'} and that the service is running`;
    throw new ServiceError(net.maybeSent ? 'network' : 'unreachable', failureOf(ctx, request, op), summary, { cause: problem });
  }
  return 'retry';
}

/**
 * Says why it is slow, once per pause (the answers of requests already in flight fall inside it):
 * info from 1 s, warn from 5 s so that the CLI's default level (warn) shows the long ones.
 */
function notePause(ctx: QueueContext, what: string, waitMs: number): void {
  if (waitMs <= 1000) return;
  const line = `${what} for ${(waitMs / 1000).toFixed(1)} s`;
  if (waitMs >= 5000) ctx.log.warn(line);
  else ctx.log.info(line);
}

/** 429/529: the gate closes for every request (see FlowControl.onThrottle); the call waits for it. */
function onThrottle(ctx: QueueContext, request: ApiCall, op: OperationBudget, result: Extract<Attempt, { answer: HttpAnswer }>, retryAfterMs: number | undefined): Next {
  const { clock, flow, metrics } = ctx;
  const { answer, sent } = result;
  const pausing = flow.openAt(false) <= clock.now();
  ctx.state.pauseKind = answer.status === 529 ? '529' : '429';
  const wait = flow.onThrottle(retryAfterMs, sent);
  if (pausing) notePause(ctx, `service throttled (${answer.status}): pausing all requests`, wait);
  metrics?.onThrottle?.(answer.status === 529 ? '529' : '429', wait);
  // `until`: when the gate opens again (the latest of every pause asked for so far), by the queue's clock.
  ctx.log.debug({ status: answer.status, waitMs: wait, until: flow.openAt(false), rate: flow.currentRate() }, 'throttled: pausing the queue');
  if (clock.now() + wait > op.deadline) {
    throw new ServiceError('throttled', failureOf(ctx, request, op, answer), `still throttled (${answer.status}) at the operation deadline`);
  }
  return 'retry';
}

/** 456: glossary calls cool down (a call of another kind pauses every request, as a 429 would). */
function onGlossaryQuota(ctx: QueueContext, request: ApiCall, op: OperationBudget, result: Extract<Attempt, { answer: HttpAnswer }>, retryAfterMs: number | undefined, glossary: boolean): Next {
  const { clock, flow, metrics } = ctx;
  const pausing = flow.openAt(glossary) <= clock.now();
  const glossaryOpenBefore = Math.max(flow.openAt(true), clock.now());
  ctx.state.pauseKind = '456';
  const wait = glossary ? flow.onGlossaryQuota(retryAfterMs) : flow.onThrottle(retryAfterMs, result.sent);
  if (wait === undefined) {
    throw new ServiceError('glossary_quota', failureOf(ctx, request, op, result.answer), 'glossary quota exceeded (456) and the cool-down budget is spent');
  }
  if (pausing) notePause(ctx, `glossary quota exceeded (456): pausing ${glossary ? 'glossary' : 'all'} requests`, wait);
  // The glossary cool-down is not the flow's throttle gate: report the time it added here.
  if (glossary && flow.openAt(true) > glossaryOpenBefore) metrics?.onPause?.('456', flow.openAt(true) - glossaryOpenBefore);
  metrics?.onThrottle?.('456', wait);
  ctx.log.debug({ status: 456, waitMs: wait }, 'glossary quota: cooling down glossary calls');
  return 'retry';
}

/** The hosts of the vendor's own service (its free and paid APIs), which take another Authorization scheme than the spec's. */
const VENDOR_HOST = /(^|\.)deepl\.com$/i;
const VENDOR_SCHEME = 'DeepL-Auth-Key';
const VENDOR_REFUSAL = /check auth_key/;

/**
 * What to try when a key is refused while the target sends the spec's scheme: the vendor's servers
 * answer such a header with 403 (or 401), whatever the key. Said outright for their hosts; for
 * another host, a 403 (a refusal to read, which the spec's service never gives a valid key) names
 * the setting as a possibility (the vendor's mock server runs anywhere).
 */
function authSchemeHint(ctx: QueueContext, status: 401 | 403, answer: HttpAnswer): string {
  if ((ctx.options.authScheme ?? DEFAULT_AUTH_SCHEME) !== DEFAULT_AUTH_SCHEME) return '';
  const host = new URL(ctx.options.base.origin).hostname;
  if (VENDOR_HOST.test(host)) return `; the vendor's servers (${host}) take \`auth_scheme: ${VENDOR_SCHEME}\`: set it on this target in the config`;
  // The vendor's refusal, wherever its server runs: `{"message":"Authorization failure, check auth_key"}`.
  if (VENDOR_REFUSAL.test(answer.text)) return `; the answer is the vendor's: its servers take \`auth_scheme: ${VENDOR_SCHEME}\`: set it on this target in the config`;
  return status === 403 ? `; if this is the vendor's own service or its mock server, set \`auth_scheme: ${VENDOR_SCHEME}\` on this target in the config` : '';
}

/** 401/403: the key is refused; never retried. */
function authError(ctx: QueueContext, request: ApiCall, op: OperationBudget, answer: HttpAnswer): ServiceAuthError {
  const status = answer.status === 401 ? 401 : 403;
  const write = request.method !== 'GET';
  const summary =
    status === 401
      ? `the service rejected the API key from ${ctx.options.apiKeyEnv} (401)`
      : write
        ? 'the key is read-only: writes are not permitted (403)'
        : 'the key is not permitted to read this (403)';
  return new ServiceAuthError({ ...failureOf(ctx, request, op, answer), status }, `${summary}${authSchemeHint(ctx, status, answer)}`);
}

/**
 * A 404 with an empty body to a listing: no route of the service answered (its own 404s say what
 * is missing), so the likely cause is the path of the base URL (`https://host/api` where the
 * service is at `/`).
 */
function notFoundHint(ctx: QueueContext, request: ApiCall, answer: HttpAnswer): string {
  // Only for a route without an id (a listing: the first requests of a run): a 404 for one glossary may just mean it is gone.
  if (answer.status !== 404 || answer.text.trim() !== '' || request.route.includes('{')) return '';
  const variable = ctx.options.baseUrlEnv === undefined ? 'the base URL' : ctx.options.baseUrlEnv;
  return ` with an empty answer: check the URL's path (${variable} is ${ctx.options.base.origin}${ctx.options.base.prefix}; the service's routes start with /v2 and /v3 under it)`;
}

/** Any other status: a redirect (never followed), a 404 that says an earlier delete landed, or the failure it is. */
function onFinal(ctx: QueueContext, request: ApiCall, op: OperationBudget, answer: HttpAnswer): Next {
  if (answer.status >= 300 && answer.status < 400) {
    // Never followed: the key would go along to wherever it points.
    const to = answer.location === undefined ? '' : ` to ${clip(answer.location)}`;
    throw new ServiceError(
      'redirect',
      failureOf(ctx, request, op, answer),
      `the service answered with a redirect (${answer.status})${to}, which termsync does not follow (the API key would go along): point the target's base URL at the service itself`,
    );
  }
  if (answer.status === 404 && request.goneMeansDone && op.outcomeUnknown) {
    // The earlier attempt did the delete; its answer was lost.
    return { kind: 'answer', answer: { status: 204, text: '' } };
  }
  throw new ServiceError(`http_${answer.status}`, failureOf(ctx, request, op, answer), `${STATUS_TEXT[answer.status] ?? 'failed'} (${answer.status})${notFoundHint(ctx, request, answer)}`);
}

/** An answer came: success, a wait the service asked for, a retry after a transient failure, or the error it is. */
export async function onAnswer(ctx: QueueContext, request: ApiCall, op: OperationBudget, result: Extract<Attempt, { answer: HttpAnswer }>, ms: number, glossary: boolean): Promise<Next> {
  const { answer } = result;
  ctx.state.answered = true;
  ctx.metrics?.onRequest?.(request.method, request.route, answer.status, ms);
  ctx.log.debug({ method: request.method, route: request.route, status: answer.status, ms, attempt: op.attempts }, 'service answer');
  const retryAfterMs = parseRetryAfter(answer.retryAfter, ctx.clock.now());
  switch (classifyStatus(answer.status)) {
    case 'ok':
      ctx.flow.onSuccess(glossary, result.sent);
      return { kind: 'answer', answer };
    case 'throttle':
      return onThrottle(ctx, request, op, result, retryAfterMs);
    case 'glossary_quota':
      return onGlossaryQuota(ctx, request, op, result, retryAfterMs, glossary);
    case 'transient':
      op.outcomeUnknown = true;
      if (!request.idempotent) return { kind: 'unknown_outcome', failure: { ...failureOf(ctx, request, op, answer), status: answer.status } };
      await retryAfterBackoff(ctx, request, op, `http_${answer.status}`, retryAfterMs);
      if (op.failures >= ctx.maxAttempts) {
        throw new ServiceError(`http_${answer.status}`, failureOf(ctx, request, op, answer), `HTTP ${answer.status} after ${op.attempts} attempts`);
      }
      return 'retry';
    case 'auth':
      throw authError(ctx, request, op, answer);
    case 'final':
      return onFinal(ctx, request, op, answer);
  }
}
