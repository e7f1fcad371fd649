import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/model/index.js';
import { uploadBytesOf } from '../../src/lib/operation-request.js';

// The request each operation becomes, and that the emulator serves it: endpoints.test.ts.

const resource = { kind: 'glossary', name: 'G' } as const;
const base = { key: 'op-1', dependsOn: [], resource };
const dictionary = { sourceLang: 'en', targetLang: 'de', entries: [['ä', 'b']] as [string, string][] };

describe('uploadBytesOf', () => {
  it('counts the entries each operation uploads, in UTF-8', () => {
    const ops: Operation[] = [
      { ...base, type: 'glossary.create', name: 'G', dictionaries: [dictionary, dictionary] },
      { ...base, type: 'glossary_v2.create', name: 'G', dictionary },
      { ...base, type: 'glossary.patch', glossaryId: 'g1', name: 'H' },
      { ...base, type: 'glossary.patch', glossaryId: 'g1', dictionary },
      { ...base, type: 'glossary.put_dictionary', glossaryId: 'g1', dictionary },
      { ...base, type: 'glossary.delete_dictionary', glossaryId: 'g1', sourceLang: 'en', targetLang: 'de' },
      { ...base, type: 'style_rules.create', name: 'S', language: 'de', configuredRules: {}, customInstructions: [] },
    ];
    // `ä\tb` (no final line break): ä is two bytes in UTF-8.
    expect(ops.map(uploadBytesOf)).toEqual([8, 4, 0, 4, 4, 0, 0]);
  });
});
