/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { ISO_MS, UUID, call, errorBody, start } from './helpers.js';

describe('v2 glossaries', () => {
  const body = { name: 'Legacy', source_lang: 'EN', target_lang: 'DE', entries: 'hello\tHallo\nbye\tTschüss' };

  it('create returns 201 with the v2 glossary shape; get and list return it', async () => {
    const emu = await start();
    const created = await call(emu, 'POST', '/v2/glossaries', { json: body });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual(['glossary_id', 'ready', 'name', 'source_lang', 'target_lang', 'creation_time', 'entry_count']);
    // Codes come back uppercase, as in the spec's v2 sample (v3 answers lowercase).
    expect(created.json).toMatchObject({ ready: true, name: 'Legacy', source_lang: 'EN', target_lang: 'DE', entry_count: 2 });
    expect(created.json.glossary_id).toMatch(UUID);
    expect(created.json.creation_time).toMatch(ISO_MS);
    const got = await call(emu, 'GET', `/v2/glossaries/${created.json.glossary_id}`);
    expect(got.json).toEqual(created.json);
    const list = await call(emu, 'GET', '/v2/glossaries');
    expect(list.json).toEqual({ glossaries: [created.json] });
    const lower = await call(emu, 'POST', '/v2/glossaries', { json: { ...body, source_lang: 'en', target_lang: 'de' } });
    expect(lower.json).toMatchObject({ source_lang: 'EN', target_lang: 'DE' });
  });

  it('entries_format defaults to tsv and accepts csv', async () => {
    const emu = await start();
    const csv = await call(emu, 'POST', '/v2/glossaries', {
      json: { name: 'C', source_lang: 'en', target_lang: 'de', entries: '"a, b","c ""d"""', entries_format: 'csv' },
    });
    expect(csv.json.entry_count).toBe(1);
    const entries = await call(emu, 'GET', `/v2/glossaries/${csv.json.glossary_id}/entries`, { headers: { Accept: 'text/tab-separated-values' } });
    expect(entries.text).toBe('a, b\tc "d"');
    const asTsv = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'T', source_lang: 'en', target_lang: 'de', entries: 'a,b' } });
    expect(asTsv.status).toBe(400);
    expect(errorBody(asTsv).detail).toMatch(/no tab/);
  });

  it('entries: TSV text for the TSV media type, */* or no Accept; anything else → 415', async () => {
    const emu = await start();
    const created = await call(emu, 'POST', '/v2/glossaries', { json: body });
    const path = `/v2/glossaries/${created.json.glossary_id}/entries`;
    const tsv = await call(emu, 'GET', path, { headers: { Accept: 'text/tab-separated-values' } });
    expect(tsv.status).toBe(200);
    expect(tsv.headers.get('content-type')).toMatch(/^text\/tab-separated-values/);
    expect(tsv.text).toBe('hello\tHallo\nbye\tTschüss');
    expect((await call(emu, 'GET', path, { headers: { Accept: '*/*' } })).status).toBe(200);
    expect((await call(emu, 'GET', path)).status).toBe(200);
    for (const accept of ['text/csv', 'application/json']) {
      const answer = await call(emu, 'GET', path, { headers: { Accept: accept } });
      expect(answer.status, accept).toBe(415);
      expect(errorBody(answer).message).toMatch(/Accept/);
    }
  });

  it('delete → 204, then 404; a v2 glossary is visible through v3 with the same id', async () => {
    const emu = await start();
    const created = await call(emu, 'POST', '/v2/glossaries', { json: body });
    const id = created.json.glossary_id as string;
    const v3 = await call(emu, 'GET', `/v3/glossaries/${id}`);
    expect(v3.status).toBe(200);
    expect(v3.json).toEqual({ glossary_id: id, name: 'Legacy', dictionaries: [{ source_lang: 'en', target_lang: 'de', entry_count: 2 }], creation_time: created.json.creation_time });
    const v3Entries = await call(emu, 'GET', `/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`);
    expect(v3Entries.json.dictionaries[0].entries).toBe('hello\tHallo\nbye\tTschüss');
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries.map((g: { glossary_id: string }) => g.glossary_id)).toEqual([id]);
    const deleted = await call(emu, 'DELETE', `/v2/glossaries/${id}`);
    expect(deleted.status).toBe(204);
    expect((await call(emu, 'GET', `/v2/glossaries/${id}`)).status).toBe(404);
    expect((await call(emu, 'GET', `/v3/glossaries/${id}`)).status).toBe(404);
  });

  it('v2 has no update endpoint: PUT/PATCH → 405 with the allowed methods', async () => {
    const emu = await start();
    const created = await call(emu, 'POST', '/v2/glossaries', { json: body });
    const answer = await call(emu, 'PATCH', `/v2/glossaries/${created.json.glossary_id}`, { json: { name: 'x' } });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, DELETE');
    expect(errorBody(answer).message).toMatch(/not supported/);
  });

  it('create validation: required fields and unknown fields', async () => {
    const emu = await start();
    for (const [json, message] of [
      [{ ...body, name: undefined }, /`name`/],
      [{ ...body, source_lang: undefined }, /`source_lang`/],
      [{ ...body, entries: undefined }, /`entries`/],
      [{ ...body, dictionaries: [] }, /Unknown field `dictionaries`/],
      [{ ...body, entry_count: 2 }, /Unknown field `entry_count`/],
    ] as const) {
      const answer = await call(emu, 'POST', '/v2/glossaries', { json });
      expect(answer.status).toBe(400);
      expect(errorBody(answer).message).toMatch(message);
    }
  });

  it('glossary-language-pairs lists every ordered pair of distinct supported languages', async () => {
    const emu = await start();
    const answer = await call(emu, 'GET', '/v2/glossary-language-pairs');
    expect(answer.status).toBe(200);
    const pairs = answer.json.supported_languages as Array<{ source_lang: string; target_lang: string }>;
    expect(pairs).toContainEqual({ source_lang: 'en', target_lang: 'de' });
    expect(pairs).toContainEqual({ source_lang: 'ja', target_lang: 'zh' });
    expect(pairs.some((p) => p.source_lang === p.target_lang)).toBe(false);
    expect(pairs.some((p) => p.source_lang === 'th' || p.target_lang === 'th')).toBe(false);
    expect(pairs).toHaveLength(32 * 31);
  });
});
