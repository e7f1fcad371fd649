import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../src/emulator/route-request.js';
import type { EmulatorBehaviour } from '../../src/emulator/index.js';
import { ENDPOINTS, fillRoute, requestLine, type Endpoint } from '../../src/lib/endpoints.js';
import { OPERATION_REQUESTS, requestLineOf, requestOf } from '../../src/lib/operation-request.js';
import type { Operation } from '../../src/model/index.js';
import { planSchema } from '../../src/report/plan-schema.js';
import { dict, startHarness } from '../api/emulator-harness.js';

/**
 * The endpoint table (src/lib/endpoints.ts) is the client's, the plan's and the reports' one
 * source of the service's paths; the emulator is written from the spec alone and imports none of
 * it. These tests are what ties the two: every row, and every operation of a plan, is a route the
 * emulator serves, and the client sends exactly the table's rows.
 */

/** Every behaviour the emulator can show: the vendor's DELETE of one instruction is served only with it. */
const VENDOR: EmulatorBehaviour = { deleteInstruction: true };

/** What the emulator's router makes of a request: `served`, or the status it answers. */
function servedBy(method: string, path: string, behaviour: EmulatorBehaviour): string {
  try {
    matchRoute(method, path.split('/').slice(1).map(decodeURIComponent), behaviour);
    return 'served';
  } catch (error) {
    return `${(error as { status?: number }).status ?? '?'} ${(error as Error).message}`;
  }
}

const rows = Object.entries(ENDPOINTS) as [string, Endpoint][];
/** A path of each row, its parameters filled with ids as the service makes them (and one that needs encoding). */
const pathOf = (route: string): string => fillRoute(route, { id: 'g/1 x', instructionId: 'i-1' });

const resource = { kind: 'glossary', name: 'G' } as const;
const base = { key: 'op-1', dependsOn: [], resource };
const dictionary = { sourceLang: 'en', targetLang: 'de', entries: [['a', 'b']] as [string, string][] };
const rules = { name: 'S', language: 'de', configuredRules: {}, customInstructions: [] };

/** One operation of each type (two of `glossary.delete`: v2 and v3). */
const operations: Operation[] = [
  { ...base, type: 'glossary.create', name: 'G', dictionaries: [dictionary] },
  { ...base, type: 'glossary_v2.create', name: 'G', dictionary },
  { ...base, type: 'glossary.patch', glossaryId: 'g/1', name: 'H' },
  { ...base, type: 'glossary.put_dictionary', glossaryId: 'g1', dictionary },
  { ...base, type: 'glossary.delete_dictionary', glossaryId: 'g1', sourceLang: 'en', targetLang: 'de' },
  { ...base, type: 'glossary.delete', glossaryId: 'g1', api: 'v2' },
  { ...base, type: 'glossary.delete', glossaryId: 'g1', api: 'v3' },
  { ...base, type: 'style_rules.create', ...rules },
  { ...base, type: 'style_rules.rename', styleId: 's1', name: 'T' },
  { ...base, type: 'style_rules.put_configured_rules', styleId: 's1', configuredRules: {} },
  { ...base, type: 'style_rules.create_instruction', styleId: 's1', label: 'L', prompt: 'p' },
  { ...base, type: 'style_rules.update_instruction', styleId: 's1', instructionId: 'i1', label: 'L', prompt: 'p' },
  { ...base, type: 'style_rules.delete_instruction', styleId: 's1', instructionId: 'i1', label: 'L', fallback: rules },
  { ...base, type: 'style_rules.delete', styleId: 's1' },
];

describe('the endpoint table and the emulator', () => {
  it.each(rows)('%s: the emulator serves it', (_name, endpoint) => {
    expect(servedBy(endpoint.method, pathOf(endpoint.route), VENDOR)).toBe('served');
  });

  it('the emulator as the spec describes the service serves every row but the vendor-only DELETE of one instruction', () => {
    const unserved = rows.filter(([, e]) => servedBy(e.method, pathOf(e.route), {}) !== 'served').map(([name]) => name);
    expect(unserved).toEqual(['deleteInstruction']);
  });

  it('every operation type has a request, and the examples here cover every type the saved plan may hold', () => {
    const types = new Set(Object.keys(OPERATION_REQUESTS));
    const schemaTypes = new Set(planSchema.shape.operations.element.options.map((o) => o.shape.type.value));
    expect(schemaTypes).toEqual(types);
    expect(new Set(operations.map((op) => op.type))).toEqual(types);
  });

  it.each(operations.map((op) => [requestLineOf(op), op] as const))('%s: a row of the table, a route the emulator serves', (_line, op) => {
    const request = requestOf(op);
    expect(rows.some(([, e]) => e.method === request.method && e.route === request.route)).toBe(true);
    expect(servedBy(request.method, request.path, VENDOR)).toBe('served');
  });

  it('describes each request with its ids and query values percent-encoded', () => {
    expect(operations.map(requestLineOf)).toEqual([
      'POST /v3/glossaries',
      'POST /v2/glossaries',
      'PATCH /v3/glossaries/g%2F1',
      'PUT /v3/glossaries/g1/dictionaries',
      'DELETE /v3/glossaries/g1/dictionaries?source_lang=en&target_lang=de',
      'DELETE /v2/glossaries/g1',
      'DELETE /v3/glossaries/g1',
      'POST /v3/style_rules',
      'PATCH /v3/style_rules/s1',
      'PUT /v3/style_rules/s1/configured_rules',
      'POST /v3/style_rules/s1/custom_instructions',
      'PUT /v3/style_rules/s1/custom_instructions/i1',
      'DELETE /v3/style_rules/s1/custom_instructions/i1',
      'DELETE /v3/style_rules/s1',
    ]);
    expect(requestLine({ method: 'GET', path: '/v3/glossaries/a%20b/entries', route: '/v3/glossaries/{id}/entries', query: { source_lang: 'en', target_lang: 'de-ch&x' } })).toBe(
      'GET /v3/glossaries/a%20b/entries?source_lang=en&target_lang=de-ch%26x',
    );
  });
});

describe('the client sends exactly the rows of the table', () => {
  it('each call of the client, against the emulator, is labelled with a row, and every row is called', async () => {
    const seen = new Set<string>();
    const h = await startHarness({ behaviour: VENDOR }, { metrics: { onRequest: (method, route, status) => seen.add(`${method} ${route} ${status}`) } });
    try {
      const { client } = h;
      const glossary = await client.createGlossary('G', [dict('en', 'de', [['a', 'b']])]);
      await client.listGlossaries();
      await client.getGlossary(glossary.id);
      await client.getEntries(glossary.id, 'en', 'de');
      await client.putDictionary(glossary.id, dict('en', 'fr', [['a', 'c']]));
      await client.patchGlossary(glossary.id, { name: 'H' });
      await client.deleteDictionary(glossary.id, 'en', 'fr');
      await client.translate({ texts: ['a'], sourceLang: 'en', targetLang: 'de', glossaryId: glossary.id });
      await client.deleteGlossary(glossary.id);
      const legacy = await client.createGlossaryV2('L', dict('en', 'de', [['a', 'b']]));
      await client.listGlossariesV2();
      await client.getEntriesV2(legacy.id);
      await client.deleteGlossaryV2(legacy.id);
      const list = await client.createStyleRules({ name: 'S', language: 'de', configuredRules: {}, customInstructions: [] });
      await client.listStyleRules();
      await client.getStyleRules(list.id);
      await client.renameStyleRules(list.id, 'T');
      await client.putConfiguredRules(list.id, {});
      const added = await client.createInstruction(list.id, { label: 'L', prompt: 'p' });
      await client.getInstruction(list.id, added.id);
      await client.updateInstruction(list.id, added.id, { label: 'L', prompt: 'q' });
      await client.deleteInstruction(list.id, added.id);
      await client.deleteStyleRules(list.id);
      await client.listLanguages('glossary');
    } finally {
      await h.close();
    }
    const called = new Set([...seen].map((line) => line.slice(0, line.lastIndexOf(' '))));
    expect([...seen].filter((line) => !/ 2\d\d$/.test(line))).toEqual([]);
    expect(called).toEqual(new Set(rows.map(([, e]) => `${e.method} ${e.route}`)));
  });
});
