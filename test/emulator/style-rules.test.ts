/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { FakeClock, ISO_MS, UUID, call, errorBody, start } from './helpers.js';

const rules = { punctuation: { apostrophe: 'use_curly_apostrophes' }, dates_and_times: { calendar_era: 'use_bc_and_ad' } };

describe('style rules', () => {
  it('create → 201 with the full list at version 1; language case-insensitive, lowercase out', async () => {
    const clock = new FakeClock();
    const emu = await start({ clock });
    const created = await call(emu, 'POST', '/v3/style_rules', {
      json: { name: 'Marketing', language: 'DE', configured_rules: rules, custom_instructions: [{ label: 'Formal', prompt: 'Use Sie.', source_language: 'en' }] },
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual(['style_id', 'name', 'creation_time', 'updated_time', 'language', 'version', 'configured_rules', 'custom_instructions']);
    expect(created.json).toMatchObject({ name: 'Marketing', language: 'de', version: 1, configured_rules: rules });
    expect(created.json.style_id).toMatch(UUID);
    expect(created.json.creation_time).toMatch(ISO_MS);
    expect(created.json.updated_time).toBe(created.json.creation_time);
    expect(created.json.custom_instructions).toEqual([{ id: expect.stringMatching(UUID), label: 'Formal', prompt: 'Use Sie.', source_language: 'en' }]);
    const minimal = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'Min', language: 'en' } });
    expect(minimal.json).toMatchObject({ configured_rules: {}, custom_instructions: [], version: 1 });
  });

  it('every modification increments version and moves updated_time; PUT rules leaves instructions alone', async () => {
    const clock = new FakeClock();
    const emu = await start({ clock });
    const created = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'A', language: 'fr', custom_instructions: [{ label: 'L', prompt: 'P' }] } });
    const id = created.json.style_id as string;
    clock.advance(1000);
    const renamed = await call(emu, 'PATCH', `/v3/style_rules/${id}`, { json: { name: 'B' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'B', version: 2, creation_time: created.json.creation_time });
    expect(renamed.json.updated_time).toBe(new Date(clock.now()).toISOString());
    clock.advance(1000);
    const put = await call(emu, 'PUT', `/v3/style_rules/${id}/configured_rules`, { json: rules });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ version: 3, configured_rules: rules });
    expect(put.json.custom_instructions).toEqual(created.json.custom_instructions);
    const replaced = await call(emu, 'PUT', `/v3/style_rules/${id}/configured_rules`, { json: { style_and_tone: { abbreviations: 'use_abbreviations_and_symbols' } } });
    expect(replaced.json.configured_rules).toEqual({ style_and_tone: { abbreviations: 'use_abbreviations_and_symbols' } });
    expect(replaced.json.version).toBe(4);
    clock.advance(1000);
    const added = await call(emu, 'POST', `/v3/style_rules/${id}/custom_instructions`, { json: { label: 'New', prompt: 'Be brief.' } });
    expect(added.status).toBe(201);
    expect(added.json.version).toBe(5);
    const instruction = added.json.custom_instructions[1];
    expect(instruction).toEqual({ id: expect.stringMatching(UUID), label: 'New', prompt: 'Be brief.' });
    const got = await call(emu, 'GET', `/v3/style_rules/${id}/custom_instructions/${instruction.id}`);
    expect(got.json).toEqual(instruction);
    const updated = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/${instruction.id}`, { json: { label: 'New', prompt: 'Be briefer.' } });
    expect(updated.status).toBe(200);
    expect(updated.json).toEqual({ ...instruction, prompt: 'Be briefer.' });
    const first = created.json.custom_instructions[0];
    const kept = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/${first.id}`, { json: { label: 'L2', prompt: 'P2' } });
    expect(kept.json).toEqual({ id: first.id, label: 'L2', prompt: 'P2' });
    const withSource = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/${first.id}`, { json: { label: 'L2', prompt: 'P2', source_language: 'de' } });
    expect(withSource.json).toEqual({ id: first.id, label: 'L2', prompt: 'P2', source_language: 'de' });
    // There is no endpoint that removes an instruction.
    const remove = await call(emu, 'DELETE', `/v3/style_rules/${id}/custom_instructions/${first.id}`);
    expect(remove.status).toBe(405);
    expect(remove.headers.get('allow')).toBe('GET, PUT');
    const full = await call(emu, 'GET', `/v3/style_rules/${id}`);
    expect(full.json.version).toBe(8);
    expect(full.json.updated_time).toBe(new Date(clock.now()).toISOString());
  });

  it('list: summaries by default, details with detailed=true, pages of page_size from page 0', async () => {
    const emu = await start();
    for (let i = 0; i < 12; i++) await call(emu, 'POST', '/v3/style_rules', { json: { name: `L${i}`, language: 'en' } });
    const first = await call(emu, 'GET', '/v3/style_rules');
    expect(first.json.style_rules).toHaveLength(10);
    expect(Object.keys(first.json.style_rules[0])).toEqual(['style_id', 'name', 'creation_time', 'updated_time', 'language', 'version']);
    const second = await call(emu, 'GET', '/v3/style_rules?page=1');
    expect(second.json.style_rules.map((s: { name: string }) => s.name)).toEqual(['L10', 'L11']);
    const detailed = await call(emu, 'GET', '/v3/style_rules?detailed=true&page_size=25');
    expect(detailed.json.style_rules).toHaveLength(12);
    expect(detailed.json.style_rules[0]).toHaveProperty('configured_rules');
    expect(detailed.json.style_rules[0]).toHaveProperty('custom_instructions');
    expect((await call(emu, 'GET', '/v3/style_rules?page_size=1')).json.style_rules).toHaveLength(1);
    expect((await call(emu, 'GET', '/v3/style_rules?page=5')).json.style_rules).toEqual([]);
  });

  it('list rejects page_size outside 1–25, bad pages and bad booleans with 400', async () => {
    const emu = await start();
    for (const query of ['page_size=0', 'page_size=26', 'page_size=abc', 'page_size=1e3', 'page_size=99999999999999999999', 'page=-1', 'page=1.5', 'detailed=yes']) {
      const answer = await call(emu, 'GET', `/v3/style_rules?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorBody(answer).message).toMatch(/page|detailed/);
    }
  });

  it('an unknown instruction id under an existing list → 404 (GET and PUT); the list is untouched', async () => {
    const emu = await start();
    const created = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'A', language: 'en', custom_instructions: [{ label: 'L', prompt: 'P' }] } });
    const id = created.json.style_id as string;
    const get = await call(emu, 'GET', `/v3/style_rules/${id}/custom_instructions/nope`);
    expect(get.status).toBe(404);
    expect(errorBody(get).message).toMatch(/nope/);
    const put = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/nope`, { json: { label: 'x', prompt: 'y' } });
    expect(put.status).toBe(404);
    errorBody(put);
    const after = await call(emu, 'GET', `/v3/style_rules/${id}`);
    expect(after.json.version).toBe(1);
    expect(after.json.custom_instructions).toEqual(created.json.custom_instructions);
  });

  it('delete → 204 with an empty body, then 404 everywhere', async () => {
    const emu = await start();
    const id = (await call(emu, 'POST', '/v3/style_rules', { json: { name: 'A', language: 'en' } })).json.style_id as string;
    const deleted = await call(emu, 'DELETE', `/v3/style_rules/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const [method, path, json] of [
      ['GET', `/v3/style_rules/${id}`, undefined],
      ['DELETE', `/v3/style_rules/${id}`, undefined],
      ['PATCH', `/v3/style_rules/${id}`, { name: 'x' }],
      ['PUT', `/v3/style_rules/${id}/configured_rules`, {}],
      ['POST', `/v3/style_rules/${id}/custom_instructions`, { label: 'a', prompt: 'b' }],
      ['GET', `/v3/style_rules/${id}/custom_instructions/nope`, undefined],
    ] as const) {
      const answer = await call(emu, method, path, json === undefined ? {} : { json });
      expect(answer.status, `${method} ${path}`).toBe(404);
      errorBody(answer);
    }
  });

  it('limits at the boundary: name 1024 chars, prompt 300 chars, 200 instructions', async () => {
    const emu = await start();
    const ok = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'n'.repeat(1024), language: 'en' } });
    expect(ok.status).toBe(201);
    // Characters, not bytes: 1024 two-byte characters are fine.
    expect((await call(emu, 'POST', '/v3/style_rules', { json: { name: 'ü'.repeat(1024), language: 'en' } })).status).toBe(201);
    const long = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'n'.repeat(1025), language: 'en' } });
    expect(long.status).toBe(400);
    expect(errorBody(long).message).toMatch(/1025 characters long; the limit is 1024/);
    const id = ok.json.style_id as string;
    expect((await call(emu, 'PATCH', `/v3/style_rules/${id}`, { json: { name: 'x'.repeat(1025) } })).status).toBe(400);
    expect((await call(emu, 'POST', `/v3/style_rules/${id}/custom_instructions`, { json: { label: 'p', prompt: 'p'.repeat(300) } })).status).toBe(201);
    const prompt = await call(emu, 'POST', `/v3/style_rules/${id}/custom_instructions`, { json: { label: 'p', prompt: 'p'.repeat(301) } });
    expect(prompt.status).toBe(400);
    expect(errorBody(prompt).message).toMatch(/301 characters long; the limit is 300/);
    const instructions = Array.from({ length: 200 }, (_, i) => ({ label: `l${i}`, prompt: 'p' }));
    const full = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'Full', language: 'en', custom_instructions: instructions } });
    expect(full.status).toBe(201);
    const over = await call(emu, 'POST', `/v3/style_rules/${full.json.style_id}/custom_instructions`, { json: { label: 'one more', prompt: 'p' } });
    expect(over.status).toBe(400);
    expect(errorBody(over).message).toMatch(/200 custom instructions/);
    const tooMany = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'Over', language: 'en', custom_instructions: [...instructions, { label: 'x', prompt: 'p' }] } });
    expect(tooMany.status).toBe(400);
  });

  it('validation: language enumeration, required fields, shapes of configured rules, unknown fields', async () => {
    const emu = await start();
    const cases: Array<[unknown, RegExp]> = [
      [{ name: 'x', language: 'nl' }, /Unsupported `language` "nl"/],
      [{ language: 'en' }, /Missing required field `name`/],
      [{ name: 'x' }, /Missing required field `language`/],
      [{ name: 'x', language: 'en', configured_rules: [] }, /configured_rules` to be an object of categories, got an array/],
      [{ name: 'x', language: 'en', configured_rules: { punctuation: 'yes' } }, /punctuation to be an object of rules, got a string/],
      [{ name: 'x', language: 'en', configured_rules: { punctuation: { apostrophe: 3 } } }, /apostrophe to be an option name/],
      [{ name: 'x', language: 'en', custom_instructions: [{ label: 'a' }] }, /`prompt` of custom_instructions\[0\]/],
      [{ name: 'x', language: 'en', custom_instructions: [{ label: 'a', prompt: 'b', id: 'mine' }] }, /Unknown field `id`/],
      [{ name: 'x', language: 'en', version: 3 }, /Unknown field `version`/],
    ];
    for (const [json, message] of cases) {
      const answer = await call(emu, 'POST', '/v3/style_rules', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(errorBody(answer).message).toMatch(message);
    }
    const id = (await call(emu, 'POST', '/v3/style_rules', { json: { name: 'A', language: 'en' } })).json.style_id as string;
    const badPut = await call(emu, 'PUT', `/v3/style_rules/${id}/configured_rules`, { json: ['x'] });
    expect(badPut.status).toBe(400);
    const badPatch = await call(emu, 'PATCH', `/v3/style_rules/${id}`, { json: { language: 'de' } });
    expect(badPatch.status).toBe(400);
    expect((await call(emu, 'GET', `/v3/style_rules/${id}`)).json.version).toBe(1);
  });

  it('accepts form bodies for style rules (nested keys)', async () => {
    const emu = await start();
    const form = 'name=Form&language=en&configured_rules.punctuation.apostrophe=use_curly_apostrophes&custom_instructions[0].label=L&custom_instructions[0].prompt=P';
    const created = await call(emu, 'POST', '/v3/style_rules', { form });
    expect(created.status).toBe(201);
    expect(created.json.configured_rules).toEqual({ punctuation: { apostrophe: 'use_curly_apostrophes' } });
    expect(created.json.custom_instructions[0]).toMatchObject({ label: 'L', prompt: 'P' });
  });

  it('keeps __proto__, constructor and prototype as ordinary category and rule names (JSON, form, PUT)', async () => {
    const emu = await start();
    const rulesText = '{"__proto__":{"__proto__":"a","constructor":"b"},"constructor":{"prototype":"c"},"prototype":{"x":"d"}}';
    const json = await call(emu, 'POST', '/v3/style_rules', { body: `{"name":"P","language":"en","configured_rules":${rulesText}}`, contentType: 'application/json' });
    expect(json.status).toBe(201);
    // Compared as text: the parsed answer's __proto__ key must be an own property, as sent.
    expect(JSON.stringify(json.json.configured_rules)).toBe(rulesText);
    const id = json.json.style_id as string;
    expect(JSON.stringify((await call(emu, 'GET', `/v3/style_rules/${id}`)).json.configured_rules)).toBe(rulesText);
    const put = await call(emu, 'PUT', `/v3/style_rules/${id}/configured_rules`, { body: '{"__proto__":{"constructor":"e"}}', contentType: 'application/json' });
    expect(put.status).toBe(200);
    expect(JSON.stringify(put.json.configured_rules)).toBe('{"__proto__":{"constructor":"e"}}');
    const form = await call(emu, 'POST', '/v3/style_rules', { form: 'name=x&language=en&configured_rules.__proto__.a=b&configured_rules[constructor][prototype]=c' });
    expect(form.status).toBe(201);
    expect(JSON.stringify(form.json.configured_rules)).toBe('{"__proto__":{"a":"b"},"constructor":{"prototype":"c"}}');
  });
});
