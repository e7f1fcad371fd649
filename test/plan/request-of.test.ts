import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/model/index.js';
import { requestLineOf, uploadBytesOf } from '../../src/plan/index.js';

const resource = { kind: 'glossary', name: 'G' } as const;
const base = { key: 'op-1', dependsOn: [], resource };
const dictionary = { sourceLang: 'en', targetLang: 'de', entries: [['ä', 'b']] as [string, string][] };

describe('requestOf', () => {
  it('maps every operation to its spec method and path', () => {
    const ops: Operation[] = [
      { ...base, type: 'glossary.create', name: 'G', dictionaries: [dictionary] },
      { ...base, type: 'glossary_v2.create', name: 'G', dictionary },
      { ...base, type: 'glossary.patch', glossaryId: 'g/1', name: 'H' },
      { ...base, type: 'glossary.put_dictionary', glossaryId: 'g1', dictionary },
      { ...base, type: 'glossary.delete_dictionary', glossaryId: 'g1', sourceLang: 'en', targetLang: 'de' },
      { ...base, type: 'glossary.delete', glossaryId: 'g1', api: 'v2' },
      { ...base, type: 'glossary.delete', glossaryId: 'g1', api: 'v3' },
      { ...base, type: 'style_rules.create', name: 'S', language: 'de', configuredRules: {}, customInstructions: [] },
      { ...base, type: 'style_rules.rename', styleId: 's1', name: 'T' },
      { ...base, type: 'style_rules.put_configured_rules', styleId: 's1', configuredRules: {} },
      { ...base, type: 'style_rules.create_instruction', styleId: 's1', label: 'L', prompt: 'p' },
      { ...base, type: 'style_rules.update_instruction', styleId: 's1', instructionId: 'i1', label: 'L', prompt: 'p' },
      { ...base, type: 'style_rules.delete', styleId: 's1' },
    ];
    expect(ops.map(requestLineOf)).toEqual([
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
      'DELETE /v3/style_rules/s1',
    ]);
    // `ä\tb` (no final line break): ä is two bytes in UTF-8.
    expect(ops.map(uploadBytesOf)).toEqual([4, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
