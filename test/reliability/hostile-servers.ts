// Servers that misbehave as a broken proxy or a malicious endpoint would, one way each. termsync
// runs against them as a process; the check measures how long it took and its peak memory.
import type { ServerResponse } from 'node:http';
import { endlessBody, startHttpServer as httpServer, startRawServer as rawServer, type HostileServer } from '../api/hostile-server.js';

/** One server of the client's hostile-server tests (the same helpers: listen on loopback, port 0). */
export type Hostile = HostileServer;

export interface Behaviour {
  readonly name: string;
  start(): Promise<Hostile>;
  /** Added to the run's environment (limits made small where the default would take minutes). */
  readonly env?: Record<string, string>;
  /**
   * The run must end within this: its limits (the request and operation deadlines, the attempts)
   * plus Node's start-up, generous for a shared machine; a hang is what it catches.
   */
  readonly deadlineMs: number;
  /** Peak resident memory allowed, MiB. */
  readonly maxRssMiB: number;
  /** The message must contain this. */
  readonly says: RegExp;
}

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

export const BEHAVIOURS: readonly Behaviour[] = [
  {
    name: 'endless body (200, chunked, never ends), default size limit',
    start: () => endlessBody(),
    deadlineMs: 90_000,
    maxRssMiB: 400,
    says: /over the limit/,
  },
  {
    name: 'trickle (one byte a second, never idle long enough for an idle timeout)',
    start: () =>
      httpServer((_req, res, count) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => {
          count(1);
          res.write(' ');
        }, 1000);
        res.on('close', () => clearInterval(timer));
      }),
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '3000', TERMSYNC_OPERATION_DEADLINE_MS: '10000' },
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /request_deadline|no complete answer/,
  },
  {
    name: 'lying Content-Length (declares 400 bytes, sends 18, closes)',
    start: () =>
      rawServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"glossaries": []}');
        socket.end();
      }),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /closed before the answer was complete|Content-Length/,
  },
  {
    name: 'lying Content-Length (declares 400 bytes, sends 18, holds the connection open)',
    start: () =>
      rawServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"glossaries": []}');
      }),
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '3000', TERMSYNC_OPERATION_DEADLINE_MS: '10000' },
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /request_deadline|no complete answer/,
  },
  {
    name: 'junk Content-Encoding (br on bytes that are not brotli)',
    start: () => httpServer((_req, res) => json(res, 200, '\u0001\u0002', { 'content-encoding': 'br' })),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /Content-Encoding/,
  },
  {
    name: 'gzip Content-Encoding the client never asked for',
    start: () => httpServer((_req, res) => json(res, 200, 'not gzip at all', { 'content-encoding': 'gzip' })),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /Content-Encoding/,
  },
  {
    name: 'redirect (301 to another host)',
    start: () =>
      httpServer((_req, res) => {
        res.writeHead(301, { location: 'https://elsewhere.example/v3/glossaries' });
        res.end();
      }),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /redirect \(301\) to https:\/\/elsewhere\.example/,
  },
  {
    name: 'HTML page with 200 (a captive portal)',
    start: () =>
      httpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>Please sign in</body></html>');
      }),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /HTML/,
  },
  {
    name: 'HTML error page (502 from a proxy)',
    start: () =>
      httpServer((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
      }),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /502/,
  },
  {
    name: 'malformed JSON (200)',
    start: () => httpServer((_req, res) => json(res, 200, '{"glossaries": [{"glossary_id": "a", ')),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /JSON/,
  },
  {
    name: 'JSON of the wrong shape (200)',
    start: () => httpServer((_req, res) => json(res, 200, '{"glossaries": 5, "style_rules": "none"}')),
    deadlineMs: 60_000,
    maxRssMiB: 250,
    says: /unexpected|expected/i,
  },
];

/** A dictionary a hostile service holds: its languages and its entries as TSV text (sent as they are). */
export interface HostileDictionary {
  readonly source: string;
  readonly target: string;
  readonly entries: string;
}

export interface HostileGlossary {
  readonly id: string;
  readonly name: string;
  readonly dictionaries: readonly HostileDictionary[];
}

export interface HostileStyleList {
  readonly id: string;
  readonly name: string;
  readonly language: string;
  readonly instructions?: readonly { id: string; label: string; prompt: string }[];
}

/**
 * A service that speaks the API's shapes (the listings, the entries of one dictionary, style rule
 * lists) but fills them with what a compromised server or a proxy someone controls could send:
 * path-shaped or NUL-holding language codes, names with line breaks, entries no file can hold. The
 * emulator stays a faithful implementation of the spec; this is the other side. Writes are
 * answered 500 and recorded (`requests`): a check can tell that none was sent.
 */
export function hostileService(content: { glossaries?: readonly HostileGlossary[]; styleLists?: readonly HostileStyleList[]; errorMessage?: string }): Promise<Hostile> {
  const glossaries = content.glossaries ?? [];
  return httpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://service');
    if (req.method !== 'GET') {
      json(res, 500, JSON.stringify({ message: content.errorMessage ?? 'this service takes no writes' }));
      return;
    }
    if (url.pathname === '/v3/glossaries') {
      const listed = glossaries.map((g) => ({
        glossary_id: g.id,
        name: g.name,
        ready: true,
        creation_time: '2026-01-01T00:00:00Z',
        dictionaries: g.dictionaries.map((d) => ({ source_lang: d.source, target_lang: d.target, entry_count: d.entries.split('\n').filter((l) => l !== '').length })),
      }));
      json(res, 200, JSON.stringify({ glossaries: listed }));
      return;
    }
    if (url.pathname === '/v2/glossaries') {
      json(res, 200, JSON.stringify({ glossaries: [] }));
      return;
    }
    if (url.pathname === '/v3/style_rules') {
      const page = Number(url.searchParams.get('page') ?? '0');
      const lists = (page === 0 ? content.styleLists ?? [] : []).map((s) => ({
        style_id: s.id,
        name: s.name,
        language: s.language,
        version: 1,
        creation_time: '2026-01-01T00:00:00Z',
        updated_time: '2026-01-01T00:00:00Z',
        configured_rules: {},
        custom_instructions: s.instructions ?? [],
      }));
      json(res, 200, JSON.stringify({ style_rules: lists }));
      return;
    }
    const entries = /^\/v3\/glossaries\/([^/]+)\/entries$/.exec(url.pathname);
    if (entries !== null) {
      const glossary = glossaries.find((g) => g.id === decodeURIComponent(entries[1] ?? ''));
      const source = url.searchParams.get('source_lang') ?? '';
      const target = url.searchParams.get('target_lang') ?? '';
      const same = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();
      const found = glossary?.dictionaries.find((d) => same(d.source, source) && same(d.target, target));
      if (found === undefined) {
        json(res, 404, JSON.stringify({ message: 'no such dictionary' }));
        return;
      }
      json(res, 200, JSON.stringify({ dictionaries: [{ source_lang: found.source, target_lang: found.target, entries: found.entries, entries_format: 'tsv' }] }));
      return;
    }
    json(res, 404, JSON.stringify({ message: 'not found' }));
  });
}
