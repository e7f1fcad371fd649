/**
 * A second oracle: the vendor's official Node client (deepl-node, a dev dependency nobody here
 * wrote) drives the emulator. Every end-to-end test of termsync runs against the emulator, and the
 * emulator and termsync's client were both built from the spec: a misreading shared by the two
 * would pass everywhere. Here a client built by others makes every glossary (v2 and v3), entries
 * and style-rule call it has against the emulator started as the vendor's servers behave
 * (`termsync emulator --auth-scheme DeepL-Auth-Key --behave vendor-mock`), and reads back what
 * termsync applied.
 *
 * Where the library and the spec differ, a test below names the difference and which side the
 * emulator follows: the spec by default, the library's servers with the flag named.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { AuthorizationError, DeepLClient, DeepLError, GlossaryEntries, GlossaryNotFoundError, QuotaExceededError, TooManyRequestsError, Translator } from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorOptionsFromFlags } from '../../src/cli/commands/emulator.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { createWorld, type World } from '../e2e/harness.js';
import { listenOnLoopback } from '../e2e/loopback.js';

const KEY = 'oracle-key';
const READER = 'oracle-reader';

/** The emulator as the command line starts it, with these flags (a free port, no log). */
function startFromFlags(flags: { authScheme?: string; behave?: string; keys?: string }): Promise<RunningEmulator> {
  return startEmulator(emulatorOptionsFromFlags({ host: '127.0.0.1', port: '0', logLevel: 'silent', ...flags }));
}

/** What reached the service, as sent: the parts of each request the spec says something about (never the key). */
interface Sent {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly accept: string | undefined;
  readonly scheme: string | undefined;
}

/** A recording proxy in front of an emulator: the library's requests as they are on the wire. */
async function recordingProxy(target: string): Promise<{ url: string; sent: Sent[]; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const sent: Sent[] = [];
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    sent.push({
      method: req.method ?? '?',
      path: url.split('?')[0] ?? url,
      contentType: req.headers['content-type'],
      accept: req.headers.accept,
      scheme: req.headers.authorization?.split(' ')[0],
    });
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, sent, close };
}

const entries = (terms: Record<string, string>): GlossaryEntries => new GlossaryEntries({ entries: terms });

// Codes in capitals, which the spec accepts in any case; the library's types list them in lowercase.
const EN = 'EN' as 'en';
const DE = 'DE' as 'de';
const FR = 'FR' as 'fr';

/** The library's client; `called` collects the names of the methods a test calls on it. */
function libraryClient(url: string, key = KEY): { client: DeepLClient; called: Set<string> } {
  const called = new Set<string>();
  // No retries (the library would sleep a second and more before each), a generous timeout.
  const real = new DeepLClient(key, { serverUrl: url, maxRetries: 0, minTimeout: 20_000, sendPlatformInfo: false });
  const client = new Proxy(real, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      called.add(property);
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return { client, called };
}

/** The library's public glossary and style-rule methods: the calls this file must make, every one. */
function glossaryAndStyleRuleMethods(): string[] {
  const methods = (proto: object): string[] => Object.getOwnPropertyNames(proto).filter((name) => name !== 'constructor' && typeof (proto as Record<string, unknown>)[name] === 'function');
  return [...methods(Translator.prototype), ...methods(DeepLClient.prototype)].filter((name) => /glossar|styleRule/i.test(name) && !name.startsWith('internal')).sort();
}

async function failure(work: Promise<unknown>): Promise<DeepLError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof DeepLError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('deepl-node against the emulator in vendor mode (--auth-scheme DeepL-Auth-Key --behave vendor-mock)', () => {
  let emulator: RunningEmulator;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  let library: ReturnType<typeof libraryClient>;
  let client: DeepLClient;

  beforeAll(async () => {
    emulator = await startFromFlags({ authScheme: 'DeepL-Auth-Key', behave: 'vendor-mock', keys: `${KEY},${READER}=read` });
    proxy = await recordingProxy(emulator.url);
    library = libraryClient(proxy.url);
    client = library.client;
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
  });

  it('v2 glossaries: create from entries and from CSV, get, list, read the entries, language pairs, translate with one, delete', async () => {
    const created = await client.createGlossary('Legacy terms', 'en', 'de', entries({ cart: 'Warenkorb', 'check out': 'zur Kasse' }));
    expect(created).toMatchObject({ name: 'Legacy terms', ready: true, sourceLang: 'EN', targetLang: 'DE', entryCount: 2 });
    expect(created.creationTime.getTime()).not.toBeNaN();
    // CSV (spec rule 3): quoted fields, a doubled quote, a comma inside quotes.
    const csv = await client.createGlossaryWithCsv('Legacy CSV', EN, FR, Buffer.from('cart,panier\n"a, b","c ""d"""\n'));
    expect(csv).toMatchObject({ sourceLang: 'EN', targetLang: 'FR', entryCount: 2 });
    expect((await client.getGlossaryEntries(csv)).entries()).toEqual({ cart: 'panier', 'a, b': 'c "d"' });

    expect(await client.getGlossary(created.glossaryId)).toEqual(created);
    expect((await client.listGlossaries()).map((g) => g.name).sort()).toEqual(['Legacy CSV', 'Legacy terms']);
    expect((await client.getGlossaryEntries(created.glossaryId)).entries()).toEqual({ cart: 'Warenkorb', 'check out': 'zur Kasse' });

    // Every ordered pair of the 32 glossary languages (the enumeration without Thai).
    const pairs = await client.getGlossaryLanguagePairs();
    expect(pairs).toHaveLength(32 * 31);
    expect(pairs).toContainEqual({ sourceLang: 'en', targetLang: 'de' });
    // Thai: the spec's enumeration holds it, its description excludes it; the emulator takes the
    // stricter reading, and the library's own types list no 'th' among glossary languages either.
    expect(pairs.some((p) => (p.sourceLang as string) === 'th' || (p.targetLang as string) === 'th')).toBe(false);

    expect(await client.translateText('Put it in the cart', 'en', 'de', { glossary: created })).toMatchObject({ text: 'Put it in the Warenkorb', detectedSourceLang: 'en' });

    await client.deleteGlossary(created);
    await client.deleteGlossary(csv.glossaryId);
    expect(await failure(client.getGlossary(created.glossaryId))).toBeInstanceOf(GlossaryNotFoundError);
    expect(await client.listGlossaries()).toEqual([]);
  });

  it('v3 glossaries: create (entries, CSV), get, list, read a dictionary, rename, merge (entries, CSV), replace (entries, CSV), delete a dictionary, translate with one, delete', async () => {
    const glossary = await client.createMultilingualGlossary('Product terms', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ cart: 'Warenkorb', invoice: 'Rechnung' }) },
      { sourceLangCode: 'en', targetLangCode: 'fr', entries: entries({ cart: 'panier' }) },
    ]);
    expect(glossary).toMatchObject({
      name: 'Product terms',
      dictionaries: [
        { sourceLangCode: 'en', targetLangCode: 'de', entryCount: 2 },
        { sourceLangCode: 'en', targetLangCode: 'fr', entryCount: 1 },
      ],
    });
    // CSV with language columns (spec rule 4): an entry for another pair is ignored.
    const fromCsv = await client.createMultilingualGlossaryWithCsv('From CSV', 'en', 'it', 'cart,carrello\ninvoice,fattura,en,it\nskip,me,en,de\n');
    expect(fromCsv.dictionaries).toEqual([{ sourceLangCode: 'en', targetLangCode: 'it', entryCount: 2 }]);
    expect((await client.getMultilingualGlossaryDictionaryEntries(fromCsv, 'en', 'it')).entries.entries()).toEqual({ cart: 'carrello', invoice: 'fattura' });

    expect(await client.getMultilingualGlossary(glossary.glossaryId)).toEqual(glossary);
    expect((await client.listMultilingualGlossaries()).map((g) => g.name).sort()).toEqual(['From CSV', 'Product terms']);
    const de = await client.getMultilingualGlossaryDictionaryEntries(glossary, 'en', 'de');
    expect(de).toMatchObject({ sourceLangCode: 'en', targetLangCode: 'de' });
    expect(de.entries.entries()).toEqual({ cart: 'Warenkorb', invoice: 'Rechnung' });

    expect((await client.updateMultilingualGlossaryName(glossary, 'Product terms (web)')).name).toBe('Product terms (web)');
    // Merge (spec rule 2): a new source added, an existing one replaced.
    const merged = await client.updateMultilingualGlossaryDictionary(glossary, { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ cart: 'Einkaufswagen', order: 'Bestellung' }) });
    expect(merged.dictionaries).toContainEqual({ sourceLangCode: 'en', targetLangCode: 'de', entryCount: 3 });
    expect((await client.getMultilingualGlossaryDictionaryEntries(glossary, 'en', 'de')).entries.entries()).toEqual({ cart: 'Einkaufswagen', invoice: 'Rechnung', order: 'Bestellung' });
    expect((await client.updateMultilingualGlossaryDictionaryWithCsv(glossary, 'en', 'fr', 'invoice,facture\n')).dictionaries).toContainEqual({ sourceLangCode: 'en', targetLangCode: 'fr', entryCount: 2 });
    // Replace (spec rule 1): a new pair is added, an existing one replaced outright.
    expect(await client.replaceMultilingualGlossaryDictionary(glossary, { sourceLangCode: 'en', targetLangCode: 'es', entries: entries({ cart: 'carrito' }) })).toEqual({ sourceLangCode: 'en', targetLangCode: 'es', entryCount: 1 });
    expect(await client.replaceMultilingualGlossaryDictionaryWithCsv(glossary, 'en', 'fr', 'order,commande\n')).toEqual({ sourceLangCode: 'en', targetLangCode: 'fr', entryCount: 1 });
    expect((await client.getMultilingualGlossaryDictionaryEntries(glossary, 'en', 'fr')).entries.entries()).toEqual({ order: 'commande' });

    expect(await client.translateText('Put the invoice in the cart', 'en', 'de', { glossary: glossary.glossaryId })).toMatchObject({ text: 'Put the Rechnung in the Einkaufswagen' });
    expect(await client.translateText('Der Warenkorb', 'de', 'en-US', { glossary: await client.createMultilingualGlossary('de-en', [{ sourceLangCode: 'de', targetLangCode: 'en', entries: entries({ Warenkorb: 'shopping cart' }) }]) })).toMatchObject({
      text: 'Der shopping cart',
    });

    // Language codes in any case, in the query of a dictionary delete too.
    await client.deleteMultilingualGlossaryDictionary(glossary, 'EN', 'ES');
    expect((await client.getMultilingualGlossary(glossary.glossaryId)).dictionaries.map((d) => d.targetLangCode)).toEqual(['de', 'fr']);
    expect(await failure(client.getMultilingualGlossaryDictionaryEntries(glossary, 'en', 'es'))).toBeInstanceOf(GlossaryNotFoundError);

    for (const g of await client.listMultilingualGlossaries()) await client.deleteMultilingualGlossary(g);
    expect(await client.listMultilingualGlossaries()).toEqual([]);
    expect(await failure(client.getMultilingualGlossary(glossary.glossaryId))).toBeInstanceOf(GlossaryNotFoundError);
  });

  it('terms that need escaping in a form body, in TSV and in JSON come back as sent (through v2 and v3)', async () => {
    const odd = { 'a+b': 'c&d', '50%': 'fünfzig %', 'x=y': 'é "q" \\', 'emoji 😀': '中文', 'two  spaces': 'zwei  Leerzeichen', 'percent %20': '+plus+', [`${'ü'.repeat(511)}x`]: 'lang' };
    const name = 'Name + & = % ü 😀';
    const v3 = await client.createMultilingualGlossary(name, [{ sourceLangCode: 'EN', targetLangCode: 'DE', entries: entries(odd) }]);
    expect((await client.getMultilingualGlossary(v3.glossaryId)).name).toBe(name);
    expect((await client.getMultilingualGlossaryDictionaryEntries(v3, 'en', 'de')).entries.entries()).toEqual(odd);
    const v2 = await client.createGlossary(name, EN, DE, entries(odd));
    expect((await client.getGlossaryEntries(v2)).entries()).toEqual(odd);
    // Whitespace around a phrase: the spec says nothing, the library sends it as it is, the
    // emulator trims it (its choice, docs/emulator.md), so it comes back without.
    const padded = await client.createMultilingualGlossary('Padded', [{ sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ ' cart ': '\u00a0Warenkorb\t'.replace('\t', ' ') }) }]);
    expect((await client.getMultilingualGlossaryDictionaryEntries(padded, 'en', 'de')).entries.entries()).toEqual({ cart: 'Warenkorb' });
    await client.deleteMultilingualGlossary(padded);
    await client.deleteMultilingualGlossary(v3);
    await client.deleteGlossary(v2);
  });

  it('style rules: create, get, list (summaries, detailed, pages), rename, replace configured rules, add, get, update and delete an instruction, delete', async () => {
    const created = await client.createStyleRule({
      name: 'House style',
      language: 'DE',
      configured_rules: { punctuation: { apostrophe: 'use_curly_apostrophes' }, dates_and_times: { calendar_era: 'use_bc_and_ad' } },
      custom_instructions: [{ label: 'Formal', prompt: 'Address the reader formally.', source_language: 'en' }],
    });
    expect(created).toMatchObject({
      name: 'House style',
      language: 'de',
      version: 1,
      configuredRules: { punctuation: { apostrophe: 'use_curly_apostrophes' }, datesAndTimes: { calendar_era: 'use_bc_and_ad' } },
      customInstructions: [{ label: 'Formal', prompt: 'Address the reader formally.', sourceLanguage: 'en' }],
    });
    expect(created.customInstructions?.[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.updatedTime.getTime()).toBe(created.creationTime.getTime());
    const id = created.styleId;
    expect(await client.getStyleRule(id)).toEqual(created);

    for (const n of [1, 2, 3]) await client.createStyleRule({ name: `List ${n}`, language: 'fr' });
    const summaries = await client.getAllStyleRules();
    expect(summaries.map((s) => s.name)).toEqual(['House style', 'List 1', 'List 2', 'List 3']);
    expect(summaries[0]?.configuredRules).toBeUndefined();
    expect(summaries[0]?.customInstructions).toBeUndefined();
    expect((await client.getAllStyleRules(0, 25, true))[0]).toEqual(created);
    expect((await client.getAllStyleRules(1, 3)).map((s) => s.name)).toEqual(['List 3']);
    expect(await client.getAllStyleRules(5, 3)).toEqual([]);

    const renamed = await client.updateStyleRuleName(id, 'House style (de)');
    expect(renamed).toMatchObject({ name: 'House style (de)', version: 2 });
    const rules = await client.updateStyleRuleConfiguredRules(id, { style_and_tone: { short_vs_long_words: 'use_short_words' } });
    expect(rules).toMatchObject({ version: 3, configuredRules: { styleAndTone: { short_vs_long_words: 'use_short_words' } }, customInstructions: created.customInstructions });
    expect(rules.configuredRules?.punctuation).toBeUndefined();

    const added = await client.createStyleRuleCustomInstruction(id, { label: 'Short', prompt: 'Keep sentences short.', source_language: 'en' });
    expect(added).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, label: 'Short', prompt: 'Keep sentences short.', sourceLanguage: 'en' });
    const instruction = added.id ?? '';
    expect(await client.getStyleRuleCustomInstruction(id, instruction)).toEqual(added);
    expect(await client.updateStyleRuleCustomInstruction(id, instruction, { label: 'Shorter', prompt: 'Keep sentences very short.', source_language: 'en' })).toEqual({ ...added, label: 'Shorter', prompt: 'Keep sentences very short.' });
    await client.deleteStyleRuleCustomInstruction(id, instruction);
    const after = await client.getStyleRule(id);
    expect(after.version).toBe(6);
    expect(after.customInstructions?.map((i) => i.label)).toEqual(['Formal']);
    expect(after.updatedTime.getTime()).toBeGreaterThanOrEqual(created.updatedTime.getTime());

    for (const list of await client.getAllStyleRules()) await client.deleteStyleRule(list.styleId);
    expect(await client.getAllStyleRules()).toEqual([]);
    expect((await failure(client.getStyleRule(id))).message).toMatch(/^Not found/);
  });

  it("errors reach the library's error classes: 404 on glossaries, 400 with the detail, 403 for a read-only key, 456, 429", async () => {
    expect(await failure(client.getMultilingualGlossary('no-such-glossary'))).toBeInstanceOf(GlossaryNotFoundError);
    const duplicate = await failure(client.createMultilingualGlossaryWithCsv('Duplicates', 'en', 'de', 'a,b\na,c\n'));
    expect(duplicate.message).toBe('Bad request, message: Invalid glossary entries provided, detail: Key with the index 1 (starting at position 4) duplicates key with the index 0 (starting at position 0)');
    expect((await failure(client.createMultilingualGlossary('Thai', [{ sourceLangCode: 'en', targetLangCode: 'th', entries: entries({ a: 'b' }) }]))).message).toMatch(/^Bad request, message: .*Thai/);
    const reader = libraryClient(proxy.url, READER).client;
    expect(await reader.listMultilingualGlossaries()).toEqual([]);
    expect(await failure(reader.createStyleRule({ name: 'Not allowed', language: 'de' }))).toBeInstanceOf(AuthorizationError);
    emulator.injectOnce({ kind: 456, method: 'POST', pathPrefix: '/v3/glossaries' });
    expect(await failure(client.createMultilingualGlossary('Quota', [{ sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ a: 'b' }) }]))).toBeInstanceOf(QuotaExceededError);
    emulator.injectOnce({ kind: 429, method: 'GET', pathPrefix: '/v3/style_rules' });
    expect(await failure(client.getAllStyleRules())).toBeInstanceOf(TooManyRequestsError);
    // Nothing was created by the refused calls.
    expect(await client.listMultilingualGlossaries()).toEqual([]);
    expect(await client.getAllStyleRules()).toEqual([]);
  });

  it('every glossary and style-rule method of the library was called, and every route it used answered 2xx, with the vendor\'s scheme', () => {
    const methods = glossaryAndStyleRuleMethods();
    // The library's glossary and style-rule calls (a new release adding one fails here until it is covered).
    expect(methods).toEqual([
      'createGlossary',
      'createGlossaryWithCsv',
      'createMultilingualGlossary',
      'createMultilingualGlossaryWithCsv',
      'createStyleRule',
      'createStyleRuleCustomInstruction',
      'deleteGlossary',
      'deleteMultilingualGlossary',
      'deleteMultilingualGlossaryDictionary',
      'deleteStyleRule',
      'deleteStyleRuleCustomInstruction',
      'getAllStyleRules',
      'getGlossary',
      'getGlossaryEntries',
      'getGlossaryLanguagePairs',
      'getMultilingualGlossary',
      'getMultilingualGlossaryDictionaryEntries',
      'getStyleRule',
      'getStyleRuleCustomInstruction',
      'listGlossaries',
      'listMultilingualGlossaries',
      'replaceMultilingualGlossaryDictionary',
      'replaceMultilingualGlossaryDictionaryWithCsv',
      'updateMultilingualGlossaryDictionary',
      'updateMultilingualGlossaryDictionaryWithCsv',
      'updateMultilingualGlossaryName',
      'updateStyleRuleConfiguredRules',
      'updateStyleRuleCustomInstruction',
      'updateStyleRuleName',
    ]);
    expect(methods.filter((m) => !library.called.has(m))).toEqual([]);
    expect(library.called.has('translateText')).toBe(true);
    const id = '[^/]+';
    const routes = [
      ['POST', '/v2/glossaries'],
      ['GET', '/v2/glossaries'],
      ['GET', `/v2/glossaries/${id}`],
      ['GET', `/v2/glossaries/${id}/entries`],
      ['DELETE', `/v2/glossaries/${id}`],
      ['GET', '/v2/glossary-language-pairs'],
      ['POST', '/v2/translate'],
      ['POST', '/v3/glossaries'],
      ['GET', '/v3/glossaries'],
      ['GET', `/v3/glossaries/${id}`],
      ['GET', `/v3/glossaries/${id}/entries`],
      ['PATCH', `/v3/glossaries/${id}`],
      ['PUT', `/v3/glossaries/${id}/dictionaries`],
      ['DELETE', `/v3/glossaries/${id}/dictionaries`],
      ['DELETE', `/v3/glossaries/${id}`],
      ['POST', '/v3/style_rules'],
      ['GET', '/v3/style_rules'],
      ['GET', `/v3/style_rules/${id}`],
      ['PATCH', `/v3/style_rules/${id}`],
      ['PUT', `/v3/style_rules/${id}/configured_rules`],
      ['DELETE', `/v3/style_rules/${id}`],
      ['POST', `/v3/style_rules/${id}/custom_instructions`],
      ['GET', `/v3/style_rules/${id}/custom_instructions/${id}`],
      ['PUT', `/v3/style_rules/${id}/custom_instructions/${id}`],
      ['DELETE', `/v3/style_rules/${id}/custom_instructions/${id}`],
    ] as const;
    const log = emulator.requests();
    const answered = (method: string, path: string): boolean => log.some((r) => r.method === method && new RegExp(`^${path}$`).test(r.path) && typeof r.status === 'number' && r.status >= 200 && r.status < 300);
    expect(routes.filter(([method, path]) => !answered(method, path)).map(([m, p]) => `${m} ${p}`)).toEqual([]);
    // Every request the library made is one of those routes (no call went anywhere else).
    expect(log.filter((r) => !routes.some(([m, p]) => m === r.method && new RegExp(`^${p}$`).test(r.path))).map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(new Set(proxy.sent.map((s) => s.scheme))).toEqual(new Set(['DeepL-Auth-Key']));
  });
});

describe('where deepl-node and the spec differ: each named, with the side the emulator takes', () => {
  const open: { close: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of open.splice(0)) await o.close();
  });
  async function emulatorWith(flags: { authScheme?: string; behave?: string }): Promise<{ emulator: RunningEmulator; proxy: Awaited<ReturnType<typeof recordingProxy>>; client: DeepLClient }> {
    const emulator = await startFromFlags(flags);
    const proxy = await recordingProxy(emulator.url);
    open.push(proxy, emulator);
    return { emulator, proxy, client: libraryClient(proxy.url).client };
  }

  it('Authorization: the spec says `Service-Auth-Key <key>`, the library sends `DeepL-Auth-Key <key>`. The emulator follows the spec (401 for the library) unless started with --auth-scheme DeepL-Auth-Key (then the spec\'s scheme is the one refused)', async () => {
    const spec = await emulatorWith({});
    const refused = await failure(spec.client.listMultilingualGlossaries());
    // The library has no error class for 401 (its AuthorizationError is the 403 of the spec's scoped keys).
    expect(refused).not.toBeInstanceOf(AuthorizationError);
    expect(refused.message).toMatch(/^Unexpected status code: 401 Unauthorized, message: Authorization failed: expected `Authorization: Service-Auth-Key <key>`/);
    expect(spec.proxy.sent.map((s) => s.scheme)).toEqual(['DeepL-Auth-Key']);
    const vendor = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    expect(await vendor.client.listMultilingualGlossaries()).toEqual([]);
    const asTheSpecSays = await fetch(`${vendor.emulator.url}/v3/glossaries`, { headers: { authorization: `Service-Auth-Key ${KEY}` } });
    expect(asTheSpecSays.status).toBe(401);
  });

  it('Glossary bodies: the spec says JSON, the library sends forms (`dictionaries[0].entries=…`, `name=…`). The emulator accepts both (a choice: JSON is what the spec shows, forms what the official clients send); style-rule bodies are JSON on both sides', async () => {
    const { client, proxy } = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const g = await client.createMultilingualGlossary('Forms', [{ sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ cart: 'Warenkorb' }) }]);
    await client.updateMultilingualGlossaryDictionary(g, { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ order: 'Bestellung' }) });
    await client.replaceMultilingualGlossaryDictionary(g, { sourceLangCode: 'en', targetLangCode: 'fr', entries: entries({ cart: 'panier' }) });
    await client.createGlossary('Forms v2', 'en', 'de', entries({ cart: 'Warenkorb' }));
    await client.createStyleRule({ name: 'JSON', language: 'de' });
    const bodies = proxy.sent.filter((s) => s.method !== 'GET').map((s) => `${s.method} ${s.path.replace(/[0-9a-f-]{36}/, '{id}')} ${s.contentType ?? '-'}`);
    expect(bodies).toEqual([
      'POST /v3/glossaries application/x-www-form-urlencoded;charset=utf-8',
      'PATCH /v3/glossaries/{id} application/x-www-form-urlencoded;charset=utf-8',
      'PUT /v3/glossaries/{id}/dictionaries application/x-www-form-urlencoded;charset=utf-8',
      'POST /v2/glossaries application/x-www-form-urlencoded;charset=utf-8',
      'POST /v3/style_rules application/json',
    ]);
    expect((await client.getMultilingualGlossaryDictionaryEntries(g, 'en', 'de')).entries.entries()).toEqual({ cart: 'Warenkorb', order: 'Bestellung' });
  });

  it('Adding a custom instruction: the spec answers with the whole updated list, the library reads the answer as the new instruction. The emulator follows the spec (the library then returns an instruction without an id) unless --behave instruction-answer', async () => {
    const spec = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const list = await spec.client.createStyleRule({ name: 'Spec', language: 'de' });
    const misread = await spec.client.createStyleRuleCustomInstruction(list.styleId, { label: 'Short', prompt: 'Keep sentences short.' });
    expect(misread.id).toBeUndefined();
    expect(misread.label).toBeUndefined();
    expect((await spec.client.getStyleRule(list.styleId)).customInstructions?.map((i) => i.label)).toEqual(['Short']);
    const vendor = await emulatorWith({ authScheme: 'DeepL-Auth-Key', behave: 'instruction-answer' });
    const vendorList = await vendor.client.createStyleRule({ name: 'Vendor', language: 'de' });
    expect(await vendor.client.createStyleRuleCustomInstruction(vendorList.styleId, { label: 'Short', prompt: 'Keep sentences short.' })).toMatchObject({ id: expect.any(String) as string, label: 'Short' });
  });

  it('Deleting a custom instruction: the spec shows no endpoint for it, the library calls DELETE …/custom_instructions/{id}. The emulator follows the spec (405, which the library reports as an unexpected status) unless --behave delete-instruction', async () => {
    const spec = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const list = await spec.client.createStyleRule({ name: 'Spec', language: 'de', custom_instructions: [{ label: 'Short', prompt: 'Keep sentences short.' }] });
    const instruction = list.customInstructions?.[0]?.id ?? '';
    expect((await failure(spec.client.deleteStyleRuleCustomInstruction(list.styleId, instruction))).message).toMatch(/^Unexpected status code: 405 Method Not Allowed/);
    expect((await spec.client.getStyleRule(list.styleId)).customInstructions).toHaveLength(1);
    const vendor = await emulatorWith({ authScheme: 'DeepL-Auth-Key', behave: 'delete-instruction' });
    const vendorList = await vendor.client.createStyleRule({ name: 'Vendor', language: 'de', custom_instructions: [{ label: 'Short', prompt: 'Keep sentences short.' }] });
    await vendor.client.deleteStyleRuleCustomInstruction(vendorList.styleId, vendorList.customInstructions?.[0]?.id ?? '');
    expect((await vendor.client.getStyleRule(vendorList.styleId)).customInstructions).toEqual([]);
  });

  it("An instruction's source_language: the spec leaves it optional and an update sends label and prompt, as the library does. The emulator follows the spec (absent stays absent, an update keeps it) unless --behave fill-source-language,reset-source-language", async () => {
    const spec = await emulatorWith({ authScheme: 'DeepL-Auth-Key', behave: 'instruction-answer' });
    const list = await spec.client.createStyleRule({ name: 'Spec', language: 'de', custom_instructions: [{ label: 'A', prompt: 'a' }, { label: 'B', prompt: 'b', source_language: 'en' }] });
    expect(list.customInstructions?.map((i) => i.sourceLanguage)).toEqual([undefined, 'en']);
    const b = list.customInstructions?.[1]?.id ?? '';
    expect(await spec.client.updateStyleRuleCustomInstruction(list.styleId, b, { label: 'B', prompt: 'b2' })).toMatchObject({ sourceLanguage: 'en' });
    const vendor = await emulatorWith({ authScheme: 'DeepL-Auth-Key', behave: 'instruction-answer,fill-source-language,reset-source-language' });
    const vendorList = await vendor.client.createStyleRule({ name: 'Vendor', language: 'de', custom_instructions: [{ label: 'A', prompt: 'a' }, { label: 'B', prompt: 'b', source_language: 'en' }] });
    expect(vendorList.customInstructions?.map((i) => i.sourceLanguage)).toEqual(['de', 'en']);
    const updated = await vendor.client.updateStyleRuleCustomInstruction(vendorList.styleId, vendorList.customInstructions?.[1]?.id ?? '', { label: 'B', prompt: 'b2' });
    expect(updated.sourceLanguage).toBeUndefined();
  });

  it('v2 glossaries through v3: the spec makes v3 handle monolingual glossaries too (the emulator: one store, a v2 glossary is listed by v3); the library keeps them apart, as the vendor\'s servers do with --behave separate-stores', async () => {
    const spec = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const v2 = await spec.client.createGlossary('Legacy', 'en', 'de', entries({ cart: 'Warenkorb' }));
    expect((await spec.client.listMultilingualGlossaries()).map((g) => [g.glossaryId, g.name])).toEqual([[v2.glossaryId, 'Legacy']]);
    const vendor = await emulatorWith({ authScheme: 'DeepL-Auth-Key', behave: 'separate-stores' });
    const apart = await vendor.client.createGlossary('Legacy', 'en', 'de', entries({ cart: 'Warenkorb' }));
    expect(await vendor.client.listMultilingualGlossaries()).toEqual([]);
    expect(await failure(vendor.client.getMultilingualGlossary(apart.glossaryId))).toBeInstanceOf(GlossaryNotFoundError);
    expect((await vendor.client.translateText('the cart', 'en', 'de', { glossary: apart })).text).toBe('the Warenkorb');
  });

  it("v2 entries: the spec asks for an Accept header naming the format, the library sends axios's default (`application/json, text/plain, */*`). The emulator serves TSV for `*/*` (and no Accept), 415 for a format it does not have", async () => {
    const { client, proxy, emulator } = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const g = await client.createGlossary('Legacy', 'en', 'de', entries({ cart: 'Warenkorb' }));
    expect((await client.getGlossaryEntries(g)).entries()).toEqual({ cart: 'Warenkorb' });
    expect(proxy.sent.find((s) => s.path.endsWith('/entries'))?.accept).toBe('application/json, text/plain, */*');
    const csv = await fetch(`${emulator.url}/v2/glossaries/${g.glossaryId}/entries`, { headers: { authorization: `DeepL-Auth-Key ${KEY}`, accept: 'text/csv' } });
    expect(csv.status).toBe(415);
  });

  it('Several glossaries in one translation: the library can send `glossary_ids`, the spec shows only `glossary_id`. The emulator follows the spec: it takes glossary_ids for one of the other translation parameters the spec allows, and applies no glossary', async () => {
    const { client } = await emulatorWith({ authScheme: 'DeepL-Auth-Key' });
    const g = await client.createMultilingualGlossary('Terms', [{ sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ cart: 'Warenkorb' }) }]);
    expect((await client.translateText('the cart', 'en', 'de', { glossary: g })).text).toBe('the Warenkorb');
    expect((await client.translateText('the cart', 'en', 'de', { glossaryIds: [g.glossaryId] })).text).toBe('the cart');
  });
});

describe('termsync and deepl-node see the same service (vendor mode)', () => {
  let world: World | undefined;
  afterAll(async () => {
    await world?.close();
  });

  it('what termsync applies, the library reads back as the repository declares it; what the library changes, termsync plans as exactly that', async () => {
    const vendor = emulatorOptionsFromFlags({ host: '127.0.0.1', port: '0', logLevel: 'silent', authScheme: 'DeepL-Auth-Key', behave: 'vendor-mock' });
    world = await createWorld('basic', { emulator: { authScheme: 'DeepL-Auth-Key', ...(vendor.behaviour === undefined ? {} : { behaviour: vendor.behaviour }) } });
    const w = world;
    await w.write('config/termsync.yaml', `${await w.read('config/termsync.yaml')}    auth_scheme: DeepL-Auth-Key\n`);
    const applied = await w.cli(['apply', '--ids-out', 'ids.json']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const ids = JSON.parse(await w.read('ids.json')) as { glossaries: Record<string, string>; style_rules: Record<string, string> };
    const { client } = libraryClient(w.emulator.url, w.key);

    // Product terms (v3, two dictionaries): the entries as the files and the YAML declare them.
    const product = await client.getMultilingualGlossary(ids.glossaries['Product terms'] ?? '');
    expect(product.dictionaries.map((d) => [d.sourceLangCode, d.targetLangCode, d.entryCount])).toEqual([
      ['en', 'de', 5],
      ['en', 'fr', 3],
    ]);
    const tsv = await w.read('glossaries/product.en-de.tsv');
    const fromFile = Object.fromEntries(tsv.trim().split('\n').map((line) => line.split('\t') as [string, string]));
    expect((await client.getMultilingualGlossaryDictionaryEntries(product, 'en', 'de')).entries.entries()).toEqual(fromFile);
    expect((await client.getMultilingualGlossaryDictionaryEntries(product, 'en', 'fr')).entries.entries()).toEqual({ checkout: 'paiement', cart: 'panier', invoice: 'facture' });
    // Legacy terms (v2): through the v2 API only (the vendor's stores are separate).
    const legacy = await client.getGlossary(ids.glossaries['Legacy terms'] ?? '');
    expect(legacy).toMatchObject({ name: 'Legacy terms', sourceLang: 'EN', targetLang: 'ES', entryCount: 2 });
    expect((await client.getGlossaryEntries(legacy)).entries()).toEqual({ 'sign in': 'iniciar sesión', 'sign out': 'cerrar sesión' });
    // The style rule list.
    const style = await client.getStyleRule(ids.style_rules['Marketing (German)'] ?? '');
    expect(style).toMatchObject({ name: 'Marketing (German)', language: 'de', configuredRules: { punctuation: { apostrophe: 'use_curly_apostrophes' } } });
    expect(style.customInstructions?.map((i) => [i.label, i.prompt])).toEqual([
      ['Formal address', 'Address the reader formally.'],
      ['Short sentences', 'Keep sentences short.'],
    ]);
    const converged = await w.cli(['plan', '--detailed-exitcode']);
    expect(converged.code).toBe(0);

    // Edits made with the library, as someone might in another tool: one term merged, one instruction reworded.
    await client.updateMultilingualGlossaryDictionary(product, { sourceLangCode: 'en', targetLangCode: 'de', entries: entries({ order: 'Bestellung', cart: 'Einkaufswagen' }) });
    const short = style.customInstructions?.find((i) => i.label === 'Short sentences');
    await client.updateStyleRuleCustomInstruction(style.styleId, short?.id ?? '', { label: 'Short sentences', prompt: 'Keep sentences very short.', source_language: 'en' });
    const plan = await w.cli(['plan', '--format', 'json', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    const changes = (JSON.parse(plan.stdout) as { changes: { address: { kind: string; name: string }; dictionaries?: { source_lang: string; target_lang: string; entry_changes: unknown[] }[] }[] }).changes;
    expect(changes.map((c) => `${c.address.kind} ${c.address.name}`).sort()).toEqual(['glossary Product terms', 'style_rules Marketing (German)']);
    // termsync would undo exactly the library's edit: remove the added term, restore the changed one.
    expect(changes.find((c) => c.address.name === 'Product terms')?.dictionaries?.map((d) => [d.source_lang, d.target_lang, d.entry_changes])).toEqual([
      [
        'en',
        'de',
        [
          { source: 'cart', before: 'Einkaufswagen', after: 'Warenkorb' },
          { source: 'order', before: 'Bestellung' },
        ],
      ],
    ]);
  });
});
