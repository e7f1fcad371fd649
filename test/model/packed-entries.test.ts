import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { glossaryBytes } from '../../src/config/validate-repository.js';
import { canonicalPhrase, findControlCharacter } from '../../src/lib/canonical.js';
import { entriesBody } from '../../src/lib/entries-tsv.js';
import type { DesiredGlossary } from '../../src/model/desired.js';
import { PackedEntries } from '../../src/model/packed-entries.js';
import { toEntryList } from '../../src/lib/entries-tsv.js';

// Canonical phrases as a dictionary holds them: with spaces, case twins, non-Latin scripts, astral characters.
const piece = fc.constantFrom('a', 'A', 'b', 'ß', 'é', 'e\u0301', '日本', '😀', ' ', ',', '"', 'z', 'Z', '0');
const phrase = fc
  .array(fc.oneof(piece, fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 6 })
  .map((parts) => canonicalPhrase(parts.join('')))
  .filter((p) => p !== '' && !p.includes('\t') && !p.includes('\n') && findControlCharacter(p) === -1);
const pairs = fc.uniqueArray(fc.tuple(phrase, phrase), { selector: ([source]) => source, maxLength: 40 });

const glossary = (entries: ReadonlyMap<string, string>): DesiredGlossary => ({
  kind: 'glossary',
  name: 'g',
  api: 'v3',
  preventDestroy: false,
  dictionaries: [{ sourceLang: 'en', targetLang: 'de', entries, origin: { file: 'g.yaml', line: 1, column: 1 } }],
  origin: { file: 'g.yaml', line: 1, column: 1 },
});

describe('packed entries (properties)', () => {
  it('behave as a Map of the same pairs: size, lookups, iteration in the order added', () => {
    fc.assert(
      fc.property(pairs, phrase, (list, other) => {
        const map = new Map(list);
        const packed = PackedEntries.fromPairs(list);
        expect(packed.size).toBe(map.size);
        expect([...packed]).toEqual([...map]);
        expect([...packed.keys()]).toEqual([...map.keys()]);
        expect([...packed.values()]).toEqual([...map.values()]);
        const visited: [string, string][] = [];
        packed.forEach((target, source) => visited.push([source, target]));
        expect(visited).toEqual([...map]);
        for (const [source, target] of list) expect(packed.get(source)).toBe(target);
        expect(packed.get(other)).toBe(map.get(other));
        expect(packed.has(other)).toBe(map.has(other));
      }),
      { numRuns: runs(500) },
    );
  });

  it('answer lookups in source order (walked, no index), with entries skipped and absent sources, then in any order alike', () => {
    fc.assert(
      fc.property(pairs, fc.array(phrase, { maxLength: 10 }), fc.array(fc.boolean(), { minLength: 50, maxLength: 50 }), (list, others, pick) => {
        const map = new Map(list);
        const packed = PackedEntries.fromPairs(list);
        // Ascending lookups, as a comparison with a sorted live dictionary makes them: some entries
        // skipped (the live side lacks them), some sources absent (the repository lacks them).
        const asked = [...new Set([...list.map(([source]) => source).filter((_, i) => pick[i % pick.length] !== false), ...others])].sort();
        for (const [k, source] of asked.entries()) {
          if (k % 3 === 2) expect(packed.has(source)).toBe(map.has(source));
          else expect(packed.get(source)).toBe(map.get(source));
        }
        // Then out of order: every answer still right.
        for (const source of [...asked].reverse()) expect(packed.get(source)).toBe(map.get(source));
        for (const [source, target] of list) expect(packed.get(source)).toBe(target);
      }),
      { numRuns: runs(500) },
    );
  });

  it('sorted once: the sorted list and upload body equal those of the Map', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const map = new Map(list);
        const packed = PackedEntries.fromPairs(list);
        const sorted = toEntryList(map);
        expect(packed.sortedList()).toEqual(sorted);
        expect(packed.sortedBody()).toBe(entriesBody(sorted));
        expect(packed.sortedLines()).toBe(packed.sortedLines());
        // Entries already in source order (as termsync writes files): the same forms, from slices.
        const inOrder = PackedEntries.fromPairs(sorted);
        expect(inOrder.sortedBody()).toBe(entriesBody(sorted));
        expect(inOrder.sortedList()).toEqual(sorted);
      }),
      { numRuns: runs(500) },
    );
  });

  it('sort lines exactly as the sources compare by code unit, prefixes and code units below TAB included', () => {
    // Sources that are prefixes of each other, and (not canonical, but possible in a packed text) code units below TAB.
    const unit = fc.constantFrom('a', 'b', 'a ', ' ', '!', '\u0001', '\u0008', '\u000b', '\u001f', 'ä', '\uffff', '😀', '\ud800');
    const raw = fc.array(unit, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(raw, raw), { selector: ([source]) => source, maxLength: 60 }), (list) => {
        const packed = PackedEntries.fromPairs(list);
        const expected = [...list].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        expect(packed.sortedList()).toEqual(expected);
        expect(packed.sortedBody()).toBe(expected.map(([source, target]) => `${source}\t${target}`).join('\n'));
        for (const [source, target] of expected) expect(packed.get(source)).toBe(target);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('give a comparison the sorted lines without keeping them, unless they are kept already', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const packed = PackedEntries.fromPairs(list);
        const brief = packed.linesBySource();
        // Made afresh each time: nothing was kept.
        if (list.length > 0) expect(packed.linesBySource()).not.toBe(brief);
        const kept = packed.sortedLines();
        expect(brief).toEqual(kept);
        expect(packed.linesBySource()).toBe(kept);
      }),
    );
  });

  it('count the bytes of the upload as the Map does, and survive a structured clone', () => {
    fc.assert(
      fc.property(pairs, (list) => {
        const packed = PackedEntries.fromPairs(list);
        expect(glossaryBytes(glossary(packed))).toBe(glossaryBytes(glossary(new Map(list))));
        const revived = PackedEntries.fromWire(structuredClone({ text: packed.text, size: packed.size }));
        expect([...revived]).toEqual(list);
        expect(PackedEntries.fromText(packed.text).size).toBe(list.length);
      }),
      { numRuns: runs(300) },
    );
  });

  it('the empty dictionary', () => {
    expect(PackedEntries.fromPairs([])).toBe(PackedEntries.EMPTY);
    expect([...PackedEntries.EMPTY]).toEqual([]);
    expect(PackedEntries.EMPTY.utf8Bytes()).toBe(0);
    expect(PackedEntries.EMPTY.sortedBody()).toBe('');
  });
});
