import { setMaxListeners } from 'node:events';
import { checkAllowedHost, createClient, readApiKey, readBaseUrl, type ClientMetricsHooks, type ServiceClient } from '../api/index.js';
import type { Clock } from '../lib/clock.js';
import { MAX_ATTEMPTS_ENV } from '../lib/defaults.js';
import { InputError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** What a run needs of the outside world to talk to the service; injected so tests and the daemon choose. */
export interface ServiceContext {
  readonly env: Env;
  /** Aborts requests in flight (the CLI: SIGINT/SIGTERM). */
  readonly signal: AbortSignal;
  /**
   * When aborted, no new target and no new operation starts, but what is in flight finishes (the
   * daemon's graceful stop; `signal` bounds it). Default: `signal`.
   */
  readonly stop?: AbortSignal;
  readonly logger: Logger;
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

/** A client for one target: URL and key from the target's environment variables, rate from the config. */
export function openClient(ctx: ServiceContext, desired: DesiredState, target: TargetConfig): ServiceClient {
  const attempts = maxAttempts(ctx.env);
  const baseUrl = readBaseUrl(ctx.env, target);
  // Before the key is even read: with TERMSYNC_ALLOWED_HOSTS set, only those hosts may receive it.
  checkAllowedHost(ctx.env, target, baseUrl);
  const apiKey = readApiKey(ctx.env, target);
  // Every request in flight and every waiting operation listens on the one signal: an apply hands
  // all its operations to the queue at once, and while the service throttles each one waits (a
  // back-off, or the paused queue) with its own listener, removed when the wait ends. Their number
  // is the number of operations, not a leak and not bounded by the concurrency, so Node's leak
  // warning (printed as a plain line on stderr, among the JSON log lines) is turned off here.
  setMaxListeners(0, ctx.signal);
  return createClient({
    baseUrl,
    apiKey,
    apiKeyEnv: target.apiKeyEnv,
    baseUrlEnv: target.baseUrlEnv,
    requestsPerSecond: desired.config.rateLimit.requestsPerSecond,
    concurrency: desired.config.rateLimit.concurrency,
    logger: ctx.logger,
    signal: ctx.signal,
    ...(ctx.metrics === undefined ? {} : { metrics: ctx.metrics }),
    ...(ctx.clock === undefined ? {} : { clock: ctx.clock }),
    ...(attempts === undefined ? {} : { retry: { maxAttempts: attempts } }),
  });
}
