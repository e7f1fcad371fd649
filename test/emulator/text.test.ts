/* eslint-disable @typescript-eslint/no-unsafe-member-access -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { call, createV3, errorBody, start } from './helpers.js';

describe('/v2/write/rephrase', () => {
  it('returns one improvement per text, in request order, with the three required fields', async () => {
    const emu = await start();
    const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['this is  a test .', 'second one'], target_lang: 'en-US' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      improvements: [
        { text: 'This is a test.', target_language: 'en-US', detected_source_language: 'en' },
        { text: 'Second one', target_language: 'en-US', detected_source_language: 'en' },
      ],
    });
  });

  it('rule 2: accepts every listed target_lang case-insensitively and rejects others', async () => {
    const emu = await start();
    for (const lang of ['zh', 'zh-Hans', 'en', 'en-GB', 'en-US', 'fr', 'de', 'it', 'ja', 'ko', 'pt', 'pt-BR', 'pt-PT', 'es', 'EN-gb']) {
      const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang } });
      expect(answer.status, lang).toBe(200);
    }
    for (const lang of ['nl', 'zh-Hant', 'en-AU', '']) {
      const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang } });
      expect(answer.status, lang).toBe(400);
      expect(errorBody(answer).message).toMatch(/target_lang/);
    }
  });

  it('rule 3: converting between variants (American text, target en-GB)', async () => {
    const emu = await start();
    const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['my favorite color'], target_lang: 'en-GB' } });
    expect(answer.json.improvements[0]).toEqual({ text: 'My favourite colour', target_language: 'en-GB', detected_source_language: 'en' });
  });

  it('rules 4–5: every writing_style and tone value is accepted where supported; others → 400', async () => {
    const emu = await start();
    for (const style of ['simple', 'business', 'academic', 'casual', 'default', 'prefer_simple', 'prefer_business', 'prefer_academic', 'prefer_casual']) {
      expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'de', writing_style: style } })).status, style).toBe(200);
    }
    for (const tone of ['enthusiastic', 'friendly', 'confident', 'diplomatic', 'default', 'prefer_enthusiastic', 'prefer_friendly', 'prefer_confident', 'prefer_diplomatic']) {
      expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'en-GB', tone } })).status, tone).toBe(200);
    }
    const style = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'de', writing_style: 'poetic' } });
    expect(style.status).toBe(400);
    expect(errorBody(style).message).toMatch(/writing_style/);
    const tone = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'de', tone: 'angry' } });
    expect(tone.status).toBe(400);
  });

  it('rules 6–7: unsupported language: prefer_ falls back to default, a plain value → 400', async () => {
    const emu = await start();
    for (const lang of ['ja', 'ko', 'zh', 'zh-Hans', 'en']) {
      const prefer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang, writing_style: 'prefer_business' } });
      expect(prefer.status, lang).toBe(200);
      const plain = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang, tone: 'friendly' } });
      expect(plain.status, lang).toBe(400);
      expect(errorBody(plain).message).toMatch(/not supported for language/);
      expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang, tone: 'default' } })).status).toBe(200);
    }
    for (const lang of ['en-GB', 'en-US', 'fr', 'de', 'it', 'pt', 'pt-BR', 'pt-PT', 'es']) {
      expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: lang, writing_style: 'business' } })).status, lang).toBe(200);
    }
    // Without target_lang the detected language decides: German text supports styles.
    expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['Das ist gut und schön.'], writing_style: 'casual' } })).status).toBe(200);
    expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['これはテストです'], writing_style: 'casual' } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['これはテストです'], writing_style: 'prefer_casual' } })).status).toBe(200);
  });

  it('rule 7 without target_lang: short or English-looking text counts as English (supported), whatever its words', async () => {
    const emu = await start();
    // Each of these once looked Italian, Portuguese, German, French or Spanish to a one-word heuristic.
    for (const text of ['Pay per month', 'Pay monthly', 'as soon as possible', 'The die is cast', 'A la carte', 'Do it con brio', 'Meet me at the café', 'ok', 'x']) {
      const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: [text], writing_style: 'business' } });
      expect(answer.status, text).toBe(200);
      expect(answer.json.improvements[0], text).toMatchObject({ target_language: 'en', detected_source_language: 'en' });
      const translated = await call(emu, 'POST', '/v2/translate', { json: { text: [text], target_lang: 'de' } });
      expect(translated.json.translations[0].detected_source_language, text).toBe('EN');
    }
    // Clear evidence still wins: two distinct marks of one language.
    for (const [text, lang] of [
      ['Das ist nicht gut.', 'de'],
      ['Je pense que le chat est noir.', 'fr'],
      ['El perro y los gatos.', 'es'],
      ['Il gatto è nero.', 'it'],
      ['Você não sabe.', 'pt'],
    ] as const) {
      const answer = await call(emu, 'POST', '/v2/write/correct', { json: { text: [text] } });
      expect(answer.json.improvements[0].detected_source_language, text).toBe(lang);
    }
    // Rule 3 is not enforced: German text with an English target is improved, not refused.
    const mixed = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['Das ist nicht gut.'], target_lang: 'en-US' } });
    expect(mixed.status).toBe(200);
    expect(mixed.json.improvements[0]).toMatchObject({ target_language: 'en-US', detected_source_language: 'de' });
  });

  it('rule 8: writing_style and tone together → 400', async () => {
    const emu = await start();
    const answer = await call(emu, 'POST', '/v2/write/rephrase', { json: { text: ['x'], target_lang: 'de', writing_style: 'simple', tone: 'friendly' } });
    expect(answer.status).toBe(400);
    expect(errorBody(answer).message).toMatch(/must not both be sent/);
  });

  it('rule 10: a body of exactly 10 KiB passes, one byte more → 413', async () => {
    const emu = await start();
    const frame = JSON.stringify({ text: [''], target_lang: 'de' });
    const atLimit = JSON.stringify({ text: ['a'.repeat(10 * 1024 - frame.length)], target_lang: 'de' });
    expect(Buffer.byteLength(atLimit)).toBe(10240);
    expect((await call(emu, 'POST', '/v2/write/rephrase', { body: atLimit, contentType: 'application/json' })).status).toBe(200);
    const over = JSON.stringify({ text: ['a'.repeat(10 * 1024 - frame.length + 1)], target_lang: 'de' });
    const answer = await call(emu, 'POST', '/v2/write/rephrase', { body: over, contentType: 'application/json' });
    expect(answer.status).toBe(413);
    expect(errorBody(answer).message).toMatch(/10241 bytes exceeds the limit of 10240/);
  });

  it('accepts form encoding (repeated text keys) and rejects other content types with invalid_content_type', async () => {
    const emu = await start();
    const form = await call(emu, 'POST', '/v2/write/rephrase', { form: 'text=one&text=two&target_lang=de' });
    expect(form.status).toBe(200);
    expect(form.json.improvements).toHaveLength(2);
    const single = await call(emu, 'POST', '/v2/write/rephrase', { form: 'text=only+one' });
    expect(single.json.improvements[0].text).toBe('Only one');
    const xml = await call(emu, 'POST', '/v2/write/rephrase', { body: '<text/>', contentType: 'application/xml' });
    expect(xml.status).toBe(415);
    expect(errorBody(xml).code).toBe('invalid_content_type');
  });

  it('text is required, an array of strings', async () => {
    const emu = await start();
    for (const json of [{}, { text: 'one' }, { text: [] }, { text: [1] }, { text: ['x'], extra: true }]) {
      const answer = await call(emu, 'POST', '/v2/write/rephrase', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      errorBody(answer);
    }
  });
});

describe('/v2/write/correct', () => {
  it('returns improvements like rephrase, accepts JSON and forms, rejects styles', async () => {
    const emu = await start();
    const answer = await call(emu, 'POST', '/v2/write/correct', { json: { text: ['i think  so'], target_lang: 'en-US' } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ improvements: [{ text: 'I think so', target_language: 'en-US', detected_source_language: 'en' }] });
    expect((await call(emu, 'POST', '/v2/write/correct', { form: 'text=hallo+welt' })).status).toBe(200);
    expect((await call(emu, 'POST', '/v2/write/correct', { json: { text: ['x'], writing_style: 'simple' } })).status).toBe(400);
    const big = await call(emu, 'POST', '/v2/write/correct', { json: { text: ['a'.repeat(11_000)] } });
    expect(big.status).toBe(413);
  });
});

describe('/v2/translate with a glossary', () => {
  it('applies the matching dictionary (target variants use their base language)', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [
      { source_lang: 'en', target_lang: 'de', entries: 'checkout\tKasse\nshopping cart\tWarenkorb' },
      { source_lang: 'de', target_lang: 'en', entries: 'Kasse\tcheckout desk' },
    ]);
    const id = g.json.glossary_id as string;
    const answer = await call(emu, 'POST', '/v2/translate', { json: { text: ['Go to checkout', 'Your shopping cart is empty'], source_lang: 'EN', target_lang: 'DE', glossary_id: id } });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      translations: [
        { detected_source_language: 'EN', text: 'Go to Kasse' },
        { detected_source_language: 'EN', text: 'Your Warenkorb is empty' },
      ],
    });
    const variant = await call(emu, 'POST', '/v2/translate', { json: { text: ['Kasse'], source_lang: 'de', target_lang: 'EN-GB', glossary_id: id } });
    expect(variant.json.translations[0].text).toBe('checkout desk');
  });

  it('matches whole words next to punctuation, with the case as written, and terms of up to 8 words', async () => {
    const emu = await start();
    const g = await createV3(emu, 'P', [
      {
        source_lang: 'en',
        target_lang: 'de',
        entries: 'shopping cart\tWarenkorb\ncart\tWagen\nGift Card\tGeschenkkarte\ne-mail\tE-Mail\none two three four five six seven eight\tacht\none two three four five six seven eight nine\tneun',
      },
    ]);
    const id = g.json.glossary_id as string;
    const translate = async (text: string): Promise<string> =>
      (await call(emu, 'POST', '/v2/translate', { json: { text: [text], source_lang: 'en', target_lang: 'de', glossary_id: id } })).json.translations[0].text as string;
    expect(await translate('Add it to your shopping cart.')).toBe('Add it to your Warenkorb.');
    expect(await translate('(cart), "cart"; carts and cartwheels')).toBe('(Wagen), "Wagen"; carts and cartwheels');
    expect(await translate('your shopping  cart')).toBe('your Warenkorb');
    expect(await translate('Send an e-mail')).toBe('Send an E-Mail');
    // The spec says nothing about the case of source phrases: they match as written.
    expect(await translate('Buy a gift card or a Gift Card')).toBe('Buy a gift card or a Geschenkkarte');
    expect(await translate('one two three four five six seven eight')).toBe('acht');
    expect(await translate('one two three four five six seven eight nine')).toBe('acht nine');
  });

  it('only en-US/en-GB, pt-PT/pt-BR and zh-Hans use the base dictionary; zh-Hant and es-419 have none', async () => {
    const emu = await start();
    const g = await createV3(emu, 'V', [
      { source_lang: 'en', target_lang: 'zh', entries: 'cat\t猫' },
      { source_lang: 'en', target_lang: 'pt', entries: 'cat\tgato' },
      { source_lang: 'en', target_lang: 'es', entries: 'cat\tgato (es)' },
      { source_lang: 'de', target_lang: 'en', entries: 'Katze\tcat (en)' },
    ]);
    const id = g.json.glossary_id as string;
    const translate = (source: string, target: string) => call(emu, 'POST', '/v2/translate', { json: { text: source === 'en' ? ['cat'] : ['Katze'], source_lang: source, target_lang: target, glossary_id: id } });
    for (const [target, text] of [['ZH', '猫'], ['zh-Hans', '猫'], ['PT-BR', 'gato'], ['pt-pt', 'gato'], ['ES', 'gato (es)']] as const) {
      const answer = await translate('en', target);
      expect(answer.status, target).toBe(200);
      expect(answer.json.translations[0].text, target).toBe(text);
    }
    for (const target of ['EN-US', 'en-gb']) expect((await translate('de', target)).json.translations[0].text, target).toBe('cat (en)');
    for (const [target, base] of [['ZH-HANT', 'zh-hant'], ['ES-419', 'es-419']] as const) {
      const answer = await translate('en', target);
      expect(answer.status, target).toBe(400);
      expect(errorBody(answer).message).toContain(`no dictionary en → ${base}`);
    }
  });

  it('requires source_lang and target_lang with glossary_id; unknown glossary → 404; missing pair → 400', async () => {
    const emu = await start();
    const g = await createV3(emu, 'G', [{ source_lang: 'en', target_lang: 'de', entries: 'a\tb' }]);
    const id = g.json.glossary_id as string;
    const noSource = await call(emu, 'POST', '/v2/translate', { json: { text: ['a'], target_lang: 'de', glossary_id: id } });
    expect(noSource.status).toBe(400);
    expect(errorBody(noSource).message).toMatch(/source_lang/);
    const noTarget = await call(emu, 'POST', '/v2/translate', { json: { text: ['a'], source_lang: 'en', glossary_id: id } });
    expect(noTarget.status).toBe(400);
    expect((await call(emu, 'POST', '/v2/translate', { json: { text: ['a'], source_lang: 'en', target_lang: 'de', glossary_id: 'nope' } })).status).toBe(404);
    const pair = await call(emu, 'POST', '/v2/translate', { json: { text: ['a'], source_lang: 'en', target_lang: 'fr', glossary_id: id } });
    expect(pair.status).toBe(400);
    expect(errorBody(pair).message).toMatch(/no dictionary en → fr/);
  });

  it('accepts translation memory parameters and other translation parameters', async () => {
    const emu = await start();
    const memories = await call(emu, 'GET', '/v3/translation_memories');
    const memoryId = memories.json.translation_memories[0].translation_memory_id as string;
    const ok = await call(emu, 'POST', '/v2/translate', {
      json: { text: ['hello'], target_lang: 'de', translation_memory_id: memoryId, translation_memory_threshold: 80, formality: 'more' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.translations[0]).toEqual({ detected_source_language: 'EN', text: 'hello' });
    const form = await call(emu, 'POST', '/v2/translate', { form: `text=hello&target_lang=de&translation_memory_id=${memoryId}&translation_memory_threshold=75` });
    expect(form.status).toBe(200);
    expect((await call(emu, 'POST', '/v2/translate', { json: { text: ['x'], target_lang: 'de', translation_memory_threshold: 101 } })).status).toBe(400);
    expect((await call(emu, 'POST', '/v2/translate', { json: { text: ['x'], target_lang: 'de', translation_memory_id: 'nope' } })).status).toBe(404);
  });
});
