// Checks of the reliability suite whose fixes have not landed on main yet. Nothing imports this
// file, so none of it runs: each part moves into its check once the fix it needs is on main.
import { httpServer, json, rawServer, type Behaviour } from './hostile-servers.js';

/** Hostile-server behaviours awaiting the response size limit, the request deadline and clear messages. */
export const AWAITING_HOSTILE_BEHAVIOURS: readonly Behaviour[] = [
  {
    name: 'endless body (200, chunked, never ends), default size limit',
    start: () =>
      httpServer((_req, res, count) => {
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"glossaries": [');
        let open = true;
        res.on('close', () => (open = false));
        const pump = (): void => {
          while (open) {
            count(chunk.length);
            if (!res.write(chunk)) {
              res.once('drain', pump);
              return;
            }
          }
        };
        pump();
      }),
    deadlineMs: 60_000,
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
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '3000' },
    deadlineMs: 30_000,
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
    deadlineMs: 30_000,
    maxRssMiB: 250,
    says: /closed before the answer was complete|Content-Length/,
  },
  {
    name: 'lying Content-Length (declares 400 bytes, sends 18, holds the connection open)',
    start: () =>
      rawServer((socket) => {
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{"glossaries": []}');
      }),
    env: { TERMSYNC_REQUEST_TIMEOUT_MS: '3000' },
    deadlineMs: 30_000,
    maxRssMiB: 250,
    says: /request_deadline|no complete answer/,
  },
  {
    name: 'junk Content-Encoding (br on bytes that are not brotli)',
    start: () => httpServer((_req, res) => json(res, 200, '\u0001\u0002', { 'content-encoding': 'br' })),
    deadlineMs: 30_000,
    maxRssMiB: 250,
    says: /Content-Encoding/,
  },
  {
    name: 'gzip Content-Encoding the client never asked for',
    start: () => httpServer((_req, res) => json(res, 200, 'not gzip at all', { 'content-encoding': 'gzip' })),
    deadlineMs: 30_000,
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
    deadlineMs: 30_000,
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
    deadlineMs: 30_000,
    maxRssMiB: 250,
    says: /HTML/,
  },
];

