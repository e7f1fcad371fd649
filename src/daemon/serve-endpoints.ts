import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../lib/errors.js';
import type { KeyRedactor } from '../lib/redact-keys.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { DaemonStatus } from './daemon-status.js';

export interface Endpoints {
  /** e.g. `http://127.0.0.1:9464` */
  readonly url: string;
  close(): Promise<void>;
}

/** `HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1: the endpoints are for this machine unless asked). */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]*):)?(\d{1,5})$/.exec(text.trim());
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !Number.isInteger(port) || port > 65_535) {
    throw new InputError('invalid_listen', `expected --listen to be HOST:PORT, :PORT or PORT (e.g. 127.0.0.1:9464, 0.0.0.0:9464 in a container), got "${text}"`);
  }
  const host = (match[1] ?? '').replace(/^\[|\]$/g, '');
  return { host: host === '' ? '127.0.0.1' : host, port };
}

/**
 * Whether `host` (as --listen names it) is reachable only from this machine: `localhost`, the
 * loopback range 127.0.0.0/8, `::1` (and its IPv4-mapped form).
 */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127(\.\d{1,3}){3}$/.test(h);
}

/** What an endpoint serves, with the keys taken out (names, ids and errors on /status can hold one). */
type Redact = (text: string) => string;

function json(res: ServerResponse, status: number, body: unknown, redact: Redact = (t) => t): void {
  const text = redact(`${JSON.stringify(body, null, 2)}\n`);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

/** One endpoint: a path and the methods it answers (HEAD where GET). A webhook, a dashboard or an event stream is one more. */
export interface Route {
  readonly path: string;
  readonly methods: readonly string[];
  handle(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

/**
 * `/healthz` (the process answers), `/readyz` (repository valid and the last reconcile succeeded or
 * one is running), `/metrics` (Prometheus text), `/status` (JSON): reads of the daemon's state.
 */
export function statusRoutes(status: DaemonStatus, metrics: DaemonMetrics, redact: Redact): Route[] {
  const read = ['GET', 'HEAD'];
  return [
    { path: '/healthz', methods: read, handle: (_req, res) => json(res, 200, { status: 'ok' }) },
    {
      path: '/readyz',
      methods: read,
      handle: (_req, res) => {
        const ready = status.readiness();
        metrics.setReady(ready.ready);
        json(res, ready.ready ? 200 : 503, ready, redact);
      },
    },
    {
      path: '/metrics',
      methods: read,
      handle: async (_req, res) => {
        metrics.setReady(status.readiness().ready);
        const text = redact(await metrics.registry.metrics());
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
    },
    { path: '/status', methods: read, handle: (_req, res) => json(res, 200, status, redact) },
  ];
}

/** The endpoints of `statusRoutes`, and `routes` after them. */
export async function serveEndpoints(
  listen: { host: string; port: number },
  status: DaemonStatus,
  metrics: DaemonMetrics,
  keys?: Pick<KeyRedactor, 'redact'>,
  routes: readonly Route[] = [],
): Promise<Endpoints> {
  const redact: Redact = (text) => keys?.redact(text) ?? text;
  const table = [...statusRoutes(status, metrics, redact), ...routes];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const route = table.find((r) => r.path === new URL(req.url ?? '/', 'http://localhost').pathname);
    const allowed = route?.methods ?? ['GET', 'HEAD'];
    if (!allowed.includes(method)) {
      res.writeHead(405, { allow: allowed.join(', ') });
      res.end();
      return;
    }
    if (route === undefined) {
      json(res, 404, { error: 'not found', endpoints: table.map((r) => r.path) });
      return;
    }
    await route.handle(req, res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: error instanceof Error ? error.message : String(error) }, redact);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EACCES' ? 'permission denied' : (error.code ?? error.message);
      reject(new InputError('listen_failed', `cannot serve the daemon's endpoints on ${listen.host}:${listen.port}: ${why} (choose another with --listen)`));
    });
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
