/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { call, errorBody, start } from './helpers.js';

interface LanguageV3 {
  lang: string;
  name: string;
  usable_as_source: boolean;
  usable_as_target: boolean;
  status: string;
  features: Record<string, { status: string }>;
}

describe('/v3/languages', () => {
  it('answers all five resources with the v3 entry shape and BCP 47 casing', async () => {
    const emu = await start();
    for (const resource of ['translate_text', 'translate_document', 'glossary', 'voice', 'write']) {
      const answer = await call(emu, 'GET', `/v3/languages?resource=${resource}`);
      expect(answer.status, resource).toBe(200);
      const list = answer.json as LanguageV3[];
      expect(list.length).toBeGreaterThan(0);
      for (const entry of list) {
        expect(Object.keys(entry)).toEqual(['lang', 'name', 'usable_as_source', 'usable_as_target', 'status', 'features']);
        expect(entry.lang).toMatch(/^[a-z]{2,3}(-([A-Z]{2}|\d{3}|[A-Z][a-z]{3}))?$/);
        expect(entry.status).toBe('stable');
        expect(entry.usable_as_source || entry.usable_as_target).toBe(true);
        for (const key of Object.keys(entry.features)) expect(['formality', 'tag_handling', 'glossary', 'writing_style', 'tone']).toContain(key);
      }
    }
  });

  it('glossary resource: every valid source × target is a pair; Thai is excluded', async () => {
    const emu = await start();
    const list = (await call(emu, 'GET', '/v3/languages?resource=glossary')).json as LanguageV3[];
    expect(list.map((l) => l.lang)).toContain('en');
    expect(list.map((l) => l.lang)).not.toContain('th');
    expect(list).toHaveLength(32);
    expect(list.every((l) => l.usable_as_source && l.usable_as_target)).toBe(true);
  });

  it('translate_text: glossary and formality feature keys as the spec says', async () => {
    const emu = await start();
    const list = (await call(emu, 'GET', '/v3/languages?resource=translate_text')).json as LanguageV3[];
    const de = list.find((l) => l.lang === 'de');
    expect(de?.features).toHaveProperty('glossary');
    expect(de?.features).toHaveProperty('formality');
    expect(list.find((l) => l.lang === 'da')?.features).not.toHaveProperty('formality');
    expect(list.find((l) => l.lang === 'th')?.features).not.toHaveProperty('glossary');
    const enGb = list.find((l) => l.lang === 'en-GB');
    expect(enGb).toMatchObject({ usable_as_source: false, usable_as_target: true });
    expect(list.find((l) => l.lang === 'zh-Hant')).toBeDefined();
  });

  it('write: the rephrase target list, writing_style and tone where styles work', async () => {
    const emu = await start();
    const list = (await call(emu, 'GET', '/v3/languages?resource=write')).json as LanguageV3[];
    expect(list.map((l) => l.lang).sort()).toEqual(['de', 'en', 'en-GB', 'en-US', 'es', 'fr', 'it', 'ja', 'ko', 'pt', 'pt-BR', 'pt-PT', 'zh', 'zh-Hans'].sort());
    expect(Object.keys(list.find((l) => l.lang === 'en-GB')?.features ?? {}).sort()).toEqual(['tone', 'writing_style']);
    expect(list.find((l) => l.lang === 'ja')?.features).toEqual({});
  });

  it('resource missing or unknown → 400; POST → 405', async () => {
    const emu = await start();
    expect(errorBody(await call(emu, 'GET', '/v3/languages')).message).toMatch(/resource/);
    expect((await call(emu, 'GET', '/v3/languages?resource=everything')).status).toBe(400);
    const post = await call(emu, 'POST', '/v3/languages?resource=glossary', { json: {} });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });
});

describe('/v2/languages', () => {
  it('target list with supports_formality exactly as the spec lists', async () => {
    const emu = await start();
    const list = (await call(emu, 'GET', '/v2/languages?type=target')).json as Array<{ language: string; name: string; supports_formality: boolean }>;
    expect(list.map((l) => l.language)).toEqual([
      'AR', 'BG', 'CS', 'DA', 'DE', 'EL', 'EN-GB', 'EN-US', 'ES', 'ES-419', 'ET', 'FI', 'FR', 'HU', 'ID', 'IT', 'JA', 'KO', 'LT', 'LV', 'NB',
      'NL', 'PL', 'PT-BR', 'PT-PT', 'RO', 'RU', 'SK', 'SL', 'SV', 'TR', 'UK', 'ZH', 'ZH-HANS', 'ZH-HANT',
    ]);
    expect(list.filter((l) => l.supports_formality).map((l) => l.language)).toEqual(['DE', 'ES', 'ES-419', 'FR', 'IT', 'JA', 'NL', 'PL', 'PT-BR', 'PT-PT', 'RU']);
  });

  it('type defaults to source; unknown type → 400', async () => {
    const emu = await start();
    const list = (await call(emu, 'GET', '/v2/languages')).json as Array<{ language: string }>;
    expect(list.map((l) => l.language)).toContain('EN');
    expect(list.every((l) => l.language === l.language.toUpperCase())).toBe(true);
    expect((await call(emu, 'GET', '/v2/languages?type=both')).status).toBe(400);
  });
});

describe('/v3/translation_memories', () => {
  it('pages with page and page_size, always with total_count', async () => {
    const emu = await start();
    const first = await call(emu, 'GET', '/v3/translation_memories');
    expect(first.status).toBe(200);
    expect(first.json.total_count).toBe(12);
    expect(first.json.translation_memories).toHaveLength(10);
    expect(Object.keys(first.json.translation_memories[0])).toEqual(['translation_memory_id', 'name', 'source_language', 'target_languages', 'segment_count']);
    const second = await call(emu, 'GET', '/v3/translation_memories?page=1&page_size=10');
    expect(second.json.translation_memories).toHaveLength(2);
    expect((await call(emu, 'GET', '/v3/translation_memories?page_size=25')).json.translation_memories).toHaveLength(12);
    expect((await call(emu, 'GET', '/v3/translation_memories?page_size=1')).json.translation_memories).toHaveLength(1);
  });

  it('page_size outside 1–25 or not an integer → 400', async () => {
    const emu = await start();
    for (const query of ['page_size=0', 'page_size=26', 'page_size=-5', 'page_size=ten', 'page=x', 'page_size=1000000000000000000000']) {
      const answer = await call(emu, 'GET', `/v3/translation_memories?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorBody(answer).message).toMatch(/page/);
    }
  });
});
