import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { createClient, isServiceError, type ClientOptions, type ServiceClient } from '../../src/api/index.js';
import { DEFAULTS } from '../../src/lib/defaults.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';
import { captureLogger } from './emulator-harness.js';
import { until } from '../helpers/until.js';

const ORIGIN = 'https://api.example.test';

interface Setup {
  clock: VirtualClock;
  agent: MockAgent;
  pool: ReturnType<MockAgent['get']>;
  client: ServiceClient;
  lines: string[];
  /** Requests the mock answered or refused, by path. */
  sent: string[];
}

let current: Setup | undefined;
afterEach(async () => {
  await current?.client.close();
  await current?.agent.close();
  current = undefined;
});

function setup(options: Partial<ClientOptions> = {}): Setup {
  const clock = createVirtualClock();
  const agent = new MockAgent();
  agent.disableNetConnect();
  const lines: string[] = [];
  const sent: string[] = [];
  const client = createClient({
    baseUrl: ORIGIN,
    apiKey: 'mock-key',
    baseUrlEnv: 'MY_SERVICE_URL',
    dispatcher: agent,
    clock,
    logger: captureLogger(lines),
    requestsPerSecond: 100,
    concurrency: 2,
    random: () => 0.5,
    metrics: { onRequest: (method, route, status) => sent.push(`${method} ${route} ${status}`) },
    ...options,
  });
  current = { clock, agent, pool: agent.get(ORIGIN), client, lines, sent };
  return current;
}

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8788'), { code: 'ECONNREFUSED' });
const reset = (): Error => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });

/** The log lines at warn level (40) and above: what the CLI shows by default. */
function warnings(s: Setup): string[] {
  return s.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 40).map((l) => l.msg);
}

describe('a service nobody answers for (refused connection, unknown host)', () => {
  it('fails after a few quick attempts when the very first request is refused, and says so at warn level first', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).replyWithError(refused()).times(DEFAULTS.maxAttempts);
    const start = s.clock.now();
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('unreachable');
    expect(isServiceError(error) && error.attempts).toBe(DEFAULTS.firstContactAttempts);
    expect(s.sent).toHaveLength(DEFAULTS.firstContactAttempts);
    expect((error as Error).message).toBe(
      `GET /v3/glossaries: cannot reach ${ORIGIN} (ECONNREFUSED) after ${DEFAULTS.firstContactAttempts} attempts: check MY_SERVICE_URL and that the service is running`,
    );
    expect(warnings(s)).toEqual([`cannot reach ${ORIGIN} (ECONNREFUSED), retrying ${DEFAULTS.firstContactAttempts - 1} more times…`]);
    // The back-off of the quick attempts stays well inside the 5 s a mistyped port may cost.
    expect(s.clock.now() - start).toBeLessThan(5000);
  });

  it('keeps the full retry budget for a refused connection once the service has answered (a restart)', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, { glossaries: [] });
    await s.client.listGlossaries();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).replyWithError(refused()).times(DEFAULTS.maxAttempts - 1);
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, { glossaries: [] });
    await expect(s.client.listGlossaries()).resolves.toEqual([]);
    expect(s.sent).toHaveLength(1 + DEFAULTS.maxAttempts);
    expect(warnings(s)).toEqual([`cannot reach ${ORIGIN} (ECONNREFUSED), retrying ${DEFAULTS.maxAttempts - 1} more times…`]);
  });

  it('keeps the full retry budget for resets on the first request, and warns only once per client', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).replyWithError(reset()).times(DEFAULTS.maxAttempts);
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('network');
    expect(isServiceError(error) && error.attempts).toBe(DEFAULTS.maxAttempts);
    expect((error as Error).message).toBe(`GET /v3/glossaries: network failure (UND_ERR_SOCKET) after ${DEFAULTS.maxAttempts} attempts`);
    expect(warnings(s)).toEqual([`cannot reach ${ORIGIN} (UND_ERR_SOCKET), retrying ${DEFAULTS.maxAttempts - 1} more times…`]);
  });

  it('respects a TERMSYNC_MAX_ATTEMPTS below the quick budget', async () => {
    const s = setup({ retry: { maxAttempts: 1 } });
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).replyWithError(refused());
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceError(error) && error.attempts).toBe(1);
    expect(warnings(s)).toEqual([]); // no retry to announce
  });

  it('stops the operations still waiting to retry when the client is closed', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'GET' }).reply(503, { message: 'unavailable' }).persist();
    const pending = s.client.getGlossary('g1').catch((e: unknown) => e);
    await until('the first request', () => s.sent.length > 0, { everyMs: 0 });
    await s.client.close();
    const error = await pending;
    expect(isServiceError(error) && error.code).toBe('aborted');
    expect(s.sent).toEqual(['GET /v3/glossaries/{id} 503']);
  });
});
