import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConceptCollector } from '../../src/config/collect-concepts.js';
import { EntryCollector } from '../../src/config/collect-entries.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('ConceptCollector.expect', () => {
  const pairs = ['de', 'fr', 'ja', 'es', 'it', 'nl', 'pl', 'pt'].map((targetLang) => ({ sourceLang: 'en', targetLang }));
  const languages = ['en', ...pairs.map((p) => p.targetLang)];

  it('makes room for the hinted concepts in every dictionary, and for at most `total` entries across them', () => {
    const expected = vi.spyOn(EntryCollector.prototype, 'expect');
    new ConceptCollector('terms.xlsx', [], pairs, languages, 'row', 'row').expect(262_144, 524_288);
    expect(expected.mock.calls).toEqual(pairs.map(() => [65_536]));
    expected.mockClear();
    new ConceptCollector('terms.xlsx', [], pairs.slice(0, 2), languages.slice(0, 3), 'row', 'row').expect(100_000, 524_288);
    expect(expected.mock.calls).toEqual([[100_000], [100_000]]);
    expected.mockClear();
    new ConceptCollector('terms.tbx', [], pairs, languages).expect(5_000);
    expect(expected.mock.calls).toEqual(pairs.map(() => [5_000]));
  });
});
