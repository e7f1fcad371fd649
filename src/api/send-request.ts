import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import { DEFAULTS } from '../lib/defaults.js';
import type { HttpMethod } from '../lib/endpoints.js';
import type { BaseUrl } from './check-base-url.js';
import { hideKey } from './hide-key.js';
import { jsonBody } from './json-body.js';
import { keepParserOnBaselineTier } from './parser-tier.js';
import { countReceived } from './young-collection.js';

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
 * undici's Agent from its own module: undici's entry point loads the whole library (fetch,
 * WebSocket, caches, mocks, proxies), a tenth of a second of CPU and some 9 MB at the start of every
 * command that talks to the service, which needs only the Agent (an exchange is dispatched to it
 * with a handler of our own: see sendRequest). It is the very class the entry point exports (it
 * re-exports that module).
 *
 * That module path is undici's layout, not its published interface, and an installation may
 * resolve a newer undici 7: when the module is missing or not what is expected, the entry point is
 * loaded instead (slower to start, never broken). test/api/undici-modules.test.ts checks that the
 * installed undici takes the light path.
 */
const { Agent } = loadUndici(createRequire(import.meta.url));

export function loadUndici(require: NodeJS.Require): { Agent: typeof UndiciAgent; light: boolean } {
  try {
    const agent = require('undici/lib/dispatcher/agent.js') as unknown;
    if (typeof agent === 'function') return { Agent: agent as typeof UndiciAgent, light: true };
  } catch {
    // another layout: the entry point below
  }
  return { Agent: (require('undici') as { Agent: typeof UndiciAgent }).Agent, light: false };
}

export { hideKey, mayDecodeToKey, withoutKey } from './hide-key.js';

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

/** What an exchange has received so far: whether headers came, the body's bytes, and what Content-Length declared. */
interface Progress {
  answered: boolean;
  received: number;
  declared: number | undefined;
}

/**
 * Sends one request and reads the whole answer, within `limits`: the body is counted as it
 * arrives and the connection dropped as soon as it passes the size limit (a lying or missing
 * `Content-Length` changes nothing), and the exchange is aborted at its deadline even while bytes
 * still trickle in (undici's timeouts are idle timeouts). The Authorization header is built here
 * and goes nowhere else: not into logs, errors or metrics. Redirects are not followed (undici's
 * default), so the key never reaches another host.
 *
 * The exchange is dispatched with a handler of its own (undici's documented `dispatch`: see
 * Exchange), which keeps the body's chunks as they come: undici's `request` wraps every answer in
 * a stream (a Readable, its events and an async iterator, an abort listener, an async resource),
 * read here chunk by chunk only to be joined.
 */
export function sendRequest(
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
  return new Promise<HttpAnswer>((resolve, reject) => {
    const exchange = new Exchange(apiKey, request.peek, limits, signal, resolve, reject);
    try {
      dispatcher.dispatch({ origin: base.origin, path: base.prefix + requestTarget(request), method: request.method, headers, body: body ?? null }, exchange);
    } catch (error) {
      exchange.onResponseError(undefined, error);
    }
  });
}

/**
 * One exchange's handler (undici's DispatchHandler): collects the answer's chunks within the
 * limits, stops the exchange at its deadline or at the caller's abort, and settles sendRequest's
 * promise once: with the answer, or with what went wrong (explained: see explain).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  /** Why this side stopped the exchange (the deadline, the caller's abort, an answer refused), whatever undici then reports. */
  private stopped: { readonly reason: unknown } | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly progress: Progress = { answered: false, received: 0, declared: undefined };
  private status = 0;
  /** Bytes of the body kept: all of a 2xx answer (within the limit), the first ERROR_BODY_KEPT of any other. */
  private keep = 0;
  private kept = 0;
  private readonly chunks: Buffer[] = [];
  private meta: Omit<HttpAnswer, 'text' | 'status' | 'peeked'> = {};

  constructor(
    private readonly apiKey: string,
    private readonly peek: HttpRequest['peek'],
    private readonly limits: ExchangeLimits,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (answer: HttpAnswer) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.timer = setTimeout(() => this.stop(new ExchangeDeadline(limits.deadlineMs)), limits.deadlineMs);
    // The caller's abort reaches the exchange through one listener, removed when the exchange ends.
    if (signal?.aborted === true) this.forward();
    else signal?.addEventListener('abort', this.forward, { once: true });
  }

  private readonly forward = (): void => this.stop(this.signal?.reason);

  /** A server holds the key (it was sent to it) and could echo it in what we show: whatever comes back has it taken out first. */
  private headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
    const value = header(headers, name);
    return value === undefined ? undefined : hideKey(value, this.apiKey);
  }

  /** Stops the exchange: undici drops the connection, and its error (the abort, ours) settles the promise with `reason`. */
  private stop(reason: unknown): void {
    if (this.settled || this.stopped !== undefined) return;
    this.stopped = { reason };
    // Before the request has left, undici is told as soon as it starts it (onRequestStart).
    this.controller?.abort(reason as Error);
  }

  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.forward);
    return true;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped !== undefined) controller.abort(this.stopped.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // A 1xx (100 Continue) is not the answer.
    if (statusCode < 200) return;
    this.progress.answered = true;
    this.status = statusCode;
    const retryAfter = this.headerOf(headers, 'retry-after');
    // Shown in messages and logs: a server chooses it, so it is clipped like any value of its own.
    const rawTraceId = this.headerOf(headers, 'x-trace-id');
    const traceId = rawTraceId === undefined ? undefined : clip(rawTraceId);
    const contentType = this.headerOf(headers, 'content-type');
    const location = this.headerOf(headers, 'location');
    this.meta = {
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(traceId === undefined ? {} : { traceId }),
      ...(contentType === undefined ? {} : { contentType }),
      ...(location === undefined ? {} : { location }),
    };
    const encoding = this.headerOf(headers, 'content-encoding')?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
      this.refuse('invalid_response', `unexpected response: Content-Encoding "${clip(encoding)}" (termsync asks for none and decodes none)`);
      return;
    }
    const length = this.headerOf(headers, 'content-length');
    if (length !== undefined && /^\d+$/.test(length.trim())) this.progress.declared = Number(length.trim());
    if (this.progress.declared !== undefined && this.progress.declared > this.limits.maxResponseBytes) {
      this.refuse('too_large', `the answer declares ${formatBytes(this.progress.declared)}, over the limit of ${formatBytes(this.limits.maxResponseBytes)}; nothing was read`);
      return;
    }
    this.keep = statusCode < 300 ? this.limits.maxResponseBytes : ERROR_BODY_KEPT;
  }

  /** Refuses the answer: the connection is dropped (the abort undici then reports is ours, not news). */
  private refuse(code: AnswerRejected['code'], summary: string): void {
    this.stop(new AnswerRejected(code, this.status, this.meta.traceId, summary));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.stopped !== undefined) return;
    this.progress.received += chunk.length;
    if (this.progress.received > this.limits.maxResponseBytes) {
      this.refuse('too_large', `the answer is over the limit of ${formatBytes(this.limits.maxResponseBytes)}; stopped reading at byte ${this.progress.received}`);
      return;
    }
    if (this.kept < this.keep) {
      const part = this.kept + chunk.length > this.keep ? chunk.subarray(0, this.keep - this.kept) : chunk;
      this.chunks.push(part);
      this.kept += part.length;
    }
  }

  onResponseEnd(): void {
    if (this.stopped !== undefined) {
      this.onResponseError(undefined, this.stopped.reason);
      return;
    }
    if (!this.settle()) return;
    // The answer is read: its socket reads die with it (see young-collection.ts).
    countReceived(this.progress.received);
    try {
      const bytes = joinChunks(this.chunks, this.kept);
      const success = this.status >= 200 && this.status < 300;
      const peeked = this.peek !== undefined && success ? peekOf(this.peek, bytes) : undefined;
      this.resolve({
        status: this.status,
        // A successful answer is data, kept as the service sent it (a glossary may be named after a
        // word that is also the key); any other answer only ever becomes a message: the key out.
        text: peeked !== undefined ? '' : success ? bytes.toString('utf8') : hideKey(bytes.toString('utf8'), this.apiKey),
        ...(peeked === undefined ? {} : { peeked }),
        ...this.meta,
      });
    } catch (error) {
      this.reject(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: unknown): void {
    if (!this.settle()) return;
    const reason = this.stopped === undefined ? error : this.stopped.reason;
    // Stopped by this side: the deadline, an answer refused, or the caller's abort (its reason), whatever undici made of it.
    this.reject(this.stopped === undefined ? explain(reason, this.progress) : reason);
  }
}
