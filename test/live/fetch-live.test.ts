import { describe, expect, it } from 'vitest';
import { fetchEntries, fetchLive, mergeGlossaryListings, type LiveReader } from '../../src/live/fetch-live.js';
import { compareWithRepository } from '../../src/reconcile/reconcile-target.js';
import { hashEntries } from '../../src/plan/fingerprint-live.js';
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

describe('fetchEntries', () => {
  const toRead = Array.from({ length: 40 }, (_, i) => ({ glossaryId: `g${i}`, api: 'v3' as const, sourceLang: 'en', targetLang: 'de' }));

  /** A reader whose reads wait until the test lets them go, counting how many are pending at once. */
  function slowReader(concurrency: number, fail?: string) {
    let pending = 0;
    const stats = { most: 0, started: [] as string[] };
    const reader = {
      concurrency,
      getEntriesV2: () => Promise.reject(new Error('not used')),
      getEntries: async (id: string): Promise<[string, string][]> => {
        stats.started.push(id);
        pending++;
        stats.most = Math.max(stats.most, pending);
        await new Promise((resolve) => setTimeout(resolve, 1));
        pending--;
        if (id === fail) throw new Error(`read of ${id} failed`);
        return [[`term ${id}`, 'Begriff']];
      },
    };
    return { reader, stats };
  }

  it('starts no more reads at once than the client sends, and reads every dictionary', async () => {
    const { reader, stats } = slowReader(3);
    const { entries, compared } = await fetchEntries(reader, toRead);
    expect(stats.most).toBe(3);
    expect(entries.size).toBe(40);
    expect(compared.size).toBe(0);
    expect([...(entries.get('g7/en-de') ?? [])]).toEqual([['term g7', 'Begriff']]);
  });

  it('keeps only the comparison of a dictionary read with the repository\'s entries, hashed when asked', async () => {
    const { reader } = slowReader(4);
    const expected = new Map([['term g1', 'Begriff']]);
    const { entries, compared } = await fetchEntries(reader, [{ ...toRead[1]!, expected }, { ...toRead[2]!, expected }], { hashes: true, compare: compareWithRepository });
    expect(entries.size).toBe(0);
    expect(compared.get('g1/en-de')?.expected).toBe(expected);
    expect(compared.get('g1/en-de')?.diff.entryChanges).toEqual([]);
    expect(compared.get('g1/en-de')?.hash).toBe(hashEntries(expected));
    expect(compared.get('g2/en-de')?.diff).toMatchObject({ added: 1, removed: 1 });
  });

  it('stops starting reads at the first failure and reports it', async () => {
    const { reader, stats } = slowReader(2, 'g3');
    await expect(fetchEntries(reader, toRead)).rejects.toThrow('read of g3 failed');
    // The reads in flight when it failed finish; no new one starts.
    expect(stats.started.length).toBeLessThanOrEqual(6);
  });
});
