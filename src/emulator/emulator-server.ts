import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import type { EmulatorBehaviour, EmulatorOptions, InjectOnceFault, RequestLogEntry, RunningEmulator } from './emulator-types.js';
import { parseBody, type ParsedBody } from './parse-body.js';
import { parseFaultSpec } from './parse-faults.js';
import { parseKeys, type KeyGrant } from './parse-keys.js';
import { createRandom, createUuid, deriveSeed, type Random } from './random.js';
import type { RequestContext, ServiceResponse } from './request-context.js';
import { bodyLimitFor, isGlossaryPath, matchRoute } from './route-request.js';
import { ServiceError, badRequest, describeType, isServiceError } from './service-error.js';
import { createAccount, type Account } from './store.js';
import { FaultPlan, RateLimiter } from './traffic-control.js';

const CONTROL_PREFIX = '/__emulator/';
const MAX_LOG_ENTRIES = 100_000;
const CONTROL_BODY_LIMIT = 64 * 1024;
const DEFAULT_AUTH_SCHEME = 'Service-Auth-Key';
const FAULT_KINDS = new Set<unknown>(['reset', 'reset_after', 429, 456, 500, 503, 529]);

interface Body {
  readonly raw: Buffer;
  readonly size: number;
  readonly tooLarge: boolean;
}

/** Reads a body up to `limit` bytes; beyond it keeps draining (so the answer can be sent) but stops buffering. */
function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve({ raw: size <= limit ? Buffer.concat(chunks) : Buffer.alloc(0), size, tooLarge: size > limit }));
    req.on('error', reject);
    // A client that goes away mid-body: settle, so nothing waits on it.
    req.on('close', () => {
      if (!req.complete) reject(new Error('client closed the connection mid-body'));
    });
  });
}

function send(res: ServerResponse, response: ServiceResponse): void {
  const headers: Record<string, string | number> = { ...response.headers };
  if (response.status === 204) {
    res.writeHead(204, headers);
    res.end();
    return;
  }
  const payload = Buffer.from(response.text ?? JSON.stringify(response.json ?? null), 'utf8');
  headers['Content-Type'] = response.contentType ?? (response.text === undefined ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8');
  headers['Content-Length'] = payload.length;
  res.writeHead(response.status, headers);
  res.end(payload);
}

function errorResponse(error: ServiceError): ServiceResponse {
  return { status: error.status, json: error.toBody(), headers: error.headers };
}

function throttled(status: 429 | 456 | 529, retryAfter: number, why: string): ServiceError {
  const messages = {
    429: `Too many requests (${why}); wait and resend`,
    456: 'Quota exceeded: too many recent requests to the glossary endpoints',
    529: `Too many requests (${why}); wait and resend`,
  };
  return new ServiceError(status, messages[status], { headers: { 'Retry-After': String(retryAfter) } });
}

function faultError(kind: 429 | 456 | 500 | 503 | 529, retryAfter: number): ServiceError {
  if (kind === 500) return new ServiceError(500, 'Internal error (injected by the emulator)');
  if (kind === 503) return new ServiceError(503, 'Resource temporarily unavailable; retry later (injected by the emulator)');
  return throttled(kind, retryAfter, 'injected by the emulator');
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** The emulated service behind one HTTP server: accounts, faults, rate limit, request log. */
export class EmulatorServer {
  private readonly clock: { now(): number };
  private readonly logger: Logger;
  private readonly grants: Map<string, KeyGrant> | undefined;
  private readonly labels = new Map<string, string>();
  private readonly accounts = new Map<string, Account>();
  private readonly limiter: RateLimiter;
  private readonly faults: FaultPlan;
  private readonly ids: Random;
  private readonly traces: Random;
  private readonly seed: number;
  private readonly authScheme: string;
  private readonly behaviour: EmulatorBehaviour;
  private log: RequestLogEntry[] = [];
  private seq = 0;

  constructor(options: EmulatorOptions) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.logger = options.logger ?? silentLogger;
    this.seed = options.seed ?? Math.floor(Math.random() * 4294967296);
    this.ids = createRandom(deriveSeed(this.seed, 0));
    this.faults = new FaultPlan(createRandom(deriveSeed(this.seed, 1)));
    this.traces = createRandom(deriveSeed(this.seed, 2));
    if (options.rateLimit !== undefined && (!Number.isInteger(options.rateLimit) || options.rateLimit < 1)) {
      throw new InputError('invalid_rate_limit', `expected the rate limit to be a positive integer, got ${String(options.rateLimit)}`);
    }
    this.limiter = new RateLimiter(options.rateLimit);
    this.authScheme = options.authScheme ?? DEFAULT_AUTH_SCHEME;
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(this.authScheme)) {
      throw new InputError('invalid_auth_scheme', `expected the auth scheme to be one word such as ${DEFAULT_AUTH_SCHEME}, got "${this.authScheme.slice(0, 40)}"`);
    }
    this.behaviour = { ...options.behaviour };
    this.faults.setSpec(parseFaultSpec(options.faults ?? ''));
    if (options.keys !== undefined) {
      const grants = parseKeys(options.keys);
      this.grants = new Map(grants.map((g) => [g.key, g]));
      grants.forEach((g, i) => {
        if (!this.labels.has(g.key)) this.labels.set(g.key, `acct-${i + 1}`);
      });
    }
  }

  /** A copy of the log: callers cannot change what later assertions see. */
  requests(): readonly RequestLogEntry[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  reset(): void {
    this.accounts.clear();
    this.log = [];
    this.seq = 0;
    this.limiter.clear();
    this.faults.clearInjected();
  }

  setFaults(spec: string): void {
    this.faults.setSpec(parseFaultSpec(spec));
  }

  injectOnce(fault: InjectOnceFault): void {
    if (!FAULT_KINDS.has(fault.kind)) throw new InputError('invalid_fault', `unknown fault kind ${String(fault.kind)}`);
    const { retryAfter } = fault;
    // Retry-After is a whole number of seconds (RFC 9110 delay-seconds); the HTTP control checks the same.
    if (retryAfter !== undefined && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
      throw new InputError('invalid_fault', `retryAfter must be a non-negative integer (seconds), got ${String(retryAfter)}`);
    }
    this.faults.inject(fault);
  }

  /** The node:http request listener. Never throws: every failure becomes an answer. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    this.handle(req, res).catch((error: unknown) => {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'emulator request failed');
      if (!res.headersSent && !res.destroyed) send(res, { status: 500, json: { message: 'Internal error in the emulator' } });
      else res.destroy();
    });
  };

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = this.clock.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    if (path.startsWith(CONTROL_PREFIX)) {
      await this.handleControl(req, res, method, path.slice(CONTROL_PREFIX.length));
      return;
    }
    let body: Body;
    try {
      body = await readBody(req, bodyLimitFor(path));
    } catch {
      return; // the client went away mid-body: nothing to answer
    }
    const entry: RequestLogEntry = { seq: ++this.seq, time: arrival, method, path, query, status: 0, account: '-', bodyBytes: body.size };
    this.record(entry);

    const fault = this.faults.draw(method, path, isGlossaryPath(path));
    if (fault?.kind === 'reset') {
      entry.status = 'reset';
      entry.fault = 'reset';
      req.socket.destroy();
      return;
    }
    let response: ServiceResponse;
    if (fault !== undefined && fault.kind !== 'reset_after') {
      entry.fault = String(fault.kind);
      response = errorResponse(faultError(fault.kind, fault.retryAfter));
    } else {
      response = this.process(req, method, path, query, body, entry);
    }
    if (fault?.kind === 'reset_after') {
      entry.status = 'reset';
      entry.fault = 'reset_after';
      req.socket.destroy();
      return;
    }
    const latency = this.faults.latencyMs();
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    entry.status = response.status;
    if (!res.destroyed) send(res, response);
    this.logger.debug({ method, path, status: response.status, account: entry.account }, 'request');
  }

  private record(entry: RequestLogEntry): void {
    this.log.push(entry);
    if (this.log.length > MAX_LOG_ENTRIES) this.log.splice(0, this.log.length - MAX_LOG_ENTRIES);
  }

  private process(req: IncomingMessage, method: string, path: string, query: string, body: Body, entry: RequestLogEntry): ServiceResponse {
    try {
      const grant = this.authenticate(req.headers.authorization);
      const account = this.account(grant.key);
      entry.account = account.label;
      const admitted = this.limiter.admit(grant.key, this.clock.now());
      if (!admitted.ok) {
        entry.fault = 'rate_limit';
        throw throttled(429, admitted.retryAfter, 'rate limit');
      }
      let segments: string[];
      try {
        segments = path.split('/').slice(1).map(decodeURIComponent);
      } catch {
        throw badRequest(`The path "${path.slice(0, 200)}" holds an invalid percent-encoding`);
      }
      const route = matchRoute(method, segments, this.behaviour);
      if (route.write && grant.readOnly) throw new ServiceError(403, 'Access denied: this key is scoped to reads and cannot change resources');
      let parsed: ParsedBody | undefined;
      const ctx: RequestContext = {
        method,
        segments,
        query: new URLSearchParams(query),
        headers: req.headers,
        account,
        behaviour: this.behaviour,
        nowIso: isoTime(this.clock.now()),
        newId: () => createUuid(this.ids),
        newTraceId: () => createUuid(this.traces),
        body: () => {
          if (body.tooLarge) {
            throw new ServiceError(413, `Request size ${body.size} bytes exceeds the limit of ${bodyLimitFor(path)} bytes for this endpoint`);
          }
          parsed ??= parseBody(body.raw, req.headers['content-type']);
          return parsed;
        },
      };
      return route.handle(ctx, route.params);
    } catch (error) {
      if (isServiceError(error)) return errorResponse(error);
      throw error;
    }
  }

  private authenticate(header: string | undefined): KeyGrant {
    if (header === undefined || header === '') {
      throw new ServiceError(401, `Authorization failed: send the header \`Authorization: ${this.authScheme} <key>\``);
    }
    const match = /^(\S+) (\S+)$/.exec(header);
    const key = match !== null && match[1]?.toLowerCase() === this.authScheme.toLowerCase() ? match[2] : undefined;
    if (key === undefined) throw new ServiceError(401, `Authorization failed: expected \`Authorization: ${this.authScheme} <key>\``);
    if (this.grants === undefined) return { key, readOnly: false };
    const grant = this.grants.get(key);
    if (grant === undefined) throw new ServiceError(401, 'Authorization failed: the key is not valid');
    return grant;
  }

  private account(key: string): Account {
    let label = this.labels.get(key);
    if (label === undefined) {
      label = `acct-${this.labels.size + 1}`;
      this.labels.set(key, label);
    }
    let account = this.accounts.get(key);
    if (account === undefined) {
      const index = Number(label.slice(5));
      const tmRandom = createRandom(deriveSeed(this.seed, 1000 + index));
      account = createAccount(label, () => createUuid(tmRandom));
      this.accounts.set(key, account);
    }
    return account;
  }

  private async handleControl(req: IncomingMessage, res: ServerResponse, method: string, name: string): Promise<void> {
    let body: Body;
    try {
      body = await readBody(req, CONTROL_BODY_LIMIT);
    } catch {
      return;
    }
    try {
      if (name === 'requests' && method === 'GET') {
        send(res, { status: 200, json: { requests: this.log } });
      } else if (name === 'reset' && method === 'POST') {
        this.reset();
        send(res, { status: 204 });
      } else if (name === 'faults' && method === 'POST') {
        const value = this.controlJson(body);
        const spec = value['spec'];
        if (typeof spec !== 'string') throw badRequest(`Expected \`spec\` to be a string, got ${describeType(spec)}`);
        this.setFaults(spec);
        send(res, { status: 204 });
      } else if (name === 'inject' && method === 'POST') {
        const value = this.controlJson(body);
        const { kind, method: m, pathPrefix, retryAfter } = value;
        if (!FAULT_KINDS.has(kind)) throw badRequest('Expected `kind` to be one of "reset", "reset_after", 429, 456, 500, 503, 529');
        if (m !== undefined && typeof m !== 'string') throw badRequest('Expected `method` to be a string');
        if (pathPrefix !== undefined && typeof pathPrefix !== 'string') throw badRequest('Expected `pathPrefix` to be a string');
        if (retryAfter !== undefined && (typeof retryAfter !== 'number' || !Number.isInteger(retryAfter) || retryAfter < 0)) {
          throw badRequest('Expected `retryAfter` to be a non-negative integer');
        }
        this.injectOnce({
          kind: kind as InjectOnceFault['kind'],
          ...(m === undefined ? {} : { method: m }),
          ...(pathPrefix === undefined ? {} : { pathPrefix }),
          ...(retryAfter === undefined ? {} : { retryAfter }),
        });
        send(res, { status: 204 });
      } else {
        throw new ServiceError(404, `No control endpoint ${method} ${CONTROL_PREFIX}${name.slice(0, 80)}`);
      }
    } catch (error) {
      if (isServiceError(error)) send(res, errorResponse(error));
      else if (error instanceof InputError) send(res, { status: 400, json: { message: error.message } });
      else throw error;
    }
  }

  private controlJson(body: Body): Record<string, unknown> {
    if (body.tooLarge) throw new ServiceError(413, 'Control request too large');
    let value: unknown;
    try {
      value = JSON.parse(body.raw.toString('utf8'));
    } catch {
      throw badRequest('Expected a JSON object body');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('Expected a JSON object body');
    return value as Record<string, unknown>;
  }
}

function formatUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function startEmulatorServer(options: EmulatorOptions): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InputError('invalid_port', `expected the port to be an integer from 0 to 65535, got ${String(port)}`);
  }
  const emulator = new EmulatorServer(options);
  const server: Server = createServer(emulator.listener);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      const message =
        error.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use` : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' ? `cannot listen on host "${host}"` : `cannot listen on ${host}:${port}: ${error.message}`;
      reject(new InputError('listen_failed', message, { cause: error }));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: formatUrl(host, address.port),
    requests: () => emulator.requests(),
    reset: () => emulator.reset(),
    setFaults: (spec) => emulator.setFaults(spec),
    injectOnce: (fault) => emulator.injectOnce(fault),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
