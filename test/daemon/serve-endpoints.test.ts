import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonMetrics } from '../../src/daemon/daemon-metrics.js';
import { DaemonStatus } from '../../src/daemon/daemon-status.js';
import { serveEndpoints, type Endpoints } from '../../src/daemon/serve-endpoints.js';

let endpoints: Endpoints | undefined;
afterEach(async () => {
  await endpoints?.close();
  endpoints = undefined;
});

describe("the daemon's endpoints", () => {
  it('answer reads with GET and HEAD only, 404 for an unknown path, and serve a further route from the table', async () => {
    const status = new DaemonStatus(Date.UTC(2026, 0, 1));
    status.update({ lastError: { at: '2026-01-01T00:00:00.000Z', message: 'refused key SECRET-123' } });
    const asked: string[] = [];
    endpoints = await serveEndpoints({ host: '127.0.0.1', port: 0 }, status, createDaemonMetrics({ defaultMetrics: false }), { redact: (t) => t.replaceAll('SECRET-123', '[redacted]') }, [
      {
        path: '/reconcile',
        methods: ['POST'],
        handle: (req, res) => {
          asked.push(req.method ?? '');
          res.writeHead(202);
          res.end();
        },
      },
    ]);
    const call = (path: string, method = 'GET'): Promise<Response> => fetch(`${endpoints?.url ?? ''}${path}`, { method });

    expect((await call('/healthz')).status).toBe(200);
    expect((await call('/healthz', 'HEAD')).status).toBe(200);
    const readyz = await call('/readyz');
    expect(readyz.status).toBe(503);
    expect(await readyz.json()).toEqual({ ready: false, reason: 'the repository has not been read yet' });
    const text = await (await call('/status')).text();
    expect(text).toContain('refused key [redacted]');
    expect(text).not.toContain('SECRET-123');

    const post = await call('/status', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await call('/nope', 'DELETE')).status).toBe(405);
    const missing = await call('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not found', endpoints: ['/healthz', '/readyz', '/metrics', '/status', '/reconcile'] });

    expect((await call('/reconcile', 'POST')).status).toBe(202);
    const get = await call('/reconcile');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(asked).toEqual(['POST']);
  });
});
