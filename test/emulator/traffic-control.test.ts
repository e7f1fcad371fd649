/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../src/emulator/index.js';
import { InputError } from '../../src/lib/errors.js';
import { FakeClock, call, createV3, errorBody, start } from './helpers.js';

describe('fault injection', () => {
  it('parses the contract syntax and rejects bad specs with a clear message', () => {
    const spec = parseFaultSpec('429=0.2,529=0.05,456=0.1,500=0.1,503=0.1,reset=0.05,latency=5-30');
    expect(spec.rates).toEqual({ 429: 0.2, 529: 0.05, 456: 0.1, 500: 0.1, 503: 0.1, reset: 0.05 });
    expect(spec.latency).toEqual({ min: 5, max: 30 });
    expect(parseFaultSpec('').rates[429]).toBe(0);
    for (const [bad, message] of [
      ['429', /KIND=VALUE/],
      ['418=0.1', /unknown kind "418"/],
      ['429=1.5', /rate from 0 to 1/],
      ['429=abc', /rate from 0 to 1/],
      ['429=0.6,500=0.6', /add up to/],
      ['latency=30-5', /above its maximum/],
      ['latency=fast', /MIN-MAX/],
      ['429=0.1,429=0.2', /given twice/],
    ] as const) {
      expect(() => parseFaultSpec(bad)).toThrow(InputError);
      expect(() => parseFaultSpec(bad)).toThrow(message);
    }
  });

  it('injectOnce rejects a Retry-After that is not a non-negative integer, as the HTTP control does', async () => {
    const emu = await start();
    for (const retryAfter of [-3, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => emu.injectOnce({ kind: 429, retryAfter })).toThrow(InputError);
      expect(() => emu.injectOnce({ kind: 429, retryAfter })).toThrow(/non-negative integer/);
    }
    // Nothing was queued by the rejected calls.
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    emu.injectOnce({ kind: 429, retryAfter: 0 });
    const answer = await call(emu, 'GET', '/v3/glossaries');
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('0');
  });

  it('injectOnce: the next matching request gets the fault with Retry-After; later ones pass', async () => {
    const emu = await start();
    emu.injectOnce({ kind: 429, pathPrefix: '/v3/glossaries', retryAfter: 2 });
    const other = await call(emu, 'GET', '/v3/style_rules');
    expect(other.status).toBe(200);
    const throttled = await call(emu, 'GET', '/v3/glossaries');
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('2');
    errorBody(throttled);
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    for (const kind of [456, 529] as const) {
      emu.injectOnce({ kind });
      const answer = await call(emu, 'GET', '/v3/glossaries');
      expect(answer.status).toBe(kind);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    for (const kind of [500, 503] as const) {
      emu.injectOnce({ kind, method: 'GET' });
      const answer = await call(emu, 'GET', '/v3/glossaries');
      expect(answer.status).toBe(kind);
      errorBody(answer);
    }
  });

  it('a faulted create has no effect on state', async () => {
    const emu = await start();
    emu.injectOnce({ kind: 503, method: 'POST' });
    const answer = await createV3(emu, 'X', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    expect(answer.status).toBe(503);
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
  });

  it('reset destroys the connection before processing; reset_after lets the create land first', async () => {
    const emu = await start();
    emu.injectOnce({ kind: 'reset', method: 'POST' });
    await expect(createV3(emu, 'Lost', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }])).rejects.toThrow();
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
    emu.injectOnce({ kind: 'reset_after', method: 'POST' });
    await expect(createV3(emu, 'Landed', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }])).rejects.toThrow();
    const names = (await call(emu, 'GET', '/v3/glossaries')).json.glossaries.map((g: { name: string }) => g.name);
    expect(names).toEqual(['Landed']);
    const log = emu.requests().filter((r) => r.method === 'POST');
    expect(log.map((r) => [r.status, r.fault])).toEqual([
      ['reset', 'reset'],
      ['reset', 'reset_after'],
    ]);
  });

  it('random faults follow the seeded rates; 456 only on glossary endpoints; same seed, same draws', async () => {
    async function statuses(path: string, seed: number): Promise<number[]> {
      const emu = await start({ seed, faults: '429=0.25,456=0.25,500=0.25' });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await call(emu, 'GET', path)).status);
      await emu.close();
      return out;
    }
    const glossary = await statuses('/v3/glossaries', 5);
    expect(new Set(glossary)).toEqual(new Set([200, 429, 456, 500]));
    expect(await statuses('/v3/glossaries', 5)).toEqual(glossary);
    const styles = await statuses('/v3/style_rules', 5);
    expect(styles).not.toContain(456);
    expect(styles.filter((s) => s === 200).length).toBeGreaterThan(0);
  });

  it('setFaults changes the spec at runtime; "" turns faults off', async () => {
    const emu = await start();
    emu.setFaults('503=1');
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(503);
    emu.setFaults('');
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    expect(() => emu.setFaults('503=7')).toThrow(InputError);
  });
});

describe('rate limit', () => {
  it('answers 429 once a key exceeds N accepted requests in a sliding second, with a correct Retry-After', async () => {
    const clock = new FakeClock();
    const emu = await start({ rateLimit: 3, clock });
    for (let i = 0; i < 3; i++) {
      expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
      clock.advance(100);
    }
    // Accepted at t=0,100,200; now t=300: the oldest leaves the window at t=1000.
    const limited = await call(emu, 'GET', '/v3/glossaries');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    errorBody(limited);
    // Another key has its own window.
    expect((await call(emu, 'GET', '/v3/glossaries', { key: 'other' })).status).toBe(200);
    clock.advance(699); // t=999: still full (oldest at 0 leaves after t=1000)
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(429);
    clock.advance(1); // t=1000: the oldest left
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(429);
    const log = emu.requests();
    expect(log.filter((r) => r.fault === 'rate_limit')).toHaveLength(3);
  });

  it('Retry-After rounds up the time until the oldest accepted request leaves the window', async () => {
    const clock = new FakeClock();
    const emu = await start({ rateLimit: 1, clock });
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    clock.advance(1);
    expect((await call(emu, 'GET', '/v3/glossaries')).headers.get('retry-after')).toBe('1');
  });

  it('throttled requests have no effect on state and do not count as accepted', async () => {
    const clock = new FakeClock();
    const emu = await start({ rateLimit: 1, clock });
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await createV3(emu, `G${i}`, [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }])).status).toBe(429);
    }
    clock.advance(1000);
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
  });
});

describe('request log, reset and HTTP controls', () => {
  it('logs method, path, query, status, account label and body size; never the key', async () => {
    const clock = new FakeClock();
    const emu = await start({ clock, keys: ['secret-one', 'secret-two=read'] });
    await call(emu, 'GET', '/v3/style_rules?page=0', { key: 'secret-one' });
    await call(emu, 'POST', '/v3/style_rules', { key: 'secret-two', json: { name: 'x', language: 'en' } });
    await call(emu, 'GET', '/v3/glossaries', { key: 'wrong' });
    const log = emu.requests();
    expect(log).toEqual([
      { seq: 1, time: clock.now(), method: 'GET', path: '/v3/style_rules', query: 'page=0', status: 200, account: 'acct-1', bodyBytes: 0 },
      { seq: 2, time: clock.now(), method: 'POST', path: '/v3/style_rules', query: '', status: 403, account: 'acct-2', bodyBytes: Buffer.byteLength(JSON.stringify({ name: 'x', language: 'en' })) },
      { seq: 3, time: clock.now(), method: 'GET', path: '/v3/glossaries', query: '', status: 401, account: '-', bodyBytes: 0 },
    ]);
    expect(JSON.stringify(log)).not.toContain('secret');
  });

  it('reset() and POST /__emulator/reset also drop pending one-shot faults', async () => {
    const emu = await start();
    emu.injectOnce({ kind: 500, method: 'POST' });
    emu.injectOnce({ kind: 'reset', pathPrefix: '/v3/' });
    emu.reset();
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    expect((await createV3(emu, 'after-reset', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }])).status).toBe(201);

    expect((await call(emu, 'POST', '/__emulator/inject', { key: null, json: { kind: 503, method: 'GET' } })).status).toBe(204);
    expect((await call(emu, 'POST', '/__emulator/reset', { key: null })).status).toBe(204);
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    expect(emu.requests().map((r) => r.status)).toEqual([200]);
  });

  it('HTTP controls: requests, reset, faults, inject — not logged, no auth needed', async () => {
    const emu = await start();
    await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    const requests = await call(emu, 'GET', '/__emulator/requests', { key: null });
    expect(requests.status).toBe(200);
    expect(requests.json.requests).toHaveLength(1);
    expect((await call(emu, 'POST', '/__emulator/faults', { key: null, json: { spec: '500=1' } })).status).toBe(204);
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(500);
    expect((await call(emu, 'POST', '/__emulator/faults', { key: null, json: { spec: '' } })).status).toBe(204);
    const badSpec = await call(emu, 'POST', '/__emulator/faults', { key: null, json: { spec: '500=9' } });
    expect(badSpec.status).toBe(400);
    expect(errorBody(badSpec).message).toMatch(/rate from 0 to 1/);
    expect((await call(emu, 'POST', '/__emulator/inject', { key: null, json: { kind: 529, pathPrefix: '/v3/', retryAfter: 1 } })).status).toBe(204);
    const throttled = await call(emu, 'GET', '/v3/glossaries');
    expect(throttled.status).toBe(529);
    expect(throttled.headers.get('retry-after')).toBe('1');
    expect((await call(emu, 'POST', '/__emulator/inject', { key: null, json: { kind: 418 } })).status).toBe(400);
    expect((await call(emu, 'POST', '/__emulator/inject', { key: null, body: 'nope', contentType: 'application/json' })).status).toBe(400);
    expect((await call(emu, 'GET', '/__emulator/unknown', { key: null })).status).toBe(404);
    expect(emu.requests().every((r) => !r.path.startsWith('/__emulator'))).toBe(true);
    expect((await call(emu, 'POST', '/__emulator/reset', { key: null })).status).toBe(204);
    expect(emu.requests()).toEqual([]);
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
  });

  it('reset() wipes every account and the log', async () => {
    const emu = await start();
    await createV3(emu, 'A', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }], 'k1');
    await call(emu, 'POST', '/v3/style_rules', { key: 'k2', json: { name: 'S', language: 'en' } });
    emu.reset();
    expect(emu.requests()).toEqual([]);
    expect((await call(emu, 'GET', '/v3/glossaries', { key: 'k1' })).json.glossaries).toEqual([]);
    expect((await call(emu, 'GET', '/v3/style_rules', { key: 'k2' })).json.style_rules).toEqual([]);
    expect(emu.requests()[0]?.seq).toBe(1);
  });

  it('the same seed gives the same ids', async () => {
    const a = await start({ seed: 9 });
    const b = await start({ seed: 9 });
    const dict = [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }];
    expect((await createV3(a, 'X', dict)).json.glossary_id).toBe((await createV3(b, 'X', dict)).json.glossary_id);
  });

  it('latency delays answers by a drawn amount within the range', async () => {
    const emu = await start({ faults: 'latency=30-40' });
    const before = performance.now();
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
    expect(performance.now() - before).toBeGreaterThanOrEqual(29);
  });
});
