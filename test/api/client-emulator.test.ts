import { afterEach, describe, expect, it } from 'vitest';
import { isServiceAuthError, isServiceError, type ServiceClient } from '../../src/api/index.js';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { dict, startHarness, type Harness } from './emulator-harness.js';
import { until } from '../helpers/until.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Runs tasks with at most `width` in flight, like an apply working through a plan. */
async function pool<T>(tasks: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

const ok = (e: RequestLogEntry): boolean => typeof e.status === 'number' && e.status >= 200 && e.status < 300;

describe('client against the emulator', () => {
  it('finishes a burst under --rate-limit 5 with every request succeeding and none sent before its Retry-After', async () => {
    // The client is configured faster than the server allows, so the server's limiter must bite.
    harness = await startHarness({ rateLimit: 5 }, { requestsPerSecond: 20, concurrency: 4 });
    const h = harness;
    const ops = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? h.client.createGlossary(`burst-${i}`, [dict('en', 'de', [[`t${i}`, `u${i}`]])]) : h.client.listGlossaries(),
    );
    const results = await Promise.all(ops);
    expect(results).toHaveLength(40);

    const log = h.emulator.requests();
    const rejected = log.filter((e) => e.status === 429);
    expect(rejected.length).toBeGreaterThan(0); // the limiter did bite
    expect(rejected.every((e) => e.fault === 'rate_limit')).toBe(true);
    // 40 operations + the one listing before the first create; every 429 was seen and honoured.
    expect(log.filter(ok)).toHaveLength(41);
    expect(log).toHaveLength(41 + rejected.length);
    expect(h.throttles.filter((t) => t.kind === '429')).toHaveLength(rejected.length);
    for (const t of h.throttles) {
      expect(t.waitMs).toBeGreaterThanOrEqual(1000); // Retry-After is whole seconds
      const early = log.filter((e) => e.time > t.at && e.time < t.at + t.waitMs);
      expect(early).toEqual([]);
    }
    // Exactly the ten glossaries, once each.
    const names = (await h.client.listGlossaries()).map((g) => g.name).sort();
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `burst-${i * 4}`).sort());
  });

  it('finds an unpublished limit of 20 requests/s when configured at 40: a few pauses, then at the limit', async () => {
    const rates: number[] = [];
    const pauses: number[] = [];
    harness = await startHarness(
      { rateLimit: 20 },
      { requestsPerSecond: 40, concurrency: 8, metrics: { onRate: (r) => rates.push(r), onPause: (_kind, ms) => pauses.push(ms) } },
    );
    const h = harness;
    const g = await h.client.createGlossary('limit', [dict('en', 'de', [['a', 'b']])]);
    const start = h.clock.now();
    await Promise.all(Array.from({ length: 400 }, () => h.client.getGlossary(g.id)));
    const elapsed = h.clock.now() - start;
    const log = h.emulator.requests();
    const refused = log.filter((e) => e.status === 429);
    expect(refused.length).toBeGreaterThan(0); // the limit was there and was found
    // A round of refusals is judged when its pause is over; on this clock requests go one at a time
    // (tracked I/O holds time still), so each round has one or two refusals and three confirm.
    expect(refused.length).toBeLessThanOrEqual(6);
    expect(pauses.length).toBeLessThanOrEqual(3);
    expect(rates).toEqual([40, 20]); // the configured rate at the start, then just below the refused load
    expect(log.filter(ok)).toHaveLength(402); // and the create with the listing before it
    // 400 calls at 20/s are 20 s of virtual time; the one-second pauses and the window's margin on top.
    expect(elapsed).toBeLessThanOrEqual(1.2 * 20_000);
  });

  it('keeps the rate under 20 % random 429s at 20 requests/s and pauses only when the service asks', async () => {
    const rates: number[] = [];
    const pauses: number[] = [];
    harness = await startHarness(
      { faults: '429=0.2', seed: 3 },
      {
        requestsPerSecond: 20,
        concurrency: 8,
        retry: { deadlineMs: 3_600_000 },
        metrics: { onRate: (r) => rates.push(r), onPause: (_kind, ms) => pauses.push(ms) },
      },
    );
    const h = harness;
    const start = h.clock.now();
    await Promise.all(Array.from({ length: 200 }, () => h.client.listGlossaries()));
    const elapsed = h.clock.now() - start;
    const log = h.emulator.requests();
    const refused = log.filter((e) => e.status === 429);
    expect(refused.length).toBeGreaterThan(30); // about one in five of ~250 sends
    expect(rates).toEqual([20]); // never cut: the refusals are not about load
    // Every pause is one a refusal asked for: Retry-After is 1 s, and refusals that came together share it.
    expect(pauses.length).toBeLessThanOrEqual(refused.length);
    expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(1000 * refused.length);
    expect(pauses.length).toBeGreaterThan(10);
    for (const t of h.throttles) {
      const early = log.filter((e) => e.time > t.at && e.time < t.at + t.waitMs);
      expect(early).toEqual([]);
    }
    // Time went to the sends at 20/s and to the pauses the service asked for, nothing else. (The
    // wall-time ratio needs real latency, and concurrency to fill a burst: bench/run.js measures it.)
    const paused = pauses.reduce((sum, ms) => sum + ms, 0);
    expect(elapsed).toBeLessThanOrEqual(paused + (log.length / 20) * 1000 + 100);
  });

  it('completes 200 operations under 429=0.3,529=0.1,503=0.1,reset=0.05 with nothing duplicated', async () => {
    harness = await startHarness(
      { faults: '429=0.3,529=0.1,503=0.1,reset=0.05', seed: 42 },
      { requestsPerSecond: 10, concurrency: 4, retry: { maxAttempts: 12, deadlineMs: 3_600_000 } },
    );
    const h = harness;
    const c = h.client;
    const name = (i: number): string => `fault-${String(i).padStart(2, '0')}`;
    const glossaryIds: string[] = [];
    const styleIds: string[] = [];

    const phaseA = [
      ...Array.from({ length: 40 }, (_, i) => async () => {
        glossaryIds[i] = (await c.createGlossary(name(i), [dict('en', 'de', [['a', 'b'], [`k${i}`, `v${i}`]])])).id;
      }),
      ...Array.from({ length: 10 }, (_, i) => async () => {
        styleIds[i] = (await c.createStyleRules({ name: `style-${i}`, language: 'de', configuredRules: {}, customInstructions: [] })).id;
      }),
      ...Array.from({ length: 10 }, (_, i) => async () => {
        await c.createGlossaryV2(`legacy-${i}`, dict('en', 'fr', [['x', `y${i}`]]));
      }),
    ];
    const id = (i: number): string => glossaryIds[i] ?? '';
    const sid = (i: number): string => styleIds[i] ?? '';
    const phaseB = [
      ...Array.from({ length: 40 }, (_, i) => () => c.putDictionary(id(i), dict('en', 'fr', [['hello', `bonjour${i}`]]))),
      ...Array.from({ length: 40 }, (_, i) => () => c.patchGlossary(id(i), { dictionary: dict('en', 'de', [['merged', 'zusammengeführt']]) })),
      ...Array.from({ length: 10 }, (_, i) => () => c.createInstruction(sid(i), { label: 'Formal', prompt: `Be formal ${i}.` })),
      ...Array.from({ length: 10 }, (_, i) => () => c.putConfiguredRules(sid(i), { punctuation: { apostrophe: 'use_curly_apostrophes' } })),
    ];
    const phaseC = [
      ...Array.from({ length: 20 }, (_, i) => () => c.patchGlossary(id(i), { name: `${name(i)}-renamed` })),
      ...Array.from({ length: 10 }, (_, i) => () => c.deleteDictionary(id(20 + i), 'en', 'fr')),
      ...Array.from({ length: 10 }, (_, i) => () => c.deleteGlossary(id(30 + i))),
    ];
    expect(phaseA.length + phaseB.length + phaseC.length).toBe(200);
    // On top of the random faults (which strike before the service acts), some creates land and
    // then lose their answer: a blind resend would duplicate them.
    for (let i = 0; i < 5; i += 1) h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/glossaries', kind: 'reset_after' });
    for (let i = 0; i < 2; i += 1) h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/style_rules', kind: 'reset_after' });
    await pool<unknown>(phaseA, 4);
    await pool<unknown>(phaseB, 4);
    await pool<unknown>(phaseC, 4);

    const log = h.emulator.requests();
    const faults = log.filter((e) => e.fault !== undefined);
    expect(faults.length).toBeGreaterThan(150); // the faults really were there
    for (const kind of ['429', '529', '503', 'reset']) expect(faults.some((e) => e.fault === kind)).toBe(true);
    expect(faults.filter((e) => e.fault === 'reset_after')).toHaveLength(7);
    // Each create landed exactly once (answered, or processed and then cut off).
    const landed = (method: string, path: RegExp): number =>
      log.filter((e) => e.method === method && path.test(e.path) && (ok(e) || e.fault === 'reset_after')).length;
    expect(landed('POST', /^\/v3\/glossaries$/)).toBe(40);
    expect(landed('POST', /^\/v2\/glossaries$/)).toBe(10);
    expect(landed('POST', /^\/v3\/style_rules$/)).toBe(10);
    expect(landed('POST', /\/custom_instructions$/)).toBe(10);

    // The state, read without faults by a fresh client: exactly the expected resources.
    h.emulator.setFaults('');
    const reader = h.newClient();
    const glossaries = await reader.listGlossaries();
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => `${name(i)}-renamed`),
      ...Array.from({ length: 10 }, (_, i) => name(20 + i)),
      ...Array.from({ length: 10 }, (_, i) => `legacy-${i}`),
    ].sort();
    expect(glossaries.map((g) => g.name).sort()).toEqual(expected);
    for (const g of glossaries.filter((x) => x.name.startsWith('fault-'))) {
      const pairs = g.dictionaries.map((d) => `${d.sourceLang}-${d.targetLang}:${d.entryCount}`).sort();
      expect(pairs).toEqual(g.name.endsWith('-renamed') ? ['en-de:3', 'en-fr:1'] : ['en-de:3']);
    }
    const styles = await reader.listStyleRules();
    expect(styles.map((s) => s.name).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `style-${i}`).sort());
    for (const s of styles) {
      expect(s.customInstructions.map((i) => i.label)).toEqual(['Formal']);
      expect(s.configuredRules).toEqual({ punctuation: { apostrophe: 'use_curly_apostrophes' } });
    }
  });

  it('pauses glossary calls on 456 while a style-rule call goes through', async () => {
    harness = await startHarness();
    const h = harness;
    const g = await h.client.createGlossary('quota', [dict('en', 'de', [['a', 'b']])]);
    const s = await h.client.createStyleRules({ name: 'rules', language: 'de', configuredRules: {}, customInstructions: [] });
    h.emulator.injectOnce({ pathPrefix: '/v3/glossaries', kind: 456, retryAfter: 30 });

    let glossaryDone = false;
    const glossaryCall = h.client.getGlossary(g.id).then((x) => {
      glossaryDone = true;
      return x;
    });
    await until('a 456 answer', () => h.throttles.some((t) => t.kind === '456'), { everyMs: 0 });
    const t456 = h.clock.now();
    const styleRules = await h.client.getStyleRules(s.id);
    expect(styleRules.name).toBe('rules');
    expect(glossaryDone).toBe(false);
    const again = await glossaryCall;
    expect(again.id).toBe(g.id);

    const log = h.emulator.requests();
    const quota = log.filter((e) => e.status === 456);
    expect(quota).toHaveLength(1);
    const styleGet = log.find((e) => e.path === `/v3/style_rules/${s.id}`);
    const glossaryGets = log.filter((e) => e.method === 'GET' && e.path === `/v3/glossaries/${g.id}`);
    expect(glossaryGets).toHaveLength(2);
    expect(styleGet?.time).toBeLessThan(t456 + 30_000);
    expect(glossaryGets[1]?.time).toBeGreaterThanOrEqual(t456 + 30_000);
    expect(h.throttles.filter((t) => t.kind === '456').map((t) => t.waitMs)).toEqual([30_000]);
  });

  it('turns 456 into an error once the cool-down budget is spent, while style rules keep working', async () => {
    harness = await startHarness({}, { retry: { glossaryCooldownBudgetMs: 20_000 } });
    const h = harness;
    h.emulator.setFaults('456=1'); // the emulator draws 456 only for glossary endpoints
    const failing = h.client.listGlossaries().catch((e: unknown) => e);
    const styles = await h.client.listStyleRules();
    expect(styles).toEqual([]);
    const error = await failing;
    expect(isServiceError(error) && error.code).toBe('glossary_quota');
    expect(isServiceError(error) && error.status).toBe(456);
    // 20 cool-downs of 1 s fit the 20 s budget; the 21st 456 is final.
    expect(h.emulator.requests().filter((e) => e.status === 456)).toHaveLength(21);
  });

  it('leaves exactly one glossary when the answer to its create is lost', async () => {
    harness = await startHarness();
    const h = harness;
    await h.client.listGlossaries();
    h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/glossaries', kind: 'reset_after' });
    const created = await h.client.createGlossary('lost', [dict('en', 'de', [['a', 'b']])]);

    const all = await h.client.listGlossaries();
    expect(all.filter((g) => g.name === 'lost').map((g) => g.id)).toEqual([created.id]);
    const posts = h.emulator.requests().filter((e) => e.method === 'POST');
    expect(posts.map((e) => e.status)).toEqual(['reset']); // looked up, adopted, never resent
    expect(created.dictionaries).toEqual([{ sourceLang: 'en', targetLang: 'de', entryCount: 1 }]);
  });

  it('resends a create that never landed (reset before processing) and still makes one glossary', async () => {
    harness = await startHarness();
    const h = harness;
    h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/glossaries', kind: 'reset' });
    const created = await h.client.createGlossary('retry-me', [dict('en', 'de', [['a', 'b']])]);
    const posts = h.emulator.requests().filter((e) => e.method === 'POST');
    expect(posts.map((e) => e.status)).toEqual(['reset', 201]);
    expect((await h.client.listGlossaries()).filter((g) => g.name === 'retry-me').map((g) => g.id)).toEqual([created.id]);
  });

  it('adopts the new v2 glossary, not the old one of the same name, after a lost create (create-first recreate)', async () => {
    harness = await startHarness();
    const h = harness;
    const old = await h.client.createGlossaryV2('legacy', dict('en', 'de', [['a', 'b']]));
    h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v2/glossaries', kind: 'reset_after' });
    const fresh = await h.client.createGlossaryV2('legacy', dict('en', 'de', [['a', 'c']]));
    expect(fresh.id).not.toBe(old.id);
    const same = (await h.client.listGlossariesV2()).filter((g) => g.name === 'legacy');
    expect(same.map((g) => g.id).sort()).toEqual([old.id, fresh.id].sort());
    expect(h.emulator.requests().filter((e) => e.method === 'POST')).toHaveLength(2);
  });

  it('reports persistent 5xx on a write as the service error (exit 6), not as auth or network', async () => {
    harness = await startHarness();
    const h = harness;
    const v3 = await h.client.createGlossary('terms', [dict('en', 'de', [['a', 'b']])]);
    for (let i = 0; i < 12; i += 1) h.emulator.injectOnce({ method: 'PATCH', kind: 503 });
    const patch = await h.client.patchGlossary(v3.id, { name: 'renamed' }).catch((e: unknown) => e);
    expect(isServiceError(patch) && patch.code).toBe('http_503');
    expect(isServiceAuthError(patch)).toBe(false);
    expect(exitCodeOfError(patch)).toBe(ExitCode.applyIncomplete);
    expect((patch as Error).message).not.toMatch(/read-only|read-scoped|key/);

    for (let i = 0; i < 12; i += 1) h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v2/glossaries', kind: 500 });
    const post = await h.client.createGlossaryV2('legacy', dict('en', 'de', [['a', 'b']])).catch((e: unknown) => e);
    expect(isServiceError(post)).toBe(true);
    if (!isServiceError(post)) return;
    expect(post.code).toBe('http_500');
    expect(post.status).toBe(500);
    expect(exitCodeOfError(post)).toBe(ExitCode.applyIncomplete);
    expect(post.serviceMessage).toBe('Internal error (injected by the emulator)');
    expect(post.message).toBe('POST /v2/glossaries: HTTP 500 after 10 attempts; the create did not land — Internal error (injected by the emulator)');
    const posts = h.emulator.requests().filter((e) => e.method === 'POST' && e.path.startsWith('/v2/'));
    expect(posts.map((e) => e.status)).toEqual(Array.from({ length: 10 }, () => 500));
    expect((await h.client.listGlossariesV2()).filter((g) => g.name === 'legacy')).toEqual([]);
  });

  it('adopts a style rule list and an instruction whose create answers were lost', async () => {
    harness = await startHarness();
    const h = harness;
    h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/style_rules', kind: 'reset_after' });
    const list = await h.client.createStyleRules({ name: 'house', language: 'DE', configuredRules: {}, customInstructions: [] });
    expect(list.language).toBe('de');
    h.emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/style_rules/', kind: 503 });
    const withInstruction = await h.client.createInstruction(list.id, { label: 'Tone', prompt: 'Be kind.' });
    expect(withInstruction).toEqual({ id: expect.any(String) as string, label: 'Tone', prompt: 'Be kind.' });
    const all = await h.client.listStyleRules();
    expect(all.map((s) => s.id)).toEqual([list.id]);
    expect(all[0]?.customInstructions).toHaveLength(1);
  });

  it('reports a rejected key (401) and a read-only key (403) as exit-7 errors without retrying', async () => {
    harness = await startHarness({ keys: ['good-key', 'reader-key=read'] }, { apiKey: 'wrong-key' });
    const h = harness;
    const rejected = await h.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceAuthError(rejected)).toBe(true);
    expect((rejected as Error).message).toContain('the service rejected the API key from TERMSYNC_API_KEY (401)');
    expect(exitCodeOfError(rejected)).toBe(ExitCode.authOrDestination);

    const reader: ServiceClient = h.newClient({ apiKey: 'reader-key' });
    expect(await reader.listGlossaries()).toEqual([]);
    const denied = await reader.createGlossary('nope', [dict('en', 'de', [['a', 'b']])]).catch((e: unknown) => e);
    expect(isServiceAuthError(denied)).toBe(true);
    expect((denied as Error).message).toContain('the key is read-only: writes are not permitted (403)');
    expect((denied as Error).message).toContain('POST /v3/glossaries');
    expect(exitCodeOfError(denied)).toBe(ExitCode.authOrDestination);
    expect(h.emulator.requests().map((e) => `${e.method} ${e.status}`)).toEqual(['GET 401', 'GET 200', 'POST 403']);
  });

  it('manages a style rule list end to end: create, rename, rules, instructions, delete', async () => {
    harness = await startHarness();
    const c = harness.client;
    const created = await c.createStyleRules({
      name: 'Marketing',
      language: 'de',
      configuredRules: { punctuation: { apostrophe: 'use_curly_apostrophes' } },
      customInstructions: [{ label: 'Formal', prompt: 'Address the reader formally.', sourceLanguage: 'EN' }],
    });
    expect(created.version).toBe(1);
    expect(created.customInstructions).toEqual([
      { id: expect.any(String) as string, label: 'Formal', prompt: 'Address the reader formally.', sourceLanguage: 'en' },
    ]);
    const renamed = await c.renameStyleRules(created.id, 'Marketing (German)');
    expect([renamed.name, renamed.version > created.version]).toEqual(['Marketing (German)', true]);
    const rules = await c.putConfiguredRules(created.id, { style_and_tone: { short_vs_long_words: 'use_short_words' } });
    expect(rules.configuredRules).toEqual({ style_and_tone: { short_vs_long_words: 'use_short_words' } });
    expect(rules.customInstructions).toHaveLength(1);
    const short = await c.createInstruction(created.id, { label: 'Short', prompt: 'Keep sentences short.' });
    expect((await c.getStyleRules(created.id)).customInstructions.find((i) => i.label === 'Short')).toEqual(short);
    const updated = await c.updateInstruction(created.id, short.id, { label: 'Short', prompt: 'Keep it short.' });
    expect(updated).toEqual({ id: short.id, label: 'Short', prompt: 'Keep it short.' });
    expect(await c.getInstruction(created.id, short.id)).toEqual(updated);
    expect((await c.getStyleRules(created.id)).version).toBeGreaterThan(renamed.version);
    await c.deleteStyleRules(created.id);
    const gone = await c.getStyleRules(created.id).catch((e: unknown) => e);
    expect(isServiceError(gone) && gone.code).toBe('http_404');
  });

  it('reads entries of v3 and v2 glossaries as raw pairs and lowercases language codes', async () => {
    harness = await startHarness();
    const h = harness;
    const refused = await h.client.createGlossary('entries', [dict('en', 'de', [['Tab\tinside', 'x']])]).catch((e: unknown) => e);
    expect(exitCodeOfError(refused)).toBe(ExitCode.invalidInput);
    expect(h.emulator.requests().filter((e) => e.method === 'POST')).toEqual([]); // refused before sending
    const g = await h.client.createGlossary('entries', [dict('EN', 'De', [['a', 'x'], ['b', 'c']])]);
    expect(g.dictionaries[0]).toEqual({ sourceLang: 'en', targetLang: 'de', entryCount: 2 });
    const put = await h.client.putDictionary(g.id, dict('en', 'fr', [['one', 'un']]));
    expect(put).toEqual({ sourceLang: 'en', targetLang: 'fr', entryCount: 1 });
    expect(await h.client.getEntries(g.id, 'en', 'fr')).toEqual([['one', 'un']]);
    const v2 = await h.client.createGlossaryV2('legacy', dict('en', 'de', [['a', 'b'], ['c', 'd']]));
    expect([...(await h.client.getEntriesV2(v2.id))].sort()).toEqual([['a', 'b'], ['c', 'd']]);
    await h.client.deleteDictionary(g.id, 'en', 'fr');
    expect((await h.client.getGlossary(g.id)).dictionaries.map((d) => d.targetLang)).toEqual(['de']);
    await h.client.deleteGlossary(g.id);
    await h.client.deleteGlossaryV2(v2.id);
    expect(await h.client.listGlossaries()).toEqual([]);
    const langs = await h.client.listLanguages('glossary');
    expect(langs.length).toBeGreaterThan(10);
  });
});
