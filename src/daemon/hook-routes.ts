import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';
import { InputError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { readSecretFile } from '../lib/read-secret-file.js';
import type { DaemonMetrics, HookResult } from './daemon-metrics.js';
import type { Route } from './serve-endpoints.js';

/**
 * The largest body a hook reads. GitHub caps its payloads at 25 MB, but a push event names at most
 * 20 commits: a few hundred kB even for commits of thousands of files. Larger bodies get 413.
 */
export const MAX_HOOK_BODY_BYTES = 4 * 1024 * 1024;

/** How long a delivery id is remembered (a second delivery of it within this time gets 409), and how many at most. */
export const DELIVERY_MEMORY_MS = 24 * 60 * 60 * 1000;
export const DELIVERY_MEMORY_COUNT = 10_000;

/** A secret file holds one secret and a line break; anything larger is not a secret file. */
const MAX_SECRET_FILE_BYTES = 4096;

/**
 * A reader of the secret in `file` (the webhook secret, the reconcile token), with the API key
 * file's rules (lib/read-secret-file.ts), read again at each request so that a rotated secret
 * needs no restart. The message of an error names the option and the file, never the text.
 */
export function secretFile(file: string, option: string): () => string {
  return () => {
    const text = readSecretFile(file, MAX_SECRET_FILE_BYTES, 'secret', (why) => new InputError('secret_file_unreadable', `cannot read the file of ${option} (${file}): ${why}`)).trim();
    if (text === '') throw new InputError('secret_file_empty', `the file of ${option} (${file}) is empty: write the secret into it`);
    return text;
  };
}

export interface HookOptions {
  /** The shared secret of `/hooks/github` (HMAC key) and `/hooks/gitlab` (token); undefined: both are off. */
  readonly webhookSecret?: () => string;
  /** The bearer token of `POST /reconcile`; undefined: it is off. */
  readonly reconcileToken?: () => string;
  /** The ref pushes must name to start a run (`refs/heads/main`). */
  readonly branchRef: string;
  /** Asks for the run of a push to the watched branch. */
  readonly pushed: () => void;
  /** Asks for the run of `POST /reconcile`. */
  readonly requested: () => void;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: DaemonMetrics;
}

/** `refs/heads/NAME` of a branch name; a full ref is kept. */
export function branchRef(name: string): string {
  return name.startsWith('refs/') ? name : `refs/heads/${name}`;
}

type Answer = { readonly status: number; readonly result: HookResult; readonly body?: unknown; readonly headers?: Readonly<Record<string, string>> };

function send(res: ServerResponse, answer: Answer): void {
  const headers = { 'cache-control': 'no-store', ...answer.headers };
  if (answer.body === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  res.writeHead(answer.status, { ...headers, 'content-type': 'application/json; charset=utf-8' });
  res.end(`${JSON.stringify(answer.body)}\n`);
}

const tooLarge: Answer = { status: 413, result: 'too_large', body: { error: `the body is larger than ${MAX_HOOK_BODY_BYTES} bytes` }, headers: { connection: 'close' } };
const unauthorized = (why: string, headers?: Record<string, string>): Answer => ({ status: 401, result: 'unauthorized', body: { error: why }, ...(headers === undefined ? {} : { headers }) });
const badRequest = (why: string): Answer => ({ status: 400, result: 'bad_request', body: { error: why } });

/** The body, or undefined when it is larger than MAX_HOOK_BODY_BYTES (by its Content-Length, or once that many bytes came). */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_HOOK_BODY_BYTES) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_HOOK_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Equal texts, in a time that depends on neither (both hashed to the same length first). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** GitHub's `X-Hub-Signature-256`: `sha256=` and the HMAC-SHA256 of the body, in hex. */
function signedByGitHub(body: Buffer, header: string | undefined, secret: string): boolean {
  if (header === undefined) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const given = Buffer.from(header, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, Buffer.from(expected, 'utf8'));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The `ref` of a push event's JSON; undefined when the body is not such. GitHub may send it
 * form-encoded, as `payload=` (pass its Content-Type); GitLab always sends JSON (pass undefined).
 */
function refOf(body: Buffer, contentType: string | undefined): string | undefined {
  let text = body.toString('utf8');
  if (contentType?.startsWith('application/x-www-form-urlencoded') === true) text = new URLSearchParams(text).get('payload') ?? '';
  try {
    const event = JSON.parse(text) as { ref?: unknown };
    return typeof event.ref === 'string' ? event.ref : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The routes that start a run from outside: `POST /hooks/github` and `POST /hooks/gitlab` (a push
 * to the watched branch), `POST /reconcile` (a script). Each is in the table only when its secret
 * is configured. Checked in this order, and nothing changes before the last: the body's size (413),
 * the signature or token (401), the delivery id (400 without one, 409 when it was seen within
 * DELIVERY_MEMORY_MS), then the event: a push to the watched branch queues a run (202), anything
 * else is answered and ignored (200).
 */
export function hookRoutes(options: HookOptions): Route[] {
  const { logger: log, metrics } = options;
  const seen = new LRUCache<string, true>({ max: DELIVERY_MEMORY_COUNT, ttl: DELIVERY_MEMORY_MS, perf: { now: () => options.clock.now() } });

  /** A route whose handler gives an answer; a secret that cannot be read is a 500 (and logged), never a pass. */
  const route = (path: string, answer: (req: IncomingMessage) => Promise<Answer>): Route => ({
    path,
    methods: ['POST'],
    handle: async (req, res) => {
      let reply: Answer;
      try {
        reply = await answer(req);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        log.error({ err: error.message, endpoint: path }, 'the secret of an endpoint cannot be read: every request is refused until it can');
        reply = { status: 500, result: 'unavailable', body: { error: 'the secret cannot be read: see the daemon log' } };
      }
      metrics.recordHook(path, reply.result);
      send(res, reply);
    },
  });

  /** A delivery seen before is refused; an unseen one is remembered. */
  const replayed = (provider: string, id: string | undefined, headerName: string): Answer | undefined => {
    if (id === undefined || id.trim() === '') return badRequest(`missing ${headerName}`);
    const key = `${provider}:${id}`;
    if (seen.has(key)) return { status: 409, result: 'replayed', body: { error: `delivery ${id} was received before` } };
    seen.set(key, true);
    return undefined;
  };

  /** A push: a run when it names the watched branch. */
  const push = (provider: string, ref: string | undefined, delivery: string): Answer => {
    if (ref === undefined) return badRequest('the push event has no `ref`');
    if (ref !== options.branchRef) {
      log.debug({ provider, ref, delivery }, 'push webhook ignored: another branch');
      return { status: 200, result: 'ignored', body: { reconcile: false, reason: `a push to ${ref}; the daemon follows ${options.branchRef}` } };
    }
    options.pushed();
    log.info({ provider, ref, delivery }, 'push webhook: reconciling now');
    return { status: 202, result: 'queued', body: { reconcile: 'queued' } };
  };

  const routes: Route[] = [];
  const { webhookSecret, reconcileToken } = options;
  if (webhookSecret !== undefined) {
    routes.push(
      route('/hooks/github', async (req) => {
        const body = await readBody(req);
        if (body === undefined) return tooLarge;
        if (!signedByGitHub(body, header(req, 'x-hub-signature-256'), webhookSecret())) {
          log.warn({ endpoint: '/hooks/github', from: req.socket.remoteAddress }, 'webhook refused: X-Hub-Signature-256 missing or wrong');
          return unauthorized('X-Hub-Signature-256 is missing or does not match the body and the secret');
        }
        const delivery = header(req, 'x-github-delivery');
        const again = replayed('github', delivery, 'X-GitHub-Delivery');
        if (again !== undefined) return again;
        const event = header(req, 'x-github-event');
        if (event === 'ping') return { status: 200, result: 'pong', body: { pong: true, follows: options.branchRef } };
        if (event !== 'push') return { status: 200, result: 'ignored', body: { reconcile: false, reason: `a ${event ?? 'nameless'} event; only push events start a run` } };
        return push('github', refOf(body, header(req, 'content-type')), delivery ?? '');
      }),
      route('/hooks/gitlab', async (req) => {
        const body = await readBody(req);
        if (body === undefined) return tooLarge;
        const token = header(req, 'x-gitlab-token');
        if (token === undefined || !sameSecret(token, webhookSecret())) {
          log.warn({ endpoint: '/hooks/gitlab', from: req.socket.remoteAddress }, 'webhook refused: X-Gitlab-Token missing or wrong');
          return unauthorized('X-Gitlab-Token is missing or wrong');
        }
        const delivery = header(req, 'x-gitlab-event-uuid');
        const again = replayed('gitlab', delivery, 'X-Gitlab-Event-UUID');
        if (again !== undefined) return again;
        const event = header(req, 'x-gitlab-event');
        if (event !== 'Push Hook') return { status: 200, result: 'ignored', body: { reconcile: false, reason: `a ${event ?? 'nameless'} event; only Push Hook starts a run` } };
        return push('gitlab', refOf(body, undefined), delivery ?? '');
      }),
    );
  }
  if (reconcileToken !== undefined) {
    routes.push(
      route('/reconcile', async (req) => {
        const body = await readBody(req);
        if (body === undefined) return tooLarge;
        const given = /^Bearer +(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
        if (given === undefined || !sameSecret(given, reconcileToken())) {
          log.warn({ endpoint: '/reconcile', from: req.socket.remoteAddress }, 'reconcile request refused: bearer token missing or wrong');
          return unauthorized('Authorization: Bearer <token> is missing or wrong', { 'www-authenticate': 'Bearer realm="termsync"' });
        }
        options.requested();
        log.info('POST /reconcile: reconciling now');
        return { status: 202, result: 'queued', body: { reconcile: 'queued' } };
      }),
    );
  }
  return routes;
}
