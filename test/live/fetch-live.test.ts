import { describe, expect, it } from 'vitest';
import { fetchLive, mergeGlossaryListings, type LiveReader } from '../../src/live/fetch-live.js';
import { dictionariesOfFingerprints } from '../../src/live/select-dictionaries.js';
import type { LiveGlossary } from '../../src/model/live.js';

const t = '2026-01-01T00:00:00.000Z';
const v3: LiveGlossary[] = [
  { id: 'g2', name: 'Legacy', api: 'v3', creationTime: t, dictionaries: [{ sourceLang: 'EN', targetLang: 'DE', entryCount: 1 }] },
  { id: 'g1', name: 'Product', api: 'v3', creationTime: t, dictionaries: [{ sourceLang: 'en', targetLang: 'fr', entryCount: 2 }] },
];
const v2: LiveGlossary[] = [{ id: 'g2', name: 'Legacy', api: 'v2', creationTime: t, dictionaries: [{ sourceLang: 'EN', targetLang: 'DE', entryCount: 1 }] }];

describe('mergeGlossaryListings', () => {
  it('counts a glossary listed by both APIs once, as v2 when the repo declares it so, with lowercase language codes', () => {
    const merged = mergeGlossaryListings(v3, v2, new Set(['Legacy']));
    expect(merged.map((g) => [g.id, g.api])).toEqual([
      ['g1', 'v3'],
      ['g2', 'v2'],
    ]);
    expect(merged[1]?.dictionaries).toEqual([{ sourceLang: 'en', targetLang: 'de', entryCount: 1 }]);
  });

  it('treats a one-dictionary glossary the v2 listing also shows as v3 unless a v2 glossary of its name is declared', () => {
    // The service lists every monolingual glossary under /v2, whichever API created it.
    expect(mergeGlossaryListings(v3, v2).map((g) => g.api)).toEqual(['v3', 'v3']);
  });
});

describe('fetchLive', () => {
  it('reads entries only for the selected dictionaries, through the right API, canonicalised', async () => {
    const reads: string[] = [];
    const client: LiveReader = {
      listGlossaries: () => Promise.resolve(v3),
      listGlossariesV2: () => Promise.resolve(v2),
      listStyleRules: () => Promise.resolve([]),
      getEntries: (id, s, tgt) => {
        reads.push(`v3:${id}:${s}-${tgt}`);
        return Promise.resolve([
          [' cafe\u0301 ', 'Caf\u00e9\r\nBar'],
          ['b', 'c'],
        ]);
      },
      getEntriesV2: (id) => {
        reads.push(`v2:${id}`);
        return Promise.resolve([['x', 'y']]);
      },
    };
    const live = await fetchLive(
      client,
      (glossaries) =>
        glossaries.map((g) => ({ glossaryId: g.id, api: g.api, sourceLang: g.dictionaries[0]?.sourceLang ?? '', targetLang: g.dictionaries[0]?.targetLang ?? '' })),
      new Set(['Legacy']),
    );
    expect(reads.sort()).toEqual(['v2:g2', 'v3:g1:en-fr']);
    expect([...(live.entries.get('g1/en-fr') ?? [])]).toEqual([
      ['caf\u00e9', 'Caf\u00e9\nBar'],
      ['b', 'c'],
    ]);
    expect([...(live.entries.get('g2/en-de') ?? [])]).toEqual([['x', 'y']]);
  });
});

describe('dictionariesOfFingerprints', () => {
  it('re-reads what a saved plan read, except dictionaries and glossaries gone since', () => {
    const glossaries = mergeGlossaryListings(v3, v2, new Set(['Legacy']));
    const toRead = dictionariesOfFingerprints(
      {
        glossaries: [
          { id: 'g1', name: 'Product', api: 'v3', dictionaries: [], entryHashes: { 'en-fr': 'h', 'en-it': 'h' } },
          { id: 'g2', name: 'Legacy', api: 'v2', dictionaries: [], entryHashes: { 'en-de': 'h' } },
          { id: 'gone', name: 'Gone', api: 'v3', dictionaries: [], entryHashes: { 'en-de': 'h' } },
        ],
        styleRules: [],
      },
      glossaries,
    );
    expect(toRead).toEqual([
      { glossaryId: 'g1', api: 'v3', sourceLang: 'en', targetLang: 'fr' },
      { glossaryId: 'g2', api: 'v2', sourceLang: 'en', targetLang: 'de' },
    ]);
  });
});
