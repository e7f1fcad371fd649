import type * as z from 'zod';
import type { Logger } from '../lib/logger.js';
import { ServiceError } from './errors.js';
import { parseWith } from './parse-responses.js';
import type { ApiCall, RequestQueue } from './request-queue.js';
import { clip, formatBytes, isHtml, requestTarget, type HttpAnswer } from './send-request.js';

/** Where an answer came from, as messages about it name it. */
export type Where = { method: string; path: string; traceId?: string };

/** A request as the endpoint modules write it: the queue is told whether it may be sent again. */
export type ServiceRequest = Omit<ApiCall, 'idempotent'>;

/**
 * What every endpoint module of one client shares: its queue, its logger, and the ways a call is
 * sent and its answer read. The API key is here only to take it out of messages about answers.
 */
export interface ServiceCalls {
  readonly queue: RequestQueue;
  readonly logger: Logger;
  readonly apiKey: string;
  /** An idempotent call: retried as is until it answers 2xx or fails for good. */
  send(request: ServiceRequest): Promise<HttpAnswer>;
  /** A DELETE: idempotent, and a 404 after an attempt whose outcome is unknown means it landed. */
  remove(request: ServiceRequest): Promise<void>;
  /** The answer's JSON, as the service sent it; an answer that is not JSON is `invalid_response`. */
  json(answer: HttpAnswer, request: ServiceRequest): unknown;
  /** An idempotent call whose JSON answer `parse` reads. */
  getJson<T>(request: ServiceRequest, parse: (data: unknown, where: Where) => T): Promise<T>;
  /** The answer checked against `schema` (see parseWith: the key is taken out of the message). */
  parseAnswer<S extends z.ZodType>(schema: S, data: unknown, where: Where): z.output<S>;
  /** The request and the answer's trace id, as messages about the answer name them. */
  whereOf(request: ServiceRequest, answer: Pick<HttpAnswer, 'traceId'>): Where;
}

/** What came instead of JSON, without repeating it (a hostile server chooses the body). */
export function describeNotJson(answer: Pick<HttpAnswer, 'text' | 'contentType'>): string {
  const size = formatBytes(Buffer.byteLength(answer.text));
  const type = answer.contentType === undefined ? '' : `, Content-Type "${clip(answer.contentType, 80)}"`;
  if (answer.text.trim() === '') return `the body is empty, not JSON${type}`;
  if (isHtml(answer)) {
    return `an HTML page (${size}${type}), not the service's JSON: is the base URL the service's own, not a proxy, gateway or login page?`;
  }
  return `the body is not JSON (${size}${type})`;
}

export function createServiceCalls(queue: RequestQueue, logger: Logger, apiKey: string): ServiceCalls {
  const whereOf = (request: ServiceRequest, answer: Pick<HttpAnswer, 'traceId'>): Where => ({
    method: request.method,
    path: requestTarget(request),
    ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }),
  });
  const send = async (request: ServiceRequest): Promise<HttpAnswer> => {
    const result = await queue.call({ ...request, idempotent: true }, queue.newOperation());
    if (result.kind === 'answer') return result.answer;
    // Idempotent calls never yield an unknown outcome; kept for the type's sake.
    throw new ServiceError('network', { method: request.method, path: requestTarget(request) }, 'outcome unknown');
  };
  const json = (answer: HttpAnswer, request: ServiceRequest): unknown => {
    try {
      // Data, as the service sent it: a name or an entry that holds the key is kept as it is (the
      // outputs take the key out of what they show; messages about the answer do so themselves).
      return JSON.parse(answer.text);
    } catch {
      throw new ServiceError('invalid_response', { ...whereOf(request, answer), status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
    }
  };
  return {
    queue,
    logger,
    apiKey,
    send,
    remove: async (request) => {
      await send({ ...request, goneMeansDone: true });
    },
    json,
    getJson: async (request, parse) => {
      const answer = await send(request);
      return parse(json(answer, request), whereOf(request, answer));
    },
    // The key in a message about an answer that does not fit (a field name the server chose): see parseWith.
    parseAnswer: (schema, data, where) => parseWith(schema, data, where, apiKey),
    whereOf,
  };
}
