import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConceptCollector } from '../../src/formats/common/collect-concepts.js';
import { EntryCollector } from '../../src/formats/common/collect-entries.js';

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

describe('EntryCollector lines', () => {
  it('names the first line of a duplicate or twin wherever it is kept, with or without a hint, past the room made', () => {
    for (const hint of [undefined, 3, 500]) {
      const diagnostics: { code: string; message: string; line: number }[] = [];
      const collector = new EntryCollector('t.tsv', diagnostics as never, 'row');
      if (hint !== undefined) collector.expect(hint);
      for (let i = 0; i < 300; i++) collector.add(`term ${i}`, `Begriff ${i}`, 1000 + i, 1, 1000 + i, 2);
      collector.add('term 7', 'x', 2000, 1, 2000, 2);
      collector.add('term 250', 'x', 2001, 1, 2001, 2);
      collector.add('Term 299', 'x', 2002, 1, 2002, 2);
      expect(diagnostics.map((d) => `${d.code} ${d.line}: ${d.message}`)).toEqual([
        'entries/duplicate-source 2000: duplicate source phrase "term 7" on rows 1007 and 2000; the service rejects the whole dictionary',
        'entries/duplicate-source 2001: duplicate source phrase "term 250" on rows 1250 and 2001; the service rejects the whole dictionary',
        'entries/case-twin 2002: source phrase "Term 299" differs only in case from the source phrase on row 1299',
      ]);
      expect(collector.packed().size).toBe(301);
    }
  });
});
