import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endlessBody, lyingLength, startHttpServer, trickle, type HostileServer } from '../api/hostile-server.js';
import { createWorld, type World } from './harness.js';

/**
 * `plan` and `apply` through the CLI against servers that misbehave: each run ends with a located,
 * one-line message and the destination exit code (7), never a stack trace or a hang. Limits and
 * deadlines come from the environment, small here so that each case takes milliseconds.
 */

let world: World;
let server: HostileServer | undefined;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await world.close();
});

async function planAgainst(hostile: Promise<HostileServer>, env: Record<string, string> = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  server = await hostile;
  const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: server.url, TERMSYNC_MAX_ATTEMPTS: '1', ...env });
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr + run.stdout).not.toContain(world.key);
  return run;
}

describe('plan against a hostile or broken server', () => {
  it('an endless body: stops at TERMSYNC_MAX_RESPONSE_BYTES, exit 7', async () => {
    const run = await planAgainst(endlessBody(), { TERMSYNC_MAX_RESPONSE_BYTES: String(256 * 1024) });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/GET \/v3\/glossaries: the answer is over the limit of 256 KiB; stopped reading at byte \d+/);
  });

  it('a trickling body: ended by TERMSYNC_REQUEST_TIMEOUT_MS, exit 7', async () => {
    const run = await planAgainst(trickle(20), { TERMSYNC_REQUEST_TIMEOUT_MS: '150' });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('GET /v3/glossaries: network failure (request_deadline: no complete answer within 150 ms) after 1 attempts');
  });

  it('a trickling body with retries left: ended by TERMSYNC_OPERATION_DEADLINE_MS during the exchange, exit 7', async () => {
    const run = await planAgainst(trickle(20), { TERMSYNC_MAX_ATTEMPTS: '10', TERMSYNC_OPERATION_DEADLINE_MS: '200' });
    expect(run.code).toBe(7);
    // The listings run in parallel: whichever is reported, each was sent once, never retried.
    expect(run.stderr).toMatch(/GET \/v[23]\/\S+: no complete answer before the operation deadline \(200 ms\) passed/);
    expect(new Set(server?.requests).size).toBe(server?.requests.length);
  });

  it('a lying Content-Length, an HTML page, a junk encoding, a redirect: each named, exit 7', async () => {
    const cases: [Promise<HostileServer>, string][] = [
      [lyingLength(400, '{"glossaries": []}', 'close'), 'the connection closed before the answer was complete (received 18 of the 400 bytes its Content-Length declares)'],
      [lyingLength(3, '{"glossaries": []}', 'close'), 'unexpected response: the body is not JSON (3 bytes'],
      [
        startHttpServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html><body>Please sign in</body></html>');
        }),
        "unexpected response: an HTML page (40 bytes, Content-Type \"text/html\"), not the service's JSON",
      ],
      [
        startHttpServer((_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' });
          res.end('\u0001\u0002');
        }),
        'unexpected response: Content-Encoding "br" (termsync asks for none and decodes none)',
      ],
      [
        startHttpServer((_req, res) => {
          res.writeHead(301, { location: 'https://elsewhere.example/v3/glossaries' });
          res.end();
        }),
        'the service answered with a redirect (301) to https://elsewhere.example/v3/glossaries, which termsync does not follow',
      ],
    ];
    for (const [hostile, message] of cases) {
      const run = await planAgainst(hostile);
      expect(run.code, message).toBe(7);
      expect(run.stderr).toContain(message);
      await server?.close();
      server = undefined;
    }
  });

  it('invalid limits in the environment: exit 3 before any request, naming the variable', async () => {
    const run = await world.cli(['plan'], { TERMSYNC_REQUEST_TIMEOUT_MS: '0.5s' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('expected TERMSYNC_REQUEST_TIMEOUT_MS to be a whole number from 1 to 3600000, got "0.5s"');
    expect(world.mark()).toBe(0);
  });
});

describe('apply against a server that turns hostile after the reads', () => {
  it('a write answered with a redirect: nothing else is written, exit 7', async () => {
    // Reads go to the emulator; the first write is answered with a redirect.
    const emulatorUrl = world.emulator.url;
    server = await startHttpServer((req, res) => {
      if (req.method !== 'GET') {
        res.writeHead(308, { location: 'https://elsewhere.example/' });
        res.end();
        return;
      }
      void fetch(`${emulatorUrl}${req.url ?? '/'}`, { headers: { authorization: req.headers.authorization ?? '' } }).then(async (answer) => {
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(await answer.text());
      });
    });
    const run = await world.cli(['apply'], { TERMSYNC_BASE_URL: server.url, TERMSYNC_MAX_ATTEMPTS: '1' });
    expect(run.code).toBe(7);
    expect(run.stdout + run.stderr).toContain('the service answered with a redirect (308) to https://elsewhere.example/');
    expect(server.requests.filter((r) => !r.startsWith('GET'))).toHaveLength(1);
    expect(world.writesSince(0)).toEqual([]);
  });
});
