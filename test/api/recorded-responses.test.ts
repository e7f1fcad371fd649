import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { createClient, isServiceAuthError, isServiceError, type ClientOptions, type ServiceClient } from '../../src/api/index.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

/*
 * Answers as other servers of this API family give them (recorded shapes: the vendor's mock server
 * and the vendor's API description differ from the project's spec in these ways). Each must end in
 * a clear result or a clear, typed error: never a crash, never a wrong exit code.
 */

const ORIGIN = 'https://api.example.test';

let agent: MockAgent | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await agent?.close();
  client = undefined;
  agent = undefined;
});

function setup(options: Partial<ClientOptions> = {}): { pool: ReturnType<MockAgent['get']>; client: ServiceClient } {
  agent = new MockAgent();
  agent.disableNetConnect();
  client = createClient({
    baseUrl: ORIGIN,
    apiKey: 'mock-key',
    dispatcher: agent,
    clock: createVirtualClock(),
    requestsPerSecond: 100,
    concurrency: 2,
    random: () => 0.5,
    retry: { maxAttempts: 2 },
    ...options,
  });
  return { pool: agent.get(ORIGIN), client };
}

const TIME = '2026-01-01T00:00:00.000Z';
const list = (instructions: object[]): object => ({
  style_id: 's1',
  name: 'Marketing',
  language: 'de',
  version: 2,
  configured_rules: {},
  custom_instructions: instructions,
  creation_time: TIME,
  updated_time: TIME,
});

describe('error answers without the usual body', () => {
  it('an empty 400 body: a final http_400 with method and path, no retry', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'PATCH' }).reply(400, '');
    const error = await s.client.patchGlossary('g1', { name: 'x' }).catch((e: unknown) => e);
    expect(isServiceError(error) && [error.code, error.status, error.serviceMessage, error.attempts]).toEqual(['http_400', 400, undefined, 1]);
    expect((error as Error).message).toBe('PATCH /v3/glossaries/g1: bad request (400)');
    expect(exitCodeOfError(error)).toBe(ExitCode.applyIncomplete);
  });

  it('an empty 500 body on a read: retried, then a plain http_500', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(500, '').times(2);
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceError(error) && [error.code, error.attempts]).toEqual(['http_500', 2]);
    expect((error as Error).message).toBe('GET /v3/glossaries: HTTP 500 after 2 attempts');
  });

  it('a 404 with no body: http_404 naming the request', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries/nope', method: 'GET' }).reply(404, '');
    const error = await s.client.getGlossary('nope').catch((e: unknown) => e);
    expect(isServiceError(error) && [error.code, error.status]).toEqual(['http_404', 404]);
    expect((error as Error).message).toBe('GET /v3/glossaries/nope: not found (404)');
  });

  it('a 404 with no body on a style rule list DELETE that was not lost is an error, not "done"', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/style_rules/s9', method: 'DELETE' }).reply(404, '');
    const error = await s.client.deleteStyleRules('s9').catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('http_404');
  });

  it('a non-JSON error body (a proxy page) is kept out of the message', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'GET' }).reply(404, '<html><body>Not Found</body></html>', { headers: { 'content-type': 'text/html' } });
    const error = await s.client.getGlossary('g1').catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('http_404');
    expect((error as Error).message).not.toContain('<html>');
  });

  it('403 where the spec says 401 (a wrong key): an auth error, exit 7, not retried, with an empty body too', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(403, '');
    const error = await s.client.listGlossaries().catch((e: unknown) => e);
    expect(isServiceAuthError(error)).toBe(true);
    expect(exitCodeOfError(error)).toBe(ExitCode.authOrDestination);
    expect((error as { status: number }).status).toBe(403);
    expect((error as Error).message).toBe(
      "GET /v3/glossaries: the key is not permitted to read this (403); if this is the vendor's own service or its mock server, set `auth_scheme: DeepL-Auth-Key` on this target in the config",
    );
    expect((error as Error).message).not.toContain('mock-key');
  });

  it('403 with the vendor\'s body on a write: an auth error naming the request', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/style_rules/s1', method: 'DELETE' }).reply(403, { message: 'Authorization failure, check auth_key' });
    const error = await s.client.deleteStyleRules('s1').catch((e: unknown) => e);
    expect(isServiceAuthError(error)).toBe(true);
    expect((error as Error).message).toBe(
      "DELETE /v3/style_rules/s1: the key is read-only: writes are not permitted (403); the answer is the vendor's: its servers take `auth_scheme: DeepL-Auth-Key`: set it on this target in the config — Authorization failure, check auth_key",
    );
  });
});

describe('answers missing optional fields', () => {
  it('glossaries without `ready` (create, get, list, v2 list) are read as usual', async () => {
    const s = setup();
    const v3 = { glossary_id: 'g1', name: 'Terms', dictionaries: [{ source_lang: 'en', target_lang: 'de', entry_count: 1 }], creation_time: TIME };
    const v2 = { glossary_id: 'g2', name: 'Legacy', source_lang: 'en', target_lang: 'es', creation_time: TIME, entry_count: 3 };
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, { glossaries: [v3] }).times(2);
    s.pool.intercept({ path: '/v3/glossaries', method: 'POST' }).reply(201, v3);
    s.pool.intercept({ path: '/v3/glossaries/g1', method: 'GET' }).reply(200, v3);
    s.pool.intercept({ path: '/v2/glossaries', method: 'GET' }).reply(200, { glossaries: [v2] });
    const expected = { id: 'g1', name: 'Terms', api: 'v3', creationTime: TIME, dictionaries: [{ sourceLang: 'en', targetLang: 'de', entryCount: 1 }] };
    expect(await s.client.listGlossaries()).toEqual([expected]);
    expect(await s.client.getGlossary('g1')).toEqual(expected);
    expect((await s.client.listGlossariesV2()).map((g) => [g.id, g.api, g.dictionaries])).toEqual([['g2', 'v2', [{ sourceLang: 'en', targetLang: 'es', entryCount: 3 }]]]);
    // The create answer has no `ready` either: the client neither waits nor fails.
    const created = await s.client.createGlossary('Terms', [{ sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] }]);
    expect(created.id).toBe('g1');
    expect(created).not.toHaveProperty('ready');
  });

  it('an instruction without source_language, or with null, is read as "none"', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/style_rules/s1', method: 'GET' }).reply(200, list([{ id: 'i1', label: 'A', prompt: 'P' }, { id: 'i2', label: 'B', prompt: 'Q', source_language: null }]));
    expect((await s.client.getStyleRules('s1')).customInstructions).toEqual([
      { id: 'i1', label: 'A', prompt: 'P' },
      { id: 'i2', label: 'B', prompt: 'Q' },
    ]);
  });
});

describe('adding a custom instruction: either answer', () => {
  const path = '/v3/style_rules/s1/custom_instructions';

  it('the whole list (the project spec): the added instruction is taken from it', async () => {
    const s = setup();
    let sent: unknown;
    s.pool.intercept({ path, method: 'POST' }).reply((opts) => {
      sent = JSON.parse(typeof opts.body === 'string' ? opts.body : '');
      return { statusCode: 201, data: list([{ id: 'i0', label: 'Old', prompt: 'O' }, { id: 'i1', label: 'Tone', prompt: 'Be kind.', source_language: 'en' }]) };
    });
    expect(await s.client.createInstruction('s1', { label: 'Tone', prompt: 'Be kind.', sourceLanguage: 'EN' })).toEqual({ id: 'i1', label: 'Tone', prompt: 'Be kind.', sourceLanguage: 'en' });
    expect(sent).toEqual({ label: 'Tone', prompt: 'Be kind.', source_language: 'EN' });
  });

  it('just the new instruction (the vendor API description and its mock)', async () => {
    const s = setup();
    s.pool.intercept({ path, method: 'POST' }).reply(201, { id: 'i1', label: 'Tone', prompt: 'Be kind.', source_language: 'de' });
    // The server filled in a source language that was not sent: accepted (nothing was declared).
    expect(await s.client.createInstruction('s1', { label: 'Tone', prompt: 'Be kind.' })).toEqual({ id: 'i1', label: 'Tone', prompt: 'Be kind.', sourceLanguage: 'de' });
  });

  it('an answer that does not hold what was sent is an invalid response naming the field', async () => {
    const s = setup();
    s.pool.intercept({ path, method: 'POST' }).reply(201, { id: 'i1', label: 'Tone', prompt: 'Be kind!', source_language: 'de' });
    const changed = await s.client.createInstruction('s1', { label: 'Tone', prompt: 'Be kind.', sourceLanguage: 'en' }).catch((e: unknown) => e);
    expect(isServiceError(changed) && changed.code).toBe('invalid_response');
    expect((changed as Error).message).toBe('POST /v3/style_rules/s1/custom_instructions: unexpected response: the instruction "Tone" was stored with a different prompt and source_language than sent');

    s.pool.intercept({ path, method: 'POST' }).reply(201, list([{ id: 'i0', label: 'Old', prompt: 'O' }]));
    const missing = await s.client.createInstruction('s1', { label: 'Tone', prompt: 'Be kind.' }).catch((e: unknown) => e);
    expect((missing as Error).message).toContain('the style rule list does not hold the instruction "Tone" just added');

    s.pool.intercept({ path, method: 'POST' }).reply(201, { ok: true });
    const neither = await s.client.createInstruction('s1', { label: 'Tone', prompt: 'Be kind.' }).catch((e: unknown) => e);
    expect(isServiceError(neither) && neither.code).toBe('invalid_response');
  });

  it('an update sends source_language along when given', async () => {
    const s = setup();
    let sent: unknown;
    s.pool.intercept({ path: '/v3/style_rules/s1/custom_instructions/i1', method: 'PUT' }).reply((opts) => {
      sent = JSON.parse(typeof opts.body === 'string' ? opts.body : '');
      return { statusCode: 200, data: { id: 'i1', label: 'Tone', prompt: 'Be kinder.', source_language: 'en' } };
    });
    await s.client.updateInstruction('s1', 'i1', { label: 'Tone', prompt: 'Be kinder.', sourceLanguage: 'en' });
    expect(sent).toEqual({ label: 'Tone', prompt: 'Be kinder.', source_language: 'en' });
  });
});

describe('deleting one custom instruction', () => {
  it.each([404, 405, 501])('a missing route (%i, empty body) is an http error carrying the status, for apply to fall back on', async (status) => {
    const s = setup();
    s.pool.intercept({ path: '/v3/style_rules/s1/custom_instructions/i1', method: 'DELETE' }).reply(status, '');
    const error = await s.client.deleteInstruction('s1', 'i1').catch((e: unknown) => e);
    expect(isServiceError(error) && [error.code, error.status, error.attempts]).toEqual([`http_${status}`, status, 1]);
  });

  it('204 where the route exists', async () => {
    const s = setup();
    s.pool.intercept({ path: '/v3/style_rules/s1/custom_instructions/i1', method: 'DELETE' }).reply(204, '');
    await expect(s.client.deleteInstruction('s1', 'i1')).resolves.toBeUndefined();
  });
});

describe('auth_scheme', () => {
  it.each([
    [undefined, 'Service-Auth-Key mock-key'],
    ['DeepL-Auth-Key', 'DeepL-Auth-Key mock-key'],
  ] as const)('scheme %s → Authorization: %s', async (scheme, header) => {
    const s = setup(scheme === undefined ? {} : { authScheme: scheme });
    let auth: unknown;
    s.pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply((opts) => {
      auth = (opts.headers as Record<string, string>)['authorization'];
      return { statusCode: 200, data: { glossaries: [] } };
    });
    await s.client.listGlossaries();
    expect(auth).toBe(header);
  });
});
