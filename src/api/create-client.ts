import type { Dispatcher } from 'undici';
import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import { canonicalLang } from '../lib/canonical.js';
import { DEFAULTS, defaultConcurrency } from '../lib/defaults.js';
import { ENDPOINTS, requestTo } from '../lib/endpoints.js';
import { InputError } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { checkBaseUrl } from './check-base-url.js';
import { ServiceError } from './errors.js';
import { glossaryEndpoints, type GlossaryEndpoints } from './glossary-endpoints.js';
import { schemas } from './parse-responses.js';
import { createRequestQueue, type ClientMetricsHooks, type RetryOptions } from './request-queue.js';
import { createAgent, type ExchangeLimits } from './send-request.js';
import { createServiceCalls, type ServiceCalls } from './service-calls.js';
import { styleRuleEndpoints, type StyleRuleEndpoints } from './style-rule-endpoints.js';

export type { InstructionInput } from './style-rule-endpoints.js';

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The variable the key came from, named in the 401 message (default TERMSYNC_API_KEY). */
  readonly apiKeyEnv?: string;
  /** The Authorization scheme: the target's `auth_scheme` (default Service-Auth-Key). */
  readonly authScheme?: string;
  /** The variable the URL came from, named when nobody listens there. */
  readonly baseUrlEnv?: string;
  /** From the project config's `rate_limit` (default 5). */
  readonly requestsPerSecond?: number;
  /** Requests in flight at once (default: follows the rate, `defaultConcurrency`). */
  readonly concurrency?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Default: one pooled keep-alive agent owned (and closed) by the client. */
  readonly dispatcher?: Dispatcher;
  /** Aborts every request, writes in flight included. */
  readonly signal?: AbortSignal;
  /** Stops sending: what has not left is not sent, a write in flight is answered first (see RequestQueueOptions). */
  readonly stop?: AbortSignal;
  readonly retry?: RetryOptions;
  /** Size and time limits of one exchange (defaults: `DEFAULTS.maxResponseBytes`, `DEFAULTS.requestDeadlineMs`). */
  readonly limits?: Partial<ExchangeLimits>;
  readonly metrics?: ClientMetricsHooks;
  /** Jitter source (tests make it deterministic). */
  readonly random?: () => number;
}

/** One `POST /v2/translate` with a glossary: the texts are translated independently, in order. */
export interface TranslateInput {
  readonly texts: readonly string[];
  readonly sourceLang: string;
  /** A translation target code (`de`, `en-US`, ...). */
  readonly targetLang: string;
  readonly glossaryId: string;
}

/**
 * The service's API as termsync uses it: the glossary endpoints (glossary-endpoints.ts), the style
 * rule endpoints (style-rule-endpoints.ts) and the two calls of `verify`, all through one queue.
 * Each request is a row of the endpoint table (lib/endpoints.ts).
 */
export interface ServiceClient extends GlossaryEndpoints, StyleRuleEndpoints {
  /** Requests in flight at once (`rate_limit.concurrency`): readers need no more reads pending than this. */
  readonly concurrency: number;
  listLanguages(resource: 'translate_text' | 'translate_document' | 'glossary' | 'voice' | 'write'): Promise<unknown[]>;
  /** The translations of `texts`, in order (each costs its characters of the account's quota). */
  translate(input: TranslateInput): Promise<string[]>;
  close(): Promise<void>;
}

function checkPositive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new InputError('invalid_client_option', `expected ${name} > 0, got ${value}`);
  return value;
}

// Translating changes nothing on the service, so a lost answer is sent again like a read
// (at the price of the characters counted twice).
function translate(calls: ServiceCalls, input: TranslateInput): Promise<string[]> {
  const json = {
    text: input.texts,
    source_lang: canonicalLang(input.sourceLang).toUpperCase(),
    target_lang: input.targetLang.trim().toUpperCase(),
    glossary_id: input.glossaryId,
  };
  return calls.getJson({ ...requestTo(ENDPOINTS.translate, {}), json }, (data, where) => {
    const translations = calls.parseAnswer(schemas.translations, data, where).translations.map((t) => t.text);
    if (translations.length !== input.texts.length) {
      throw new ServiceError('invalid_response', where, `unexpected response: ${translations.length} translations for ${input.texts.length} texts`);
    }
    return translations;
  });
}

export function createClient(options: ClientOptions): ServiceClient {
  const base = checkBaseUrl(options.baseUrl);
  const requestsPerSecond = checkPositive('requestsPerSecond', options.requestsPerSecond, DEFAULTS.requestsPerSecond);
  const concurrency = Math.floor(checkPositive('concurrency', options.concurrency, defaultConcurrency(requestsPerSecond)));
  const logger = options.logger ?? silentLogger;
  // Without a dispatcher of the caller's, one pooled keep-alive agent owned (and closed) by the client.
  const ownAgent = options.dispatcher === undefined ? createAgent(concurrency) : undefined;
  const queue = createRequestQueue({
    dispatcher: options.dispatcher ?? (ownAgent as Dispatcher),
    base,
    apiKey: options.apiKey,
    apiKeyEnv: options.apiKeyEnv ?? 'TERMSYNC_API_KEY',
    ...(options.authScheme === undefined ? {} : { authScheme: options.authScheme }),
    ...(options.baseUrlEnv === undefined ? {} : { baseUrlEnv: options.baseUrlEnv }),
    clock: options.clock ?? systemClock,
    logger,
    concurrency,
    requestsPerSecond,
    retry: options.retry ?? {},
    limits: {
      maxResponseBytes: Math.floor(checkPositive('maxResponseBytes', options.limits?.maxResponseBytes, DEFAULTS.maxResponseBytes)),
      deadlineMs: checkPositive('requestDeadlineMs', options.limits?.deadlineMs, DEFAULTS.requestDeadlineMs),
    },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  const calls = createServiceCalls(queue, logger, options.apiKey);
  return {
    ...glossaryEndpoints(calls),
    ...styleRuleEndpoints(calls),
    concurrency,
    listLanguages: (resource) => calls.getJson(requestTo(ENDPOINTS.listLanguages, {}, { resource }), (data, where) => calls.parseAnswer(schemas.languages, data, where)),
    translate: (input) => translate(calls, input),
    async close() {
      queue.close();
      await queue.onIdle();
      await ownAgent?.close();
    },
  };
}
