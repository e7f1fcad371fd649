import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { repeatEvery, type TimerClock } from '../../lib/clock.js';
import type { DaemonStatus } from '../daemon-status.js';
import { isLoopback, type Route } from '../serve-endpoints.js';
import { DASHBOARD_CSS } from './dashboard-css.js';
import type { DashboardState } from './dashboard-state.js';
import { EVENTS_PATH, ICON_PATH, SCRIPT_PATH, STYLESHEET_PATH } from './render-layout.js';
import { renderCharts } from './render-charts-page.js';
import { renderDrift } from './render-drift.js';
import { renderOverview } from './render-overview.js';
import { renderResources } from './render-resources.js';
import { renderRun, renderRunGone, renderRuns } from './render-run.js';
import type { RunHistory } from './run-history.js';
import type { TrafficSeries } from './traffic-series.js';

/**
 * The dashboard's answers: no inline script or style, nothing from another origin, no framing, no
 * sniffing, nothing cached, no referrer. The pages need this origin's stylesheet and script and the
 * event stream; SVG charts are markup of the page.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

/** Event streams open at once (one per open page); more are refused until one closes. */
const MAX_EVENT_STREAMS = 64;
/** A comment on each event stream this often, so that proxies keep it open. */
const KEEPALIVE_MS = 25_000;
/** Bodies from this size are compressed for a client that accepts gzip. */
const COMPRESS_FROM = 1024;

export interface DashboardOptions {
  readonly status: DaemonStatus;
  readonly history: RunHistory;
  readonly traffic: TrafficSeries;
  readonly onDrift: DashboardState['onDrift'];
  readonly clock: TimerClock;
  /** Where the endpoints listen: on loopback, a page is served only to a request that names a loopback host (no DNS rebinding). */
  readonly listenHost: string;
  /**
   * The token of `--ui-token-file`, else that of `--reconcile-token-file` (read at each request, so a
   * rotated one needs no restart): every dashboard request must carry it (`Authorization: Bearer
   * TOKEN`, or Basic with it as the password).
   */
  readonly token?: () => string;
  /** The keys, taken out of every answer. */
  readonly redact: (text: string) => string;
  /** The script's file (default: dashboard-client.js as the build writes it). */
  readonly scriptFile?: URL;
}

/** The tab's icon: two arrows in sync. */
const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#24292f"/><path d="M4 6h7l-2-2M12 10H5l2 2" stroke="#fff" stroke-width="1.6" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** Where `npm run build` writes the page's script: next to the bundle's chunks, or seen from the sources. */
const SCRIPT_FILES = [new URL('./dashboard-client.js', import.meta.url), new URL('../../../dist/bundle/dashboard-client.js', import.meta.url)];

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether a request carries the token: `Bearer TOKEN`, or Basic with any user and the token as password (what a browser asks for). */
export function carriesToken(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const [scheme, value = ''] = header.trim().split(/\s+/, 2);
  let given: string | undefined;
  if (scheme?.toLowerCase() === 'bearer') given = value;
  else if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    given = colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/** Whether the Host a request names is this machine at the port it reached (a page of another site that rebinds its name to 127.0.0.1 names its own). */
export function namesLoopback(req: IncomingMessage): boolean {
  const host = req.headers.host ?? '';
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (match === null || !isLoopback(match[1] ?? '')) return false;
  const port = match[2] === undefined ? 80 : Number(match[2]);
  return port === req.socket.localPort;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string, headers: Readonly<Record<string, string | string[]>> = {}): void {
  let bytes: Buffer = Buffer.from(body, 'utf8');
  const out: Record<string, string | string[] | number> = { ...SECURITY_HEADERS, 'content-type': type, vary: 'Accept-Encoding, Authorization', ...headers };
  if (bytes.length >= COMPRESS_FROM && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    bytes = gzipSync(bytes);
    out['content-encoding'] = 'gzip';
  }
  out['content-length'] = bytes.length;
  res.writeHead(status, out);
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/**
 * The dashboard as routes of the daemon's endpoint table: read-only pages drawn from the daemon's
 * state on each request, their stylesheet and script, and `/events` (server-sent events: one
 * `change` each time the state changes, its data the state's version; the page's script then
 * fetches the page again). A page names the version it was drawn at (`/events?since=N`): its stream
 * starts with a `change` when the state changed since.
 */
export function dashboardRoutes(options: DashboardOptions): Route[] {
  const read = ['GET', 'HEAD'];
  const state = (): DashboardState => ({
    status: options.status,
    history: options.history,
    traffic: options.traffic,
    onDrift: options.onDrift,
    now: options.clock.now(),
  });
  const loopback = isLoopback(options.listenHost);
  let script: Promise<string | undefined> | undefined;
  const loadScript = (): Promise<string | undefined> =>
    (script ??= (async () => {
      for (const file of options.scriptFile === undefined ? SCRIPT_FILES : [options.scriptFile]) {
        try {
          return await readFile(file, 'utf8');
        } catch {
          // The next place the build may have written it.
        }
      }
      script = undefined;
      return undefined;
    })());
  let streams = 0;

  /** The checks of every dashboard request, then its answer. */
  const guarded =
    (answer: (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>) =>
    async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      if (loopback && !namesLoopback(req)) {
        send(req, res, 421, 'text/plain; charset=utf-8', `The dashboard answers only to a loopback host name (http://127.0.0.1:${req.socket.localPort ?? ''}/), not to "${(req.headers.host ?? '').slice(0, 100)}".\n`);
        return;
      }
      if (options.token !== undefined && !carriesToken(req.headers.authorization, options.token())) {
        send(req, res, 401, 'text/plain; charset=utf-8', 'The dashboard needs its token (that of --ui-token-file, else of --reconcile-token-file): Authorization: Bearer TOKEN (or any user name and the token as password).\n', {
          'www-authenticate': ['Basic realm="termsync dashboard", charset="UTF-8"', 'Bearer realm="termsync dashboard"'],
        });
        return;
      }
      await answer(req, res, new URL(req.url ?? '/', 'http://localhost'));
    };
  const page = (path: string, render: (url: URL) => { status?: number; text: string }): Route => ({
    path,
    methods: read,
    handle: guarded((req, res, url) => {
      const { status = 200, text } = render(url);
      send(req, res, status, 'text/html; charset=utf-8', options.redact(text));
    }),
  });

  return [
    page('/', () => ({ text: renderOverview(state()) })),
    page('/resources', (url) => ({ text: renderResources(state(), { filter: url.searchParams.get('q') ?? '', sort: url.searchParams.get('sort') ?? 'name' }) })),
    page('/runs', () => ({ text: renderRuns(state()) })),
    page('/run', (url) => {
      const id = url.searchParams.get('id') ?? '';
      const record = /^\d{1,12}$/.test(id) ? options.history.run(Number(id)) : undefined;
      return record === undefined ? { status: 404, text: renderRunGone(state(), id.slice(0, 20)) } : { text: renderRun(state(), record) };
    }),
    page('/drift', () => ({ text: renderDrift(state()) })),
    page('/charts', () => ({ text: renderCharts(state()) })),
    { path: ICON_PATH, methods: read, handle: guarded((req, res) => send(req, res, 200, 'image/svg+xml', ICON)) },
    { path: STYLESHEET_PATH, methods: read, handle: guarded((req, res) => send(req, res, 200, 'text/css; charset=utf-8', DASHBOARD_CSS)) },
    {
      path: SCRIPT_PATH,
      methods: read,
      handle: guarded(async (req, res) => {
        const text = await loadScript();
        if (text === undefined) send(req, res, 404, 'text/plain; charset=utf-8', "The dashboard's script is not built: run `npm run build`. The pages work without it, but do not update live.\n");
        else send(req, res, 200, 'text/javascript; charset=utf-8', text);
      }),
    },
    {
      path: EVENTS_PATH,
      methods: ['GET'],
      handle: guarded((req, res, url) => {
        if (streams >= MAX_EVENT_STREAMS) {
          send(req, res, 503, 'text/plain; charset=utf-8', `More than ${MAX_EVENT_STREAMS} pages follow the daemon already.\n`, { 'retry-after': '30' });
          return;
        }
        streams++;
        res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'x-accel-buffering': 'no' });
        res.write('retry: 3000\n\n');
        const tell = (): void => void (res.destroyed || res.write(`event: change\ndata: ${options.status.version}\n\n`));
        let queued = false;
        // A burst of changes (a run records its result, then its verify, then ends) is one event.
        const unsubscribe = options.status.subscribe(() => {
          if (queued) return;
          queued = true;
          setImmediate(() => {
            queued = false;
            tell();
          });
        });
        // The page was drawn at change `since` of the state, and its script opened this stream
        // after: what changed meanwhile (the end of a run, with nothing after it) is told at once.
        const since = url.searchParams.get('since');
        if (since !== null && since !== String(options.status.version)) tell();
        const keepalive = repeatEvery(options.clock, KEEPALIVE_MS, () => void (res.destroyed || res.write(': keep-alive\n\n')), { unref: true });
        res.on('close', () => {
          streams--;
          unsubscribe();
          keepalive.cancel();
        });
      }),
    },
  ];
}
