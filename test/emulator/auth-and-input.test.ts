/* eslint-disable @typescript-eslint/no-unsafe-member-access -- answers are untyped JSON read off the wire */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, createV3, errorBody, start } from './helpers.js';

/** Every endpoint of the spec, with a body where it takes one. */
const ENDPOINTS: Array<[string, string]> = [
  ['GET', '/v3/glossaries'],
  ['POST', '/v3/glossaries'],
  ['GET', '/v3/glossaries/x'],
  ['GET', '/v3/glossaries/x/entries'],
  ['PUT', '/v3/glossaries/x/dictionaries'],
  ['PATCH', '/v3/glossaries/x'],
  ['DELETE', '/v3/glossaries/x'],
  ['DELETE', '/v3/glossaries/x/dictionaries'],
  ['POST', '/v2/glossaries'],
  ['GET', '/v2/glossaries'],
  ['GET', '/v2/glossaries/x'],
  ['GET', '/v2/glossaries/x/entries'],
  ['DELETE', '/v2/glossaries/x'],
  ['GET', '/v2/glossary-language-pairs'],
  ['POST', '/v2/translate'],
  ['POST', '/v3/style_rules'],
  ['GET', '/v3/style_rules'],
  ['GET', '/v3/style_rules/x'],
  ['PATCH', '/v3/style_rules/x'],
  ['PUT', '/v3/style_rules/x/configured_rules'],
  ['DELETE', '/v3/style_rules/x'],
  ['POST', '/v3/style_rules/x/custom_instructions'],
  ['GET', '/v3/style_rules/x/custom_instructions/y'],
  ['PUT', '/v3/style_rules/x/custom_instructions/y'],
  ['POST', '/v2/write/rephrase'],
  ['POST', '/v2/write/correct'],
  ['GET', '/v3/languages'],
  ['GET', '/v2/languages'],
  ['GET', '/v3/translation_memories'],
];

const WRITES = new Set(['POST /v3/glossaries', 'PUT /v3/glossaries/x/dictionaries', 'PATCH /v3/glossaries/x', 'DELETE /v3/glossaries/x', 'DELETE /v3/glossaries/x/dictionaries', 'POST /v2/glossaries', 'DELETE /v2/glossaries/x', 'POST /v3/style_rules', 'PATCH /v3/style_rules/x', 'PUT /v3/style_rules/x/configured_rules', 'DELETE /v3/style_rules/x', 'POST /v3/style_rules/x/custom_instructions', 'PUT /v3/style_rules/x/custom_instructions/y']);

describe('authentication', () => {
  it('every endpoint answers 401 with an error body without a key, with a wrong scheme, or with an unknown key', async () => {
    const emu = await start({ keys: ['good'] });
    for (const [method, path] of ENDPOINTS) {
      for (const headers of [{}, { Authorization: 'Bearer good' }, { Authorization: 'Service-Auth-Key  good' }, { Authorization: 'Service-Auth-Key bad' }]) {
        const answer = await call(emu, method, path, { key: null, headers, ...(method === 'GET' ? {} : { json: {} }) });
        expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(errorBody(answer).message).toMatch(/Authorization/);
      }
    }
  });

  it('the scheme word is matched case-insensitively (as HTTP auth schemes are); the key is not', async () => {
    const emu = await start({ keys: ['Good'] });
    for (const scheme of ['service-auth-key', 'SERVICE-AUTH-KEY', 'Service-auth-Key']) {
      expect((await call(emu, 'GET', '/v3/glossaries', { key: null, headers: { Authorization: `${scheme} Good` } })).status, scheme).toBe(200);
    }
    expect((await call(emu, 'GET', '/v3/glossaries', { key: null, headers: { Authorization: 'Service-Auth-Key good' } })).status).toBe(401);
    expect((await call(emu, 'GET', '/v3/glossaries', { key: null, headers: { Authorization: 'ServiceAuthKey Good' } })).status).toBe(401);
  });

  it('a read-scoped key reads but every write answers 403', async () => {
    const emu = await start({ keys: ['full', 'reader=read'] });
    for (const [method, path] of ENDPOINTS) {
      const answer = await call(emu, method, path, { key: 'reader', ...(method === 'GET' ? {} : { json: {} }) });
      if (WRITES.has(`${method} ${path}`)) {
        expect(answer.status, `${method} ${path}`).toBe(403);
        expect(errorBody(answer).message).toMatch(/scoped to reads/);
      } else {
        expect(answer.status, `${method} ${path}`).not.toBe(403);
        expect(answer.status).not.toBe(401);
      }
    }
  });

  it('without --keys any non-empty key works and each key is its own account', async () => {
    const emu = await start();
    await createV3(emu, 'Mine', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }], 'alice');
    expect((await call(emu, 'GET', '/v3/glossaries', { key: 'alice' })).json.glossaries).toHaveLength(1);
    expect((await call(emu, 'GET', '/v3/glossaries', { key: 'bob' })).json.glossaries).toHaveLength(0);
    expect((await call(emu, 'GET', '/v3/glossaries', { key: null, headers: { Authorization: 'Service-Auth-Key ' } })).status).toBe(401);
  });
});

/** Sends raw bytes (fetch cannot send invalid UTF-8 in a string body). */
function rawRequest(url: string, method: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, headers: { ...headers, 'Content-Length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('bad input never crashes, hangs or answers 500', () => {
  it('malformed JSON → 400 with the parser reason on every endpoint that takes a body', async () => {
    const emu = await start();
    for (const [method, path] of ENDPOINTS.filter(([m]) => m === 'POST' || m === 'PUT' || m === 'PATCH')) {
      const answer = await call(emu, method, path, { body: '{"name": "x",', contentType: 'application/json' });
      // Unknown ids answer 404 before the body is read; everything else must reject the JSON.
      expect([400, 404], `${method} ${path}`).toContain(answer.status);
      errorBody(answer);
    }
    const answer = await call(emu, 'POST', '/v3/glossaries', { body: '{"name": ', contentType: 'application/json' });
    expect(answer.status).toBe(400);
    expect(errorBody(answer).message).toMatch(/^Malformed JSON body/);
  });

  it('other content types → 415 invalid_content_type; a charset other than UTF-8 → 415', async () => {
    const emu = await start();
    for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=latin1']) {
      const answer = await call(emu, 'POST', '/v3/style_rules', { body: '{"name":"x","language":"en"}', contentType });
      expect(answer.status, contentType).toBe(415);
      expect(errorBody(answer).code).toBe('invalid_content_type');
    }
    const none = await rawRequest(emu.url, 'POST', '/v3/style_rules', Buffer.from('{"name":"x","language":"en"}'), { Authorization: 'Service-Auth-Key k' });
    expect(none.status).toBe(415);
    expect((await call(emu, 'POST', '/v3/style_rules', { body: '{"name":"x","language":"en"}', contentType: 'application/json; charset=UTF-8' })).status).toBe(201);
  });

  it('invalid UTF-8 in a JSON or form body → 400', async () => {
    const emu = await start();
    const json = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","language":"en"}')]);
    const answer = await rawRequest(emu.url, 'POST', '/v3/style_rules', json, { Authorization: 'Service-Auth-Key k', 'Content-Type': 'application/json' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toEqual({ message: 'The request body is not valid UTF-8' });
    const form = await call(emu, 'POST', '/v3/style_rules', { form: 'name=%FF%FE&language=en' });
    expect(form.status).toBe(400);
    expect(errorBody(form).message).toMatch(/percent-encoding/);
    const lone = await call(emu, 'POST', '/v3/style_rules', { body: '{"name":"\\ud800","language":"en"}', contentType: 'application/json' });
    expect(lone.status).toBe(400);
    expect(errorBody(lone).message).toMatch(/surrogate/);
  });

  it('deeply nested JSON, wrong types, absurd values → 400', async () => {
    const emu = await start();
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const nested = await call(emu, 'POST', '/v3/glossaries', { body: deep, contentType: 'application/json' });
    expect(nested.status).toBe(400);
    for (const json of [null, 42, true, { name: ['x'], dictionaries: [] }, { name: 'x', dictionaries: [{ source_lang: 5, target_lang: 'de', entries: 'a\tb' }] }]) {
      const answer = await call(emu, 'POST', '/v3/glossaries', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      errorBody(answer);
    }
  });

  it('deeply nested form keys → 400 "nested too deeply", never a stack overflow', async () => {
    const emu = await start();
    const dotted = `a${'.b'.repeat(2000)}=1`;
    const bracketed = `a${'[0]'.repeat(2000)}=1`;
    for (const [path, form] of [
      ['/v2/write/rephrase', dotted],
      ['/v2/write/rephrase', bracketed],
      ['/v3/glossaries', dotted],
      ['/v3/style_rules', `name=x&language=en&configured_rules${'[c]'.repeat(17)}=v`],
    ] as const) {
      const answer = await call(emu, 'POST', path, { form });
      expect(answer.status, `${path} ${form.slice(0, 30)}`).toBe(400);
      expect(errorBody(answer).message).toMatch(/nested too deeply: more than 16 levels/);
    }
    // 16 levels is still a well-formed form (here an unknown field of the style-rule body).
    const ok = await call(emu, 'POST', '/v3/style_rules', { form: `name=x&language=en&configured_rules${'[c]'.repeat(14)}=v` });
    expect(ok.status).toBe(400);
    expect(errorBody(ok).message).toMatch(/to be an option name/);
  });

  it('language codes are case-insensitive but whitespace is not part of a code → 400', async () => {
    const emu = await start();
    expect((await createV3(emu, 'ok', [{ source_lang: 'EN', target_lang: 'De', entries: 'a\tb' }])).status).toBe(201);
    for (const [source, target] of [[' en', 'de'], ['en', 'de '], ['en\t', 'de']] as const) {
      const answer = await createV3(emu, 'x', [{ source_lang: source, target_lang: target, entries: 'a\tb' }]);
      expect(answer.status, JSON.stringify([source, target])).toBe(400);
      expect(errorBody(answer).message).toMatch(/Unsupported (source|target)_lang/);
    }
    const v2 = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'x', source_lang: 'en ', target_lang: 'de', entries: 'a\tb' } });
    expect(v2.status).toBe(400);
    expect((await call(emu, 'POST', '/v3/style_rules', { json: { name: 'x', language: ' en' } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v3/style_rules', { json: { name: 'x', language: 'EN' } })).status).toBe(201);
    expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'en-GB ' } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v2/write/correct', { json: { text: ['x'], target_lang: ' de' } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v2/translate', { json: { text: ['x'], target_lang: 'DE ' } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v2/translate', { json: { text: ['x'], source_lang: ' EN', target_lang: 'DE' } })).status).toBe(400);
    // A CSV language column with whitespace does not name the pair, so rule 4 ignores that entry.
    const csv = await createV3(emu, 'csv', [{ source_lang: 'en', target_lang: 'de', entries_format: 'csv', entries: 'a,b,EN,DE\nc,d, en,de' }]);
    expect(csv.status).toBe(201);
    expect(csv.json.dictionaries[0].entry_count).toBe(1);
  });

  it('empty body where one is required → 400; unknown path → 404; unsupported method → 405', async () => {
    const emu = await start();
    const empty = await call(emu, 'POST', '/v3/glossaries', { contentType: 'application/json' });
    expect(empty.status).toBe(400);
    expect(errorBody(empty).message).toMatch(/empty body/);
    const unknown = await call(emu, 'GET', '/v4/glossaries');
    expect(unknown.status).toBe(404);
    errorBody(unknown);
    expect((await call(emu, 'GET', '/v3/glossaries/')).status).toBe(404);
    expect((await call(emu, 'GET', '/v3/glossaries/%E0%A4%A')).status).toBe(400);
    const put = await call(emu, 'PUT', '/v3/glossaries', { json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST');
    for (const method of ['OPTIONS', 'HEAD']) expect((await call(emu, method, '/v3/glossaries')).status).toBe(405);
  });

  it('bodies over the endpoint limit → 413 (style rules: 1 MiB)', async () => {
    const emu = await start();
    const answer = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'x'.repeat(1024 * 1024), language: 'en' } });
    expect(answer.status).toBe(413);
    errorBody(answer);
  });

  it('a client that disconnects mid-body does not take the server down', async () => {
    const emu = await start();
    await new Promise<void>((resolve) => {
      const req = request(`${emu.url}/v3/glossaries`, { method: 'POST', headers: { 'Content-Length': '1000', Authorization: 'Service-Auth-Key k', 'Content-Type': 'application/json' } });
      req.on('error', () => resolve());
      req.write('{"name":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 20);
    });
    expect((await call(emu, 'GET', '/v3/glossaries')).status).toBe(200);
  });

  it('serves many concurrent clients', async () => {
    const emu = await start();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => createV3(emu, `G${i}`, [{ source_lang: 'en', target_lang: 'de', entries: `a${i}\tb` }], `key-${i % 5}`)),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect((await call(emu, 'GET', '/v3/glossaries', { key: 'key-0' })).json.glossaries).toHaveLength(20);
  });
});
