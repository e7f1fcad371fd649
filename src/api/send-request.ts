import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { DEFAULTS } from '../lib/defaults.js';
import type { HttpMethod } from '../lib/endpoints.js';
import { LOWERCASED_FROM } from '../lib/redact-keys.js';
import type { BaseUrl } from './check-base-url.js';
import { jsonBody } from './json-body.js';
import { keepParserOnBaselineTier } from './parser-tier.js';

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Path below the base URL, e.g. `/v3/glossaries/abc` (ids already encoded). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  /** JSON body (serialised here). */
  readonly json?: unknown;
  readonly accept?: string;
  /**
   * Looks at the bytes of a 2xx answer before they are decoded, synchronously (they may be a buffer
   * the next answer reuses: nothing of them may be kept): a value it returns is the answer's
   * `peeked`, and the body is then not decoded at all (`text` empty). Undefined: decoded as always.
   * Not called for an answer holding the API key (its text has the key taken out). One that throws
   * is as one that returns undefined (never a network error, never retried).
   */
  readonly peek?: (body: Buffer) => object | undefined;
}

export interface HttpAnswer {
  readonly status: number;
  readonly retryAfter?: string;
  readonly traceId?: string;
  readonly contentType?: string;
  /** `Location` of a redirect (never followed). */
  readonly location?: string;
  /** The body; of an answer that is not 2xx only its first `ERROR_BODY_KEPT` bytes. Empty when `peeked`. */
  readonly text: string;
  /** What the request's `peek` made of the body's bytes, when it made something (the body was then not decoded). */
  readonly peeked?: object;
}

/** What one exchange may cost: bytes of answer and time, headers and body together. */
export interface ExchangeLimits {
  /** Largest answer body accepted, in bytes (counted as it arrives, whatever `Content-Length` says). */
  readonly maxResponseBytes: number;
  /** Real time the whole exchange may take, from sending to the last byte of the answer. */
  readonly deadlineMs: number;
}

/**
 * undici's Agent and its `request`, each from its own module: undici's entry point loads the whole
 * library (fetch, WebSocket, caches, mocks, proxies), a tenth of a second of CPU and some 9 MB at
 * the start of every command that talks to the service, which needs only these two. They are the
 * very class and function the entry point exports (it re-exports these modules).
 *
 * Those module paths are undici's layout, not its published interface, and an installation may
 * resolve a newer undici 7: when either module is missing or not what is expected, the entry point
 * is loaded instead (slower to start, never broken). test/api/undici-modules.test.ts checks that the
 * installed undici takes the light path.
 */
type RequestFunction = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
const { Agent, undiciRequest } = loadUndici(createRequire(import.meta.url));

export function loadUndici(require: NodeJS.Require): { Agent: typeof UndiciAgent; undiciRequest: RequestFunction | undefined } {
  try {
    const agent = require('undici/lib/dispatcher/agent.js') as unknown;
    const request = require('undici/lib/api/api-request.js') as unknown;
    if (typeof agent === 'function' && typeof request === 'function') return { Agent: agent as typeof UndiciAgent, undiciRequest: request as RequestFunction };
  } catch {
    // another layout: the entry point below
  }
  // The entry point gives every dispatcher its `request` (requestOf then uses that).
  return { Agent: (require('undici') as { Agent: typeof UndiciAgent }).Agent, undiciRequest: undefined };
}

/**
 * `dispatcher.request(options)`: a dispatcher of its own kind (a test's) answers it itself; an Agent
 * loaded as above has no `request` of its own (the entry point adds the API to every dispatcher's
 * prototype), and undici's own function makes it.
 */
function requestOf(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  if (typeof dispatcher.request === 'function') return dispatcher.request(options);
  if (undiciRequest === undefined) throw new TypeError('this dispatcher has no request method');
  return undiciRequest.call(dispatcher, options);
}

export const USER_AGENT = 'termsync/0.1';

/** The spec's Authorization scheme; a target may name another (`auth_scheme`). */
export const DEFAULT_AUTH_SCHEME = 'Service-Auth-Key';
/** An error answer is only ever shown as a one-line message: its first bytes are all we keep. */
const ERROR_BODY_KEPT = 64 * 1024;

/**
 * The answer came but termsync will not use it: bigger than the limit, or encoded in a way it did
 * not ask for. Not retried (the same server would send the same again).
 */
export class AnswerRejected extends Error {
  override readonly name = 'AnswerRejected';
  constructor(
    readonly code: 'too_large' | 'invalid_response',
    readonly status: number,
    readonly traceId: string | undefined,
    summary: string,
  ) {
    super(summary);
  }
}

/** The exchange did not finish within its deadline (`ExchangeLimits.deadlineMs`). */
export class ExchangeDeadline extends Error {
  override readonly name = 'ExchangeDeadline';
  readonly code = 'request_deadline';
  constructor(readonly ms: number) {
    super(`no complete answer within ${formatMs(ms)}`);
  }
}

/**
 * A transport failure with a sentence a person can act on. `code` is the original's (undici or
 * Node), so the retry policy reads it as before; the original stays in `cause`.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  readonly code: string;
  constructor(code: string, explanation: string, cause: unknown) {
    super(explanation, { cause });
    this.code = code;
  }
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/** One pooled agent: keep-alive, a bounded number of connections, header and body timeouts. */
export function createAgent(connections: number): UndiciAgent {
  keepParserOnBaselineTier();
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

/** Whether an answer is a web page (a proxy's, a gateway's, a login page) rather than the service's. */
export function isHtml(answer: Pick<HttpAnswer, 'text' | 'contentType'>): boolean {
  return /html/i.test(answer.contentType ?? '') || /^\s*<(!doctype|html|head|body)/i.test(answer.text.slice(0, 200));
}

/**
 * A value from an untrusted server (a header, a language code), fit for a one-line message: what a
 * terminal would act on or show out of order is `?` — C0 and C1 controls (U+009B starts an escape
 * sequence on some terminals), line and paragraph separators, and the marks and overrides that
 * reorder the text after them.
 */
export function clip(value: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '?');
  if (clean.length <= max) return clean;
  // Not between the two halves of a surrogate pair.
  const end = /[\ud800-\udbff]/.test(clean.charAt(max - 1)) ? max - 1 : max;
  return `${clean.slice(0, end)}…`;
}

/**
 * `value` with every occurrence of the API key taken out: for what the client makes a message of
 * (an error body, a header, a value named in a message), before anything cuts, clips or lowercases
 * it (a cut key would no longer be found). A server can write the key with JSON escapes
 * (`\u0073ecret…`), which decode to the key itself: a decoded error body passes here (withoutKey);
 * a language code is lowercased as it is decoded, so the lowercased key is taken out too (from
 * LOWERCASED_FROM characters on).
 * Never for data (names, ids, entries): see KeyRedactor, where outputs take the key out.
 */
export function hideKey(value: string, apiKey: string): string {
  if (apiKey.length === 0) return value;
  let out = value;
  // Lowercased too: a language code is canonicalised (lowercased) as it is decoded (not for a short
  // key, whose lowercase form is a word: see KeyRedactor).
  const lower = apiKey.toLowerCase();
  for (const form of apiKey.length >= LOWERCASED_FROM && lower !== apiKey ? [apiKey, lower] : [apiKey]) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

/**
 * Whether decoding `text` (JSON whose raw form holds no occurrence of the key: hideKey took them
 * out) could give the key back: only if the text writes a character with an escape that the
 * key holds — `\u` for any character; `\/`, `\\`, `\"` and the control escapes for those the key has.
 */
export function mayDecodeToKey(text: string, apiKey: string): boolean {
  if (apiKey.length === 0 || !text.includes('\\')) return false;
  if (text.includes('\\u')) return true;
  // eslint-disable-next-line no-control-regex
  return /[/\\"\x00-\x1f]/.test(apiKey);
}

/**
 * A value JSON.parse made of `text`, with the API key taken out of every string in it, object keys
 * included (a field name is shown in the messages of an answer that does not fit its schema). The
 * value itself when decoding could not give the key back (mayDecodeToKey), as for nearly every
 * answer: then nothing is walked.
 */
export function withoutKey(value: unknown, text: string, apiKey: string): unknown {
  if (!mayDecodeToKey(text, apiKey)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return hideKey(v, apiKey);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[hideKey(k, apiKey)] = walk(inner);
      return out;
    }
    return v;
  };
  return walk(value);
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A transport error, explained. Errors of unknown kind, and failures before any answer came (the
 * code says it all: refused, reset), pass unchanged.
 */
function explain(error: unknown, progress: { answered: boolean; received: number; declared: number | undefined }): unknown {
  if (!(error instanceof Error)) return error;
  const code = codeOf(error);
  const got = progress.declared === undefined ? `${formatBytes(progress.received)} of the answer` : `${progress.received} of the ${progress.declared} bytes its Content-Length declares`;
  if (error.name === 'HTTPParserError') {
    return new TransportError(code ?? 'HTTP_PARSER', `the answer is not valid HTTP/1.1 (${clip(error.message)})`, error);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TransportError(code, `no answer within ${formatMs(DEFAULTS.headersTimeoutMs)}`, error);
  if (!progress.answered) return error;
  switch (code) {
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return new TransportError(code, `the answer's length does not match its Content-Length (${got})`, error);
    case 'UND_ERR_SOCKET':
      return new TransportError(code, `the connection closed before the answer was complete (received ${got})`, error);
    case 'UND_ERR_BODY_TIMEOUT':
      return new TransportError(code, `the answer stalled: no data for ${formatMs(DEFAULTS.bodyTimeoutMs)} (received ${got})`, error);
    default:
      return error;
  }
}

/** Answers of up to this many bytes are joined in one buffer, kept for the next answer (see decodeChunks). */
export const JOIN_BUFFER_BYTES = 1024 * 1024;
let joinBuffer: Buffer | undefined;

/**
 * The UTF-8 text of an answer's chunks (`bytes` in all). One chunk is decoded as it is. Several
 * (undici hands over what each socket read brought) are copied into one buffer kept for the next
 * answer and decoded from there: a fresh buffer per answer (Buffer.concat) is fresh memory, a page
 * fault every 4 KiB, which costs more than the copy itself (a plan reading 2,000 dictionaries of
 * 70 KB: 4 % of its CPU). Copy and decode are synchronous, so no other answer uses the buffer in
 * between, and the text returned is a string of its own; an answer larger than the buffer gets a
 * buffer of its own (none of that size is kept).
 */
export function decodeChunks(chunks: readonly Buffer[], bytes: number): string {
  return joinChunks(chunks, bytes).toString('utf8');
}

const NO_BYTES = Buffer.alloc(0);

/**
 * The bytes of an answer's chunks (`bytes` in all) in one buffer, as decodeChunks decodes them: the
 * one chunk, the kept buffer (valid until the next answer is joined: use it at once) or, for an
 * answer larger than that, a buffer of its own.
 */
export function joinChunks(chunks: readonly Buffer[], bytes: number): Buffer {
  if (chunks.length <= 1) return chunks[0] ?? NO_BYTES;
  if (bytes > JOIN_BUFFER_BYTES) return Buffer.concat(chunks, bytes);
  joinBuffer ??= Buffer.allocUnsafeSlow(JOIN_BUFFER_BYTES);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(joinBuffer, at);
  // `bytes` understated would cut the answer short: its chunks tell.
  if (at !== bytes) throw new RangeError(`decodeChunks: the chunks hold ${at} bytes, not ${bytes}`);
  return joinBuffer.subarray(0, at);
}

/**
 * What `peek` makes of an answer's bytes. A peek is an optimisation: one that throws made nothing
 * of them, and the answer is decoded and read as always (which judges it). The exception must not
 * reach sendRequest's handler, which would take it for a transport failure and have the request
 * sent again.
 */
function peekOf(peek: NonNullable<HttpRequest['peek']>, bytes: Buffer): object | undefined {
  try {
    return peek(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Sends one request and reads the whole answer, within `limits`: the body is counted as it
 * arrives and the connection dropped as soon as it passes the size limit (a lying or missing
 * `Content-Length` changes nothing), and the exchange is aborted at its deadline even while bytes
 * still trickle in (undici's timeouts are idle timeouts). The Authorization header is built here
 * and goes nowhere else: not into logs, errors or metrics. Redirects are not followed (undici's
 * default), so the key never reaches another host.
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  base: BaseUrl,
  apiKey: string,
  request: HttpRequest,
  signal: AbortSignal | undefined,
  limits: ExchangeLimits = { maxResponseBytes: DEFAULTS.maxResponseBytes, deadlineMs: DEFAULTS.requestDeadlineMs },
  authScheme: string = DEFAULT_AUTH_SCHEME,
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {
    authorization: `${authScheme} ${apiKey}`,
    'user-agent': USER_AGENT,
    accept: request.accept ?? 'application/json',
    // Answers are read as they come: a compressed one could inflate past any limit.
    'accept-encoding': 'identity',
  };
  let body: string | Buffer | undefined;
  if (request.json !== undefined) {
    body = jsonBody(request.json);
    headers['content-type'] = 'application/json';
  }
  // A server holds the key (it was sent to it) and could echo it in what we show: its error
  // message, a header, a trace id. Whatever comes back has the key taken out before anyone sees it.
  const hide = (value: string): string => hideKey(value, apiKey);
  const headerOf = (headers: Record<string, string | string[] | undefined>, name: string): string | undefined => {
    const value = header(headers, name);
    return value === undefined ? undefined : hide(value);
  };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new ExchangeDeadline(limits.deadlineMs)), limits.deadlineMs);
  // The caller's abort reaches the exchange through the same controller: one listener, removed
  // when the exchange ends (AbortSignal.any would build a signal and weak references per request).
  const forward = (): void => deadline.abort(signal?.reason);
  if (signal?.aborted === true) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  const progress = { answered: false, received: 0, declared: undefined as number | undefined };
  try {
    const res = await requestOf(dispatcher, {
      origin: base.origin,
      path: base.prefix + requestTarget(request),
      method: request.method,
      headers,
      body: body ?? null,
      signal: deadline.signal,
    });
    progress.answered = true;
    const status = res.statusCode;
    const retryAfter = headerOf(res.headers, 'retry-after');
    // Shown in messages and logs: a server chooses it, so it is clipped like any value of its own.
    const rawTraceId = headerOf(res.headers, 'x-trace-id');
    const traceId = rawTraceId === undefined ? undefined : clip(rawTraceId);
    const contentType = headerOf(res.headers, 'content-type');
    const location = headerOf(res.headers, 'location');
    const reject = (code: AnswerRejected['code'], summary: string): never => {
      // Destroying the body drops the connection; the abort it reports is ours, not news.
      res.body.on('error', () => undefined);
      res.body.destroy();
      throw new AnswerRejected(code, status, traceId, summary);
    };

    const encoding = headerOf(res.headers, 'content-encoding')?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
      reject('invalid_response', `unexpected response: Content-Encoding "${clip(encoding)}" (termsync asks for none and decodes none)`);
    }
    const length = headerOf(res.headers, 'content-length');
    if (length !== undefined && /^\d+$/.test(length.trim())) progress.declared = Number(length.trim());
    if (progress.declared !== undefined && progress.declared > limits.maxResponseBytes) {
      reject('too_large', `the answer declares ${formatBytes(progress.declared)}, over the limit of ${formatBytes(limits.maxResponseBytes)}; nothing was read`);
    }

    const keep = status >= 200 && status < 300 ? limits.maxResponseBytes : ERROR_BODY_KEPT;
    const chunks: Buffer[] = [];
    let kept = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      progress.received += chunk.length;
      if (progress.received > limits.maxResponseBytes) {
        reject('too_large', `the answer is over the limit of ${formatBytes(limits.maxResponseBytes)}; stopped reading at byte ${progress.received}`);
      }
      if (kept < keep) {
        const part = kept + chunk.length > keep ? chunk.subarray(0, keep - kept) : chunk;
        chunks.push(part);
        kept += part.length;
      }
    }
    const bytes = joinChunks(chunks, kept);
    const success = status >= 200 && status < 300;
    const peeked = request.peek !== undefined && success ? peekOf(request.peek, bytes) : undefined;
    return {
      status,
      // A successful answer is data, kept as the service sent it (a glossary may be named after a
      // word that is also the key); any other answer only ever becomes a message: the key out.
      text: peeked !== undefined ? '' : success ? bytes.toString('utf8') : hide(bytes.toString('utf8')),
      ...(peeked === undefined ? {} : { peeked }),
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(traceId === undefined ? {} : { traceId }),
      ...(contentType === undefined ? {} : { contentType }),
      ...(location === undefined ? {} : { location }),
    };
  } catch (error) {
    if (error instanceof AnswerRejected) throw error;
    // The deadline fired (and not the caller's signal): say so, whatever undici made of the abort.
    if (deadline.signal.aborted && signal?.aborted !== true) throw deadline.signal.reason as ExchangeDeadline;
    throw explain(error, progress);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', forward);
  }
}
