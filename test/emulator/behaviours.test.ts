/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { emulatorOptionsFromFlags } from '../../src/cli/commands/emulator.js';
import { UUID, call, start } from './helpers.js';

/* Ways other servers of this API family differ from the spec: each off by default, on when asked. */

async function listWith(emu: Awaited<ReturnType<typeof start>>, instructions: object[]): Promise<string> {
  const created = await call(emu, 'POST', '/v3/style_rules', { json: { name: 'M', language: 'de', custom_instructions: instructions } });
  expect(created.status).toBe(201);
  return created.json.style_id as string;
}

describe('emulator behaviours', () => {
  it('deleteInstruction: DELETE of one custom instruction → 204, the list keeps its id and moves its version', async () => {
    const emu = await start({ behaviour: { deleteInstruction: true } });
    const id = await listWith(emu, [{ label: 'A', prompt: 'P' }, { label: 'B', prompt: 'Q' }]);
    const before = await call(emu, 'GET', `/v3/style_rules/${id}`);
    const [a] = before.json.custom_instructions as { id: string }[];
    const removed = await call(emu, 'DELETE', `/v3/style_rules/${id}/custom_instructions/${a?.id ?? ''}`);
    expect(removed.status).toBe(204);
    const after = await call(emu, 'GET', `/v3/style_rules/${id}`);
    expect(after.json.custom_instructions.map((i: { label: string }) => i.label)).toEqual(['B']);
    expect(after.json.version).toBe(before.json.version + 1);
    expect((await call(emu, 'DELETE', `/v3/style_rules/${id}/custom_instructions/${a?.id ?? ''}`)).status).toBe(404);
    // A read-only key may not.
    const ro = await start({ behaviour: { deleteInstruction: true }, keys: ['w', 'r=read'] });
    const roId = (await call(ro, 'POST', '/v3/style_rules', { key: 'w', json: { name: 'M', language: 'de', custom_instructions: [{ label: 'A', prompt: 'P' }] } })).json;
    expect((await call(ro, 'DELETE', `/v3/style_rules/${roId.style_id}/custom_instructions/${roId.custom_instructions[0].id}`, { key: 'r' })).status).toBe(403);
  });

  it('without it (the default, as the spec): 405 naming the methods there are', async () => {
    const emu = await start();
    const id = await listWith(emu, [{ label: 'A', prompt: 'P' }]);
    const list = await call(emu, 'GET', `/v3/style_rules/${id}`);
    const answer = await call(emu, 'DELETE', `/v3/style_rules/${id}/custom_instructions/${list.json.custom_instructions[0].id}`);
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, PUT');
  });

  it('instructionAnswer: POST of an instruction answers with just it', async () => {
    const emu = await start({ behaviour: { instructionAnswer: true } });
    const id = await listWith(emu, []);
    const added = await call(emu, 'POST', `/v3/style_rules/${id}/custom_instructions`, { json: { label: 'A', prompt: 'P', source_language: 'en' } });
    expect(added.status).toBe(201);
    expect(added.json).toEqual({ id: expect.stringMatching(UUID), label: 'A', prompt: 'P', source_language: 'en' });
  });

  it('fillSourceLanguage: an omitted source_language becomes the list language (on create and on add); a sent one is kept', async () => {
    const emu = await start({ behaviour: { fillSourceLanguage: true } });
    const id = await listWith(emu, [{ label: 'A', prompt: 'P' }, { label: 'B', prompt: 'Q', source_language: 'en' }]);
    const added = await call(emu, 'POST', `/v3/style_rules/${id}/custom_instructions`, { json: { label: 'C', prompt: 'R' } });
    expect(added.json.custom_instructions.map((i: { label: string; source_language?: string }) => [i.label, i.source_language])).toEqual([
      ['A', 'de'],
      ['B', 'en'],
      ['C', 'de'],
    ]);
    // Off (the spec): absent stays absent.
    const spec = await start();
    const plain = await call(spec, 'POST', '/v3/style_rules', { json: { name: 'M', language: 'de', custom_instructions: [{ label: 'A', prompt: 'P' }] } });
    expect(plain.json.custom_instructions[0]).not.toHaveProperty('source_language');
  });

  it('resetSourceLanguage: a PUT without source_language clears it; with it, sets it', async () => {
    const emu = await start({ behaviour: { resetSourceLanguage: true } });
    const id = await listWith(emu, [{ label: 'A', prompt: 'P', source_language: 'en' }]);
    const instruction = (await call(emu, 'GET', `/v3/style_rules/${id}`)).json.custom_instructions[0];
    const cleared = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/${instruction.id}`, { json: { label: 'A', prompt: 'P2' } });
    expect(cleared.json).toEqual({ id: instruction.id, label: 'A', prompt: 'P2' });
    const kept = await call(emu, 'PUT', `/v3/style_rules/${id}/custom_instructions/${instruction.id}`, { json: { label: 'A', prompt: 'P3', source_language: 'fr' } });
    expect(kept.json).toEqual({ id: instruction.id, label: 'A', prompt: 'P3', source_language: 'fr' });
  });

  it('separateStores: /v3 does not list or serve v2 glossaries and /v2 not v3 ones; translation uses either', async () => {
    const emu = await start({ behaviour: { separateStores: true } });
    const v2 = await call(emu, 'POST', '/v2/glossaries', { json: { name: 'Old', source_lang: 'en', target_lang: 'de', entries: 'cat\tKatze', entries_format: 'tsv' } });
    const v3 = await call(emu, 'POST', '/v3/glossaries', { json: { name: 'New', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'dog\tHund', entries_format: 'tsv' }] } });
    expect([v2.status, v3.status]).toEqual([201, 201]);
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries.map((g: { name: string }) => g.name)).toEqual(['New']);
    expect((await call(emu, 'GET', '/v2/glossaries')).json.glossaries.map((g: { name: string }) => g.name)).toEqual(['Old']);
    expect((await call(emu, 'GET', `/v3/glossaries/${v2.json.glossary_id}`)).status).toBe(404);
    expect((await call(emu, 'GET', `/v2/glossaries/${v3.json.glossary_id}`)).status).toBe(404);
    expect((await call(emu, 'DELETE', `/v3/glossaries/${v2.json.glossary_id}`)).status).toBe(404);
    const translated = await call(emu, 'POST', '/v2/translate', { json: { text: ['cat'], source_lang: 'EN', target_lang: 'DE', glossary_id: v2.json.glossary_id } });
    expect(translated.json.translations[0].text).toBe('Katze');
    // Off (the spec): one store, the v2 glossary is listed by /v3 too.
    const spec = await start();
    await call(spec, 'POST', '/v2/glossaries', { json: { name: 'Old', source_lang: 'en', target_lang: 'de', entries: 'cat\tKatze', entries_format: 'tsv' } });
    expect((await call(spec, 'GET', '/v3/glossaries')).json.glossaries.map((g: { name: string }) => g.name)).toEqual(['Old']);
  });

  it('authScheme: only the configured scheme is accepted, and the 401 names it', async () => {
    const emu = await start({ authScheme: 'DeepL-Auth-Key' });
    const spec = await call(emu, 'GET', '/v3/glossaries');
    expect(spec.status).toBe(401);
    expect(spec.json.message).toBe('Authorization failed: expected `Authorization: DeepL-Auth-Key <key>`');
    const ok = await call(emu, 'GET', '/v3/glossaries', { key: null, headers: { Authorization: 'DeepL-Auth-Key k1' } });
    expect(ok.status).toBe(200);
    await expect(start({ authScheme: 'two words' })).rejects.toThrow('expected the auth scheme to be one word');
  });

  it('the command line: --behave names them (vendor-mock = all), --auth-scheme sets the scheme; unknown names are refused', () => {
    const base = { host: '127.0.0.1', port: '0', logLevel: 'info' };
    expect(emulatorOptionsFromFlags({ ...base, behave: 'delete-instruction, separate-stores', authScheme: 'DeepL-Auth-Key' })).toMatchObject({
      authScheme: 'DeepL-Auth-Key',
      behaviour: { deleteInstruction: true, separateStores: true },
    });
    expect(emulatorOptionsFromFlags({ ...base, behave: 'vendor-mock' }).behaviour).toEqual({
      deleteInstruction: true,
      instructionAnswer: true,
      fillSourceLanguage: true,
      resetSourceLanguage: true,
      separateStores: true,
    });
    expect(() => emulatorOptionsFromFlags({ ...base, behave: 'teleport' })).toThrow('unknown behaviour "teleport" in --behave');
  });
});
