import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from '../e2e/harness.js';

/**
 * `plan` never exits 6 (that code says an apply was incomplete): a service it cannot read — a wrong
 * base path (404), 5xx after the retries, an answer it cannot use — is a destination error, exit 7.
 */
let world: World;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await world.close();
});

/** A server that answers every request 200 with a body that is not JSON. */
async function garbageServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>not the service</html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('plan when the service cannot be read', () => {
  it('a wrong base path (404): exit 7 with the failed request', async () => {
    const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: `${world.emulator.url}/wrong` });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/^Error: GET \/v\S+: not found \(404\)/m);
    expect(run.stderr).not.toContain('apply');
  });

  it('5xx after the retries: exit 7, with --detailed-exitcode and --out too', async () => {
    world.emulator.setFaults('503=1');
    for (const argv of [['plan'], ['plan', '--detailed-exitcode'], ['plan', '--out', 'p.json']]) {
      const run = await world.cli(argv, { TERMSYNC_MAX_ATTEMPTS: '2' });
      expect(run.code).toBe(7);
      expect(run.stderr).toMatch(/^Error: GET \/v\S+: HTTP 503 after 2 attempts/m);
    }
  });

  it('an answer that is not the service’s: exit 7 with the reason', async () => {
    const server = await garbageServer();
    try {
      const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: server.url });
      expect(run.code).toBe(7);
      expect(run.stderr).toMatch(/^Error: GET \/v\S+: unexpected response: an HTML page .*not the service's JSON/m);
    } finally {
      await server.close();
    }
  });
});
