/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { ISO_MS, UUID, call, createV3, errorBody, start } from './helpers.js';

describe('v3 glossaries', () => {
  it('create returns 201 with glossary_id, ready, name, dictionaries with entry_count, creation_time', async () => {
    const emu = await start();
    const created = await createV3(emu, 'Product terms', [
      { source_lang: 'EN', target_lang: 'De', entries: 'checkout\tKasse\ncart\tWarenkorb\n' },
      { source_lang: 'en', target_lang: 'fr', entries: 'checkout,paiement', entries_format: 'csv' },
    ]);
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual(['glossary_id', 'ready', 'name', 'dictionaries', 'creation_time']);
    expect(created.json.glossary_id).toMatch(UUID);
    expect(created.json.ready).toBe(true);
    expect(created.json.name).toBe('Product terms');
    expect(created.json.creation_time).toMatch(ISO_MS);
    expect(created.json.dictionaries).toEqual([
      { source_lang: 'en', target_lang: 'de', entry_count: 2 },
      { source_lang: 'en', target_lang: 'fr', entry_count: 1 },
    ]);
  });

  it('list returns every glossary without entries; get returns the metadata with X-Trace-ID', async () => {
    const emu = await start();
    const a = await createV3(emu, 'A', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    await createV3(emu, 'B', [{ source_lang: 'de', target_lang: 'en', entries: 'x\ty' }]);
    const list = await call(emu, 'GET', '/v3/glossaries');
    expect(list.status).toBe(200);
    expect(list.json.glossaries.map((g: { name: string }) => g.name)).toEqual(['A', 'B']);
    for (const g of list.json.glossaries) expect(Object.keys(g)).toEqual(['glossary_id', 'name', 'dictionaries', 'creation_time']);
    const got = await call(emu, 'GET', `/v3/glossaries/${a.json.glossary_id}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('x-trace-id')).toMatch(UUID);
    expect(got.json).toEqual({
      glossary_id: a.json.glossary_id,
      name: 'A',
      dictionaries: [{ source_lang: 'en', target_lang: 'de', entry_count: 1 }],
      creation_time: a.json.creation_time,
    });
    const again = await call(emu, 'GET', `/v3/glossaries/${a.json.glossary_id}`);
    expect(again.headers.get('x-trace-id')).not.toBe(got.headers.get('x-trace-id'));
  });

  it('get entries returns one dictionary as TSV, phrases trimmed, in submission order', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'b\tB\r\n  a \t A\n\nc\tC' }]);
    const entries = await call(emu, 'GET', `/v3/glossaries/${g.json.glossary_id}/entries?source_lang=EN&target_lang=de`);
    expect(entries.status).toBe(200);
    expect(entries.json).toEqual({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'b\tB\na\tA\nc\tC', entries_format: 'tsv' }] });
  });

  it('get entries: 400 without the pair, 404 for a pair the glossary lacks', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    const id = g.json.glossary_id as string;
    const missing = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en`);
    expect(missing.status).toBe(400);
    expect(errorBody(missing).message).toMatch(/source_lang.*target_lang/);
    const other = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=fr`);
    expect(other.status).toBe(404);
    expect(errorBody(other).message).toMatch(/no dictionary en → fr/);
  });

  it('PUT adds a missing dictionary and replaces an existing one outright', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA\nb\tB' }]);
    const id = g.json.glossary_id as string;
    const added = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { json: { source_lang: 'en', target_lang: 'fr', entries: 'a\tfa' } });
    expect(added.status).toBe(200);
    expect(added.json).toEqual({ source_lang: 'en', target_lang: 'fr', entry_count: 1 });
    const replaced = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, {
      json: { source_lang: 'EN', target_lang: 'DE', entries: '"c",C', entries_format: 'csv' },
    });
    expect(replaced.json).toEqual({ source_lang: 'en', target_lang: 'de', entry_count: 1 });
    const entries = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`);
    expect(entries.json.dictionaries[0].entries).toBe('c\tC');
    const meta = await call(emu, 'GET', `/v3/glossaries/${id}`);
    expect(meta.json.dictionaries).toEqual([
      { source_lang: 'en', target_lang: 'de', entry_count: 1 },
      { source_lang: 'en', target_lang: 'fr', entry_count: 1 },
    ]);
  });

  it('PATCH merges: new sources added, existing replaced in place, entry_count after the merge', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA\nb\tB' }]);
    const id = g.json.glossary_id as string;
    const patched = await call(emu, 'PATCH', `/v3/glossaries/${id}`, {
      json: { dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'b\tB2\nc\tC' }] },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual({
      glossary_id: id,
      name: 'G',
      dictionaries: [{ source_lang: 'en', target_lang: 'de', entry_count: 3 }],
      creation_time: g.json.creation_time,
    });
    const entries = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`);
    expect(entries.json.dictionaries[0].entries).toBe('a\tA\nb\tB2\nc\tC');
  });

  it('PATCH with only name renames; with both renames and merges; with a new pair adds it', async () => {
    const emu = await start();
    const g = await createV3(emu, 'Old', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA' }]);
    const id = g.json.glossary_id as string;
    const renamed = await call(emu, 'PATCH', `/v3/glossaries/${id}`, { json: { name: 'New' } });
    expect(renamed.json.name).toBe('New');
    expect(renamed.json.dictionaries).toEqual([{ source_lang: 'en', target_lang: 'de', entry_count: 1 }]);
    const both = await call(emu, 'PATCH', `/v3/glossaries/${id}`, {
      json: { name: 'Newer', dictionaries: [{ source_lang: 'en', target_lang: 'it', entries: 'a\tAi' }] },
    });
    expect(both.json.name).toBe('Newer');
    expect(both.json.dictionaries).toHaveLength(2);
  });

  it('PATCH and PUT change one dictionary per call; PATCH needs something to change', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA' }]);
    const id = g.json.glossary_id as string;
    const two = await call(emu, 'PATCH', `/v3/glossaries/${id}`, {
      json: {
        dictionaries: [
          { source_lang: 'en', target_lang: 'de', entries: 'b\tB' },
          { source_lang: 'en', target_lang: 'fr', entries: 'b\tB' },
        ],
      },
    });
    expect(two.status).toBe(400);
    expect(errorBody(two).message).toMatch(/exactly one dictionary/);
    const nothing = await call(emu, 'PATCH', `/v3/glossaries/${id}`, { json: {} });
    expect(nothing.status).toBe(400);
    const arrayPut = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { json: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }] });
    expect(arrayPut.status).toBe(400);
    expect(errorBody(arrayPut).message).toMatch(/to be an object, got an array/);
    // Nothing changed.
    const entries = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`);
    expect(entries.json.dictionaries[0].entries).toBe('a\tA');
  });

  it('DELETE glossary → 204 then 404; DELETE dictionary → 204, then the pair is gone', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [
      { source_lang: 'en', target_lang: 'de', entries: 'a\tA' },
      { source_lang: 'en', target_lang: 'fr', entries: 'a\tA' },
    ]);
    const id = g.json.glossary_id as string;
    const dropped = await call(emu, 'DELETE', `/v3/glossaries/${id}/dictionaries?source_lang=en&target_lang=fr`);
    expect(dropped.status).toBe(204);
    expect(dropped.text).toBe('');
    const again = await call(emu, 'DELETE', `/v3/glossaries/${id}/dictionaries?source_lang=en&target_lang=fr`);
    expect(again.status).toBe(404);
    const noPair = await call(emu, 'DELETE', `/v3/glossaries/${id}/dictionaries`);
    expect(noPair.status).toBe(400);
    expect((await call(emu, 'GET', `/v3/glossaries/${id}`)).json.dictionaries).toEqual([{ source_lang: 'en', target_lang: 'de', entry_count: 1 }]);
    const deleted = await call(emu, 'DELETE', `/v3/glossaries/${id}`);
    expect(deleted.status).toBe(204);
    expect((await call(emu, 'GET', `/v3/glossaries/${id}`)).status).toBe(404);
    expect((await call(emu, 'DELETE', `/v3/glossaries/${id}`)).status).toBe(404);
  });

  it('deleting the last dictionary is allowed: the glossary stays, empty, and a PUT fills it again', async () => {
    const emu = await start();
    const g = await createV3(emu, 'Solo', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA' }]);
    const id = g.json.glossary_id as string;
    expect((await call(emu, 'DELETE', `/v3/glossaries/${id}/dictionaries?source_lang=en&target_lang=de`)).status).toBe(204);
    const empty = await call(emu, 'GET', `/v3/glossaries/${id}`);
    expect(empty.status).toBe(200);
    expect(empty.json).toMatchObject({ glossary_id: id, name: 'Solo', dictionaries: [] });
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toHaveLength(1);
    // v2 sees only one-dictionary glossaries; translation finds no dictionary.
    expect((await call(emu, 'GET', `/v2/glossaries/${id}`)).status).toBe(404);
    expect((await call(emu, 'GET', '/v2/glossaries')).json.glossaries).toEqual([]);
    expect((await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`)).status).toBe(404);
    const translate = await call(emu, 'POST', '/v2/translate', { json: { text: ['a'], source_lang: 'en', target_lang: 'de', glossary_id: id } });
    expect(translate.status).toBe(400);
    const put = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { json: { source_lang: 'en', target_lang: 'fr', entries: 'a\tB' } });
    expect(put.status).toBe(200);
    expect((await call(emu, 'GET', `/v3/glossaries/${id}`)).json.dictionaries).toEqual([{ source_lang: 'en', target_lang: 'fr', entry_count: 1 }]);
  });

  it('X-Trace-ID is sent by get glossary details only, not by any other endpoint', async () => {
    const emu = await start();
    const id = (await call(emu, 'POST', '/v2/glossaries', { json: { name: 'T', source_lang: 'en', target_lang: 'de', entries: 'a\tb' } })).json.glossary_id as string;
    const style = (await call(emu, 'POST', '/v3/style_rules', { json: { name: 'S', language: 'en', custom_instructions: [{ label: 'L', prompt: 'P' }] } })).json;
    const styleId = style.style_id as string;
    const instructionId = style.custom_instructions[0].id as string;
    const pair = 'source_lang=en&target_lang=de';
    const reads = [
      '/v3/glossaries',
      `/v3/glossaries/${id}/entries?${pair}`,
      '/v2/glossaries',
      `/v2/glossaries/${id}`,
      `/v2/glossaries/${id}/entries`,
      '/v2/glossary-language-pairs',
      '/v3/style_rules',
      `/v3/style_rules/${styleId}`,
      `/v3/style_rules/${styleId}/custom_instructions/${instructionId}`,
      '/v3/languages?resource=glossary',
      '/v2/languages?type=target',
      '/v3/translation_memories',
    ];
    for (const path of reads) {
      const answer = await call(emu, 'GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('x-trace-id'), path).toBeNull();
    }
    const writes: Array<[string, string, unknown]> = [
      ['POST', '/v3/glossaries', { name: 'N', dictionaries: [{ source_lang: 'en', target_lang: 'fr', entries: 'a\tb' }] }],
      ['PUT', `/v3/glossaries/${id}/dictionaries`, { source_lang: 'en', target_lang: 'de', entries: 'a\tc' }],
      ['PATCH', `/v3/glossaries/${id}`, { name: 'T2' }],
      ['POST', '/v2/translate', { text: ['a'], target_lang: 'de' }],
      ['POST', '/v2/write/rephrase', { text: ['a'], target_lang: 'de' }],
      ['POST', '/v2/write/correct', { text: ['a'] }],
      ['PATCH', `/v3/style_rules/${styleId}`, { name: 'S2' }],
    ];
    for (const [method, path, json] of writes) {
      const answer = await call(emu, method, path, { json });
      expect(answer.status, `${method} ${path}`).toBeLessThan(300);
      expect(answer.headers.get('x-trace-id'), `${method} ${path}`).toBeNull();
    }
    expect((await call(emu, 'GET', `/v3/glossaries/${id}`)).headers.get('x-trace-id')).toMatch(UUID);
    expect((await call(emu, 'DELETE', `/v3/glossaries/${id}`)).headers.get('x-trace-id')).toBeNull();
  });

  it('unknown ids → 404 with an error body on every glossary endpoint', async () => {
    const emu = await start();
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, path, json] of [
      ['GET', `/v3/glossaries/${id}`, undefined],
      ['GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`, undefined],
      ['PUT', `/v3/glossaries/${id}/dictionaries`, { source_lang: 'en', target_lang: 'de', entries: 'a\tb' }],
      ['PATCH', `/v3/glossaries/${id}`, { name: 'x' }],
      ['DELETE', `/v3/glossaries/${id}`, undefined],
      ['DELETE', `/v3/glossaries/${id}/dictionaries?source_lang=en&target_lang=de`, undefined],
      ['GET', `/v2/glossaries/${id}`, undefined],
      ['GET', `/v2/glossaries/${id}/entries`, undefined],
      ['DELETE', `/v2/glossaries/${id}`, undefined],
    ] as const) {
      const answer = await call(emu, method, path, json === undefined ? {} : { json });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(errorBody(answer).message).toMatch(/not found/i);
    }
  });

  it('create validation: required fields, types, unknown fields, language enumeration, duplicate pairs', async () => {
    const emu = await start();
    const cases: Array<[unknown, RegExp]> = [
      [{ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }] }, /Missing required field `name`/],
      [{ name: 'x' }, /Missing required field `dictionaries`/],
      [{ name: 'x', dictionaries: [] }, /at least one dictionary/],
      [{ name: 7, dictionaries: [] }, /`name` to be a string, got a number/],
      [{ name: 'x', dictionaries: 'en-de' }, /`dictionaries` to be an array, got a string/],
      [{ name: 'x', dictionaries: [null] }, /dictionaries\[0\] to be an object, got null/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de' }] }, /Missing required field `entries` of dictionaries\[0\]/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: ['a', 'b'] }] }, /`entries` of dictionaries\[0\] to be a string, got an array/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'xx', entries: 'a\tb' }] }, /Unsupported target_lang "xx"/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'th', entries: 'a\tb' }] }, /Thai/],
      [{ name: 'x', dictionaries: [{ source_lang: 'de', target_lang: 'DE', entries: 'a\tb' }] }, /two different languages/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb', entries_format: 'xlsx' }] }, /entries_format.*"xlsx"/],
      [{ name: 'x', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb', colour: 'red' }] }, /Unknown field `colour` of dictionaries\[0\]/],
      [{ name: 'x', extra: 1, dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }] }, /Unknown field `extra`/],
      [
        {
          name: 'x',
          dictionaries: [
            { source_lang: 'en', target_lang: 'de', entries: 'a\tb' },
            { source_lang: 'EN', target_lang: 'de', entries: 'c\td' },
          ],
        },
        /repeats the language pair en → de/,
      ],
      [{ name: '', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }] }, /`name` must not be empty/],
      [[1, 2], /request body to be an object, got an array/],
      ['just a string', /request body to be an object, got a string/],
    ];
    for (const [json, message] of cases) {
      const answer = await call(emu, 'POST', '/v3/glossaries', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(errorBody(answer).message).toMatch(message);
    }
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
  });

  it('accepts form bodies with dictionaries[0].source_lang=… keys (as official clients send them)', async () => {
    const emu = await start();
    const form = new URLSearchParams({
      name: 'Form glossary',
      'dictionaries[0].source_lang': 'en',
      'dictionaries[0].target_lang': 'de',
      'dictionaries[0].entries': 'hello\tHallo\nbye\tTschüss',
      'dictionaries[0].entries_format': 'tsv',
      'dictionaries[1].source_lang': 'en',
      'dictionaries[1].target_lang': 'fr',
      'dictionaries[1].entries': 'hello,bonjour',
      'dictionaries[1].entries_format': 'csv',
    }).toString();
    const created = await call(emu, 'POST', '/v3/glossaries', { form });
    expect(created.status).toBe(201);
    expect(created.json.dictionaries).toEqual([
      { source_lang: 'en', target_lang: 'de', entry_count: 2 },
      { source_lang: 'en', target_lang: 'fr', entry_count: 1 },
    ]);
    const id = created.json.glossary_id as string;
    const patch = new URLSearchParams({
      'dictionaries[0].source_lang': 'en',
      'dictionaries[0].target_lang': 'de',
      'dictionaries[0].entries': 'yes\tJa',
    }).toString();
    const patched = await call(emu, 'PATCH', `/v3/glossaries/${id}`, { form: patch });
    expect(patched.json.dictionaries[0]).toEqual({ source_lang: 'en', target_lang: 'de', entry_count: 3 });
    const put = await call(emu, 'PUT', `/v3/glossaries/${id}/dictionaries`, { form: 'source_lang=en&target_lang=fr&entries=a%2Cb&entries_format=csv' });
    expect(put.json).toEqual({ source_lang: 'en', target_lang: 'fr', entry_count: 1 });
    const gap = await call(emu, 'POST', '/v3/glossaries', { form: 'name=x&dictionaries[1].source_lang=en' });
    expect(gap.status).toBe(400);
    expect(errorBody(gap).message).toMatch(/gap: index 0 is missing/);
    const huge = await call(emu, 'POST', '/v3/glossaries', { form: 'name=x&dictionaries[99999999999].source_lang=en' });
    expect(huge.status).toBe(400);
    const clash = await call(emu, 'POST', '/v3/glossaries', { form: 'name=x&name.first=y' });
    expect(clash.status).toBe(400);
    expect(errorBody(clash).message).toMatch(/conflicts/);
  });

  it('a v3 glossary with one dictionary is visible through v2 with the same id; a multilingual one is not', async () => {
    const emu = await start();
    const one = await createV3(emu, 'One', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tA' }]);
    const two = await createV3(emu, 'Two', [
      { source_lang: 'en', target_lang: 'de', entries: 'a\tA' },
      { source_lang: 'en', target_lang: 'fr', entries: 'a\tA' },
    ]);
    const v2 = await call(emu, 'GET', '/v2/glossaries');
    expect(v2.json.glossaries.map((g: { glossary_id: string }) => g.glossary_id)).toEqual([one.json.glossary_id]);
    expect((await call(emu, 'GET', `/v2/glossaries/${one.json.glossary_id}`)).json).toMatchObject({ name: 'One', source_lang: 'EN', target_lang: 'DE', entry_count: 1 });
    expect((await call(emu, 'GET', `/v2/glossaries/${two.json.glossary_id}`)).status).toBe(404);
    expect((await call(emu, 'DELETE', `/v2/glossaries/${two.json.glossary_id}`)).status).toBe(404);
    expect((await call(emu, 'GET', `/v3/glossaries/${two.json.glossary_id}`)).status).toBe(200);
  });
});
