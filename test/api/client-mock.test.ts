import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent, type Dispatcher } from 'undici';
import { createClient, isServiceError, type ClientOptions, type ServiceClient } from '../../src/api/index.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';
import { captureLogger } from './emulator-harness.js';

const ORIGIN = 'https://api.example.test';

interface Setup {
  clock: VirtualClock;
  agent: MockAgent;
  pool: ReturnType<MockAgent['get']>;
  client: ServiceClient;
  /** Virtual time of each request the mock answered, by path. */
  seen: { path: string; at: number }[];
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
  const pool = agent.get(ORIGIN);
  const client = createClient({
    baseUrl: ORIGIN,
    apiKey: 'mock-key',
    dispatcher: agent,
    clock,
    requestsPerSecond: 100,
    concurrency: 2,
    random: () => 0.5,
    ...options,
  });
  current = { clock, agent, pool, client, seen: [] };
  return current;
}

/** A reply body that records when it was asked for. */
function recorded<T extends object>(s: Setup, path: string, body: T): () => T {
  return () => {
    s.seen.push({ path, at: s.clock.now() });
    return body;
  };
}

const glossary = { glossary_id: 'g1', name: 'Terms', dictionaries: [{ source_lang: 'EN', target_lang: 'DE', entry_count: 2 }], creation_time: '2026-01-01T00:00:00.000Z' };
const styleRules = (i: number): object => ({
  style_id: `s${i}`,
  name: `list ${i}`,
  language: 'de',
  version: 1,
  configured_rules: {},
  custom_instructions: [],
  creation_time: '2026-01-01T00:00:00.000Z',
  updated_time: '2026-01-01T00:00:00.000Z',
  extra_field_from_a_newer_service: true,
});

describe('client over a mocked dispatcher', () => {
  it('honours Retry-After given as an HTTP date, for the whole queue', async () => {
    const s = setup();
    const start = s.clock.now();
    const until = new Date(start + 5000).toUTCString();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, recorded(s, 'list', { message: 'slow down' }), { headers: { 'retry-after': until } });
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, recorded(s, 'list', { glossaries: [glossary] }));
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'GET' }).reply(200, recorded(s, 'get', glossary));
    const list = s.client.listGlossaries();
    await new Promise((r) => setImmediate(r));
    const other = s.client.getGlossary('g1'); // queued behind the throttle gate
    const [l, g] = await Promise.all([list, other]);
    expect(l[0]?.dictionaries[0]).toEqual({ sourceLang: 'en', targetLang: 'de', entryCount: 2 });
    expect(g.id).toBe('g1');
    expect(s.seen[0]).toEqual({ path: 'list', at: start });
    for (const later of s.seen.slice(1)) expect(later.at).toBeGreaterThanOrEqual(start + 5000);
  });

  it('says once per pause why it is slow: info from 1 s, warn from 5 s, nothing for short pauses', async () => {
    const lines: string[] = [];
    const s = setup({ logger: captureLogger(lines) });
    const throttle = (seconds: number): void => {
      s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, { message: 'slow down' }, { headers: { 'retry-after': String(seconds) } });
    };
    const ok = (): void => {
      s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, { glossaries: [] });
    };
    throttle(2);
    ok();
    throttle(1);
    ok();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(529, { message: 'overloaded' }, { headers: { 'retry-after': '6' } });
    ok();
    await s.client.listGlossaries();
    await s.client.listGlossaries();
    await s.client.listGlossaries();
    const pauses = lines
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level >= 30)
      .map((l) => `${l.level} ${l.msg}`);
    expect(pauses).toEqual([
      '30 service throttled (429): pausing all requests for 2.0 s',
      '40 service throttled (529): pausing all requests for 6.0 s',
    ]);
  });

  it('backs off with full jitter when a 429 has no Retry-After', async () => {
    const s = setup({ random: () => 0.5 });
    const start = s.clock.now();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, recorded(s, 'a', {})).times(3);
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, recorded(s, 'b', { glossaries: [] }));
    await s.client.listGlossaries();
    // 0.5 × 500, 0.5 × 1000, 0.5 × 2000 ms: exponential, jittered, plus pacing at 100/s.
    const gaps = s.seen.slice(1).map((x, i) => x.at - (s.seen[i]?.at ?? 0));
    expect(gaps).toEqual([250, 500, 1000]);
    expect(s.clock.now() - start).toBe(1750);
  });

  it('keeps the service error body, the trace id and the method and path; a 400 is final', async () => {
    const s = setup();
    s.pool
      .intercept({ path: '/v3/glossaries', method: 'POST' })
      .reply(400, { message: 'Invalid glossary entries provided', detail: 'duplicate key at index 3', code: 'bad_entries' }, { headers: { 'x-trace-id': 'trace-123' } });
    const listed = { glossaries: [] };
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, listed);
    const error = await s.client.createGlossary('x', [{ sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] }]).catch((e: unknown) => e);
    expect(isServiceError(error)).toBe(true);
    if (!isServiceError(error)) return;
    expect(error.code).toBe('http_400');
    expect(error.status).toBe(400);
    expect(error.traceId).toBe('trace-123');
    expect(error.serviceMessage).toBe('Invalid glossary entries provided');
    expect(error.detail).toBe('duplicate key at index 3');
    expect(error.serviceCode).toBe('bad_entries');
    expect(error.message).toBe(
      'POST /v3/glossaries: bad request (400) — Invalid glossary entries provided (duplicate key at index 3) [bad_entries] (trace id trace-123)',
    );
    expect(error.attempts).toBe(1);
  });

  it('reports a create answered 5xx until retries ran out with the last answer, not as a network failure', async () => {
    const s = setup({ retry: { maxAttempts: 3 } });
    s.pool.intercept({ path: '/v2/glossaries', method: 'GET' }).reply(200, { glossaries: [] }).times(4);
    s.pool.intercept({ path: '/v2/glossaries', method: 'POST' }).reply(503, { message: 'busy' }).times(2);
    s.pool
      .intercept({ path: '/v2/glossaries', method: 'POST' })
      .reply(500, { message: 'Internal error', code: 'internal' }, { headers: { 'x-trace-id': 'trace-500' } });
    const error = await s.client.createGlossaryV2('x', { sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] }).catch((e: unknown) => e);
    expect(isServiceError(error)).toBe(true);
    if (!isServiceError(error)) return;
    expect(error.code).toBe('http_500');
    expect(exitCodeOfError(error)).toBe(ExitCode.applyIncomplete);
    expect(error.status).toBe(500);
    expect(error.serviceMessage).toBe('Internal error');
    expect(error.serviceCode).toBe('internal');
    expect(error.traceId).toBe('trace-500');
    expect(error.attempts).toBe(3);
    expect(error.message).toBe('POST /v2/glossaries: HTTP 500 after 3 attempts; the create did not land — Internal error [internal] (trace id trace-500)');
  });

  it('keeps `network` for a create whose last attempt failed on the connection', async () => {
    const s = setup({ retry: { maxAttempts: 2 } });
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    s.pool.intercept({ path: '/v2/glossaries', method: 'GET' }).reply(200, { glossaries: [] }).times(3);
    s.pool.intercept({ path: '/v2/glossaries', method: 'POST' }).reply(500, { message: 'Internal error' });
    s.pool.intercept({ path: '/v2/glossaries', method: 'POST' }).replyWithError(reset);
    const error = await s.client.createGlossaryV2('x', { sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] }).catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('network');
    expect(isServiceError(error) && error.status).toBeUndefined();
  });

  it('names the endpoint and the field when a response does not have the expected shape', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'GET' }).reply(200, { ...glossary, name: 42 });
    const error = await s.client.getGlossary('g1').catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('invalid_response');
    expect((error as Error).message).toMatch(/^GET \/v3\/glossaries\/g1: unexpected response: `name`: .*string/);
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, 'not json');
    const notJson = await s.client.listGlossaries().catch((e: unknown) => e);
    expect((notJson as Error).message).toBe('GET /v3/glossaries: unexpected response: the body is not JSON (8 bytes)');
  });

  it('retries 503 on a GET up to maxAttempts, then fails with the attempt count', async () => {
    const requests: string[] = [];
    const retries: string[] = [];
    const s = setup({
      retry: { maxAttempts: 3 },
      metrics: {
        onRequest: (method, route, status) => requests.push(`${method} ${route} ${status}`),
        onRetry: (method, route, reason, attempt) => retries.push(`${method} ${route} ${reason} ${attempt}`),
      },
    });
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(503, { message: 'unavailable' }).times(3);
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(requests).toEqual(Array.from({ length: 3 }, () => 'GET /v3/glossaries 503'));
    expect(retries).toEqual(['GET /v3/glossaries http_503 1', 'GET /v3/glossaries http_503 2']);
    expect(isServiceError(error) && error.code).toBe('http_503');
    expect(isServiceError(error) && error.attempts).toBe(3);
    expect(exitCodeOfError(error)).toBe(ExitCode.applyIncomplete);
  });

  it('retries network errors on idempotent calls and treats a 404 after a lost DELETE answer as done', async () => {
    const s = setup();
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'DELETE' }).replyWithError(reset);
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'DELETE' }).reply(404, { message: 'not found' });
    await expect(s.client.deleteGlossary('g1')).resolves.toBeUndefined();
    // A plain 404 (nothing lost before) stays an error.
    s.pool.intercept({ path: '/v3/glossaries/g2', method: 'DELETE' }).reply(404, { message: 'Glossary not found' });
    const error = await s.client.deleteGlossary('g2').catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('http_404');
  });

  it('gives up when Retry-After lies beyond the operation deadline', async () => {
    const s = setup({ retry: { deadlineMs: 60_000 } });
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, {}, { headers: { 'retry-after': '3600' } });
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('throttled');
    expect(s.clock.now()).toBeLessThan(Date.UTC(2026, 0, 1) + 60_000); // it did not sit out the hour
  });

  it('stops waiting when the abort signal fires', async () => {
    const controller = new AbortController();
    const s = setup({ signal: controller.signal });
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, {}, { headers: { 'retry-after': '30' } });
    const pending = s.client.listGlossaries().catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    controller.abort();
    const error = await pending;
    expect(isServiceError(error) && error.code).toBe('aborted');
  });

  it('reads every page of style rules (detailed, 25 per page) and tolerates unknown fields', async () => {
    const s = setup();
    const page = (n: number): string => `/v3/style_rules?detailed=true&page=${n}&page_size=25`;
    s.pool.intercept({ path: page(0), method: 'GET' }).reply(200, { style_rules: Array.from({ length: 25 }, (_, i) => styleRules(i)) });
    s.pool.intercept({ path: page(1), method: 'GET' }).reply(200, { style_rules: Array.from({ length: 3 }, (_, i) => styleRules(25 + i)) });
    const all = await s.client.listStyleRules();
    expect(all).toHaveLength(28);
    expect(all[27]).toEqual({
      id: 's27',
      name: 'list 27',
      language: 'de',
      version: 1,
      configuredRules: {},
      customInstructions: [],
      creationTime: '2026-01-01T00:00:00.000Z',
      updatedTime: '2026-01-01T00:00:00.000Z',
    });
  });

  it('sends entries as TSV with lowercase codes and the key only in the Authorization header', async () => {
    const s = setup();
    let body = '';
    let auth: unknown;
    s.pool
      .intercept({ path: '/v3/glossaries/g1/dictionaries', method: 'PUT' })
      .reply((opts) => {
        body = typeof opts.body === 'string' ? opts.body : '';
        auth = (opts.headers as Record<string, string>)['authorization'];
        return { statusCode: 200, data: { source_lang: 'en', target_lang: 'de', entry_count: 2 } };
      });
    const result = await s.client.putDictionary('g1', { sourceLang: 'EN', targetLang: 'DE', entries: [['a', 'b'], ['c d', 'e']] });
    expect(result).toEqual({ sourceLang: 'en', targetLang: 'de', entryCount: 2 });
    expect(JSON.parse(body)).toEqual({ source_lang: 'en', target_lang: 'de', entries: 'a\tb\nc d\te', entries_format: 'tsv' });
    expect(auth).toBe('Service-Auth-Key mock-key');
  });

  it('refuses a base URL that would send the key in clear text to another machine (exit 7)', () => {
    for (const baseUrl of ['http://api.example.com', 'ftp://127.0.0.1', 'https://user:pw@api.example.com', 'not a url']) {
      let error: unknown;
      try {
        createClient({ baseUrl, apiKey: 'k' });
      } catch (e) {
        error = e;
      }
      expect(exitCodeOfError(error)).toBe(ExitCode.authOrDestination);
      expect((error as Error).message).toMatch(/^URL not allowed/);
      expect((error as Error).message).not.toContain('pw');
    }
    for (const baseUrl of ['https://api.example.com', 'http://127.0.0.1:8787', 'http://localhost:1', 'http://[::1]:8787']) {
      expect(() => createClient({ baseUrl, apiKey: 'k', dispatcher: new MockAgent() })).not.toThrow();
    }
  });
});

describe('client concurrency', () => {
  it('never has more than `concurrency` requests in flight', async () => {
    const clock = createVirtualClock();
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    // The client only calls `dispatch`; a stand-in that answers after a few event-loop turns.
    const dispatcher = {
      dispatch(_options: unknown, handler: Dispatcher.DispatchHandler) {
        calls += 1;
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const controller = {} as Dispatcher.DispatchController;
        void (async () => {
          handler.onRequestStart?.(controller, {});
          for (let i = 0; i < 3; i += 1) await new Promise((r) => setImmediate(r));
          inFlight -= 1;
          handler.onResponseStart?.(controller, 200, {}, 'OK');
          handler.onResponseData?.(controller, Buffer.from(JSON.stringify({ glossaries: [] })));
          handler.onResponseEnd?.(controller, {});
        })();
        return true;
      },
    } as unknown as NonNullable<ClientOptions['dispatcher']>;
    // Without `track`, virtual time moves while requests are out, so paced sends can overlap.
    const untracked = { now: () => clock.now(), sleep: (ms: number, signal?: AbortSignal) => clock.sleep(ms, signal) };
    const client = createClient({ baseUrl: ORIGIN, apiKey: 'k', dispatcher, clock: untracked, requestsPerSecond: 1000, concurrency: 3 });
    await Promise.all(Array.from({ length: 30 }, () => client.listGlossaries()));
    await client.close();
    expect(calls).toBe(30);
    expect(maxInFlight).toBe(3);
  });
});
