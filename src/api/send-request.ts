import { Agent, type Dispatcher } from 'undici';
import { DEFAULTS } from '../lib/defaults.js';
import type { BaseUrl } from './check-base-url.js';

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL, e.g. `/v3/glossaries/abc` (ids already encoded). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** JSON body (serialised here). */
  readonly json?: unknown;
  readonly accept?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly retryAfter?: string;
  readonly traceId?: string;
  readonly contentType?: string;
  readonly text: string;
}

export const USER_AGENT = 'termsync/0.1';

/** The spec's Authorization scheme; a target may name another (`auth_scheme`). */
export const DEFAULT_AUTH_SCHEME = 'Service-Auth-Key';

/** One pooled agent: keep-alive, a bounded number of connections, header and body timeouts. */
export function createAgent(connections: number): Agent {
  return new Agent({
    connections,
    pipelining: 1,
    keepAliveTimeout: DEFAULTS.keepAliveTimeoutMs,
    connectTimeout: DEFAULTS.connectTimeoutMs,
    headersTimeout: DEFAULTS.headersTimeoutMs,
    bodyTimeout: DEFAULTS.bodyTimeoutMs,
  });
}

export function requestTarget(request: HttpRequest): string {
  const query = request.query ? new URLSearchParams(request.query).toString() : '';
  return query ? `${request.path}?${query}` : request.path;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Sends one request and reads the whole answer. The Authorization header is built here and goes
 * nowhere else: not into logs, errors or metrics. Redirects are not followed (undici's default),
 * so the key never reaches another host.
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  base: BaseUrl,
  apiKey: string,
  request: HttpRequest,
  signal: AbortSignal | undefined,
  authScheme: string = DEFAULT_AUTH_SCHEME,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {
    authorization: `${authScheme} ${apiKey}`,
    'user-agent': USER_AGENT,
    accept: request.accept ?? 'application/json',
  };
  let body: string | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = 'application/json';
  }
  const res = await dispatcher.request({
    origin: base.origin,
    path: base.prefix + requestTarget(request),
    method: request.method,
    headers,
    body: body ?? null,
    signal: signal ?? null,
  });
  const text = await res.body.text();
  const retryAfter = header(res.headers, 'retry-after');
  const traceId = header(res.headers, 'x-trace-id');
  const contentType = header(res.headers, 'content-type');
  return {
    status: res.statusCode,
    text,
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(traceId === undefined ? {} : { traceId }),
    ...(contentType === undefined ? {} : { contentType }),
  };
}
