import { checkAllowedHost, createClient, readApiKey, readBaseUrl, type ClientMetricsHooks, type Env, type ServiceClient } from '../api/index.js';
import type { Clock } from '../lib/clock.js';
import { MAX_ATTEMPTS_ENV, MAX_RESPONSE_BYTES_ENV, OPERATION_DEADLINE_ENV, REQUEST_TIMEOUT_ENV } from '../lib/defaults.js';
import { InputError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';

export type { Env };

/** What a run needs of the outside world to talk to the service; injected so tests and the daemon choose. */
export interface ServiceContext {
  readonly env: Env;
  /** Aborts requests in flight, writes included (the daemon: its stop's grace period is over). */
  readonly signal: AbortSignal;
  /**
   * When aborted (the CLI: SIGINT/SIGTERM; the daemon's graceful stop), no new target, operation or
   * request starts and reads in flight are dropped, but a write in flight is answered first, so that
   * its operation reports what the service did (`signal` bounds it). Default: `signal`.
   */
  readonly stop?: AbortSignal;
  readonly logger: Logger;
  /** Told every key read for a target, so that the outputs take it out of what they show. */
  readonly keys?: { add(key: string): void };
  readonly metrics?: ClientMetricsHooks;
  readonly clock?: Clock;
}

function maxAttempts(env: Env): number | undefined {
  const raw = env[MAX_ATTEMPTS_ENV];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new InputError('invalid_env', `expected ${MAX_ATTEMPTS_ENV} to be a whole number from 1 to 100, got "${raw}"`);
  }
  return value;
}

/** A whole number from the environment within [min, max], or undefined when unset. */
function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InputError('invalid_env', `expected ${name} to be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** A client for one target: URL and key from the target's environment variables, rate from the config. */
export function openClient(ctx: ServiceContext, desired: DesiredState, target: TargetConfig): ServiceClient {
  const attempts = maxAttempts(ctx.env);
  // Limits of one exchange and of one operation: the defaults suit every real service; tests and
  // slow links change them.
  const requestDeadlineMs = wholeNumber(ctx.env, REQUEST_TIMEOUT_ENV, 1, 3_600_000);
  const operationDeadlineMs = wholeNumber(ctx.env, OPERATION_DEADLINE_ENV, 1, 86_400_000);
  const maxResponseBytes = wholeNumber(ctx.env, MAX_RESPONSE_BYTES_ENV, 1024, 2 ** 31);
  const retry = {
    ...(attempts === undefined ? {} : { maxAttempts: attempts }),
    ...(operationDeadlineMs === undefined ? {} : { deadlineMs: operationDeadlineMs }),
  };
  const baseUrl = readBaseUrl(ctx.env, target);
  // Before the key is even read: with TERMSYNC_ALLOWED_HOSTS set, only those hosts may receive it.
  checkAllowedHost(ctx.env, target, baseUrl);
  const apiKey = readApiKey(ctx.env, target);
  ctx.keys?.add(apiKey);
  return createClient({
    baseUrl,
    apiKey,
    apiKeyEnv: target.apiKeyEnv,
    ...(target.authScheme === undefined ? {} : { authScheme: target.authScheme }),
    baseUrlEnv: target.baseUrlEnv,
    // The target's own rate limit, else the config's.
    requestsPerSecond: (target.rateLimit ?? desired.config.rateLimit).requestsPerSecond,
    concurrency: (target.rateLimit ?? desired.config.rateLimit).concurrency,
    logger: ctx.logger,
    signal: ctx.signal,
    ...(ctx.stop === undefined ? {} : { stop: ctx.stop }),
    ...(ctx.metrics === undefined ? {} : { metrics: ctx.metrics }),
    ...(ctx.clock === undefined ? {} : { clock: ctx.clock }),
    retry,
    limits: {
      ...(requestDeadlineMs === undefined ? {} : { deadlineMs: requestDeadlineMs }),
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
    },
  });
}
