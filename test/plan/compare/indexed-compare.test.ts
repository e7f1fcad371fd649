import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntriesText } from '../../../src/api/tsv-entries.js';
import { canonicalEntries } from '../../../src/lib/live-entries.js';
import type { RawEntries } from '../../../src/model/live.js';
import { PackedEntries } from '../../../src/model/packed-entries.js';
import { compareLiveEntries } from '../../../src/plan/compare/index.js';
import { compareIndexed } from '../../../src/plan/compare/indexed-compare.js';
import { runs } from '../../helpers/properties.js';

const where = { method: 'GET', path: '/v3/glossaries/g/entries' };

// Phrases of several scripts, cases and forms: NFD and NFC twins, surrounding spaces (NBSP, U+3000),
// an `n` before a combining tilde (composes with the `n` of an escape), empty, a tab inside.
const phrase = fc.constantFrom('a', 'b', 'B', 'ab', ' a', 'a ', 'cafe\u0301', 'caf\u00e9', 'Größe', 'größe', '\u00a0b', '\u3000z', 'размер', 'Размер', '尺寸', 'サイズ', '\u0303n', 'n', 'z', '', 'x\ty');
// Canonical phrases, as a repository declares them (the loader's packed entries hold no other).
const canonical = phrase.filter((p) => p !== '' && !p.includes('\t') && p.trim() === p && p.normalize('NFC') === p && !p.startsWith('\u00a0') && !p.startsWith('\u3000'));

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The answer as the client reads a v3 one: the TSV text escaped as in its JSON string (`\t`, `\n` only). */
function escapedOf(lines: readonly string[]): string {
  return JSON.stringify(lines.join('\n')).slice(1, -1);
}

/** The plain comparison's reading of the same answer: the client's visit, line by line, every phrase canonicalised (no text to take a shortcut with). */
function plainOf(text: string): RawEntries {
  return { usual: false, visit: new EntriesText(text, where, true).visit };
}

describe('compareIndexed', () => {
  it('gives exactly the plain comparison\'s diff, or leaves the answer to it (out of order, duplicates, non-canonical or malformed lines)', () => {
    let taken = 0;
    let changes = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(canonical, canonical), { maxLength: 10 }),
        fc.array(fc.tuple(phrase, phrase), { maxLength: 10 }),
        fc.constantFrom('upload order', 'as generated', 'repository edited'),
        fc.array(fc.constantFrom('', 'no tab', 'two\ttabs\tx'), { maxLength: 1 }),
        (declared, other, shape, odd) => {
          const expected = PackedEntries.fromPairs(canonicalEntries(declared));
          let pairs: (readonly [string, string])[];
          if (shape === 'repository edited') {
            // The usual answer of a plan with changes: the repository's entries as uploaded, a few changed, dropped or added.
            const live = new Map(expected);
            for (const [i, [s, t]] of other.entries()) {
              if (i % 3 === 0) live.set(s, t);
              else if (i % 3 === 1) live.delete([...live.keys()][i % Math.max(live.size, 1)] ?? '');
              else if (live.has(s)) live.set(s, `${t} neu`);
            }
            pairs = [...live].sort((a, b) => byCodeUnits(a[0], b[0]));
          } else pairs = shape === 'upload order' ? [...other].sort((a, b) => byCodeUnits(a[0], b[0])) : other;
          const lines = pairs.map(([s, t]) => `${s}\t${t}`);
          if (odd.length > 0) lines.splice(lines.length >> 1, 0, odd[0] as string);
          const text = escapedOf(lines);
          let plain: ReturnType<typeof compareLiveEntries> | Error;
          try {
            plain = compareLiveEntries(plainOf(text), expected);
          } catch (error) {
            plain = error as Error;
          }
          const fast = compareIndexed(text, expected);
          if (fast !== undefined) {
            expect(fast).toEqual((plain as ReturnType<typeof compareLiveEntries>).diff);
            taken++;
            if (fast.entryChanges.length > 0) changes++;
          }
          // Through the comparison the plan makes (the client's escaped text): the same diff, or the same error.
          const raw = new EntriesText(text, where, true);
          if (plain instanceof Error) expect(() => compareLiveEntries(raw, expected)).toThrow(plain.message);
          else expect(compareLiveEntries(raw, expected).diff).toEqual(plain.diff);
        },
      ),
      { numRuns: runs(2000) },
    );
    // Not a test of the fallback alone: the indexed comparison took many answers, changes among them.
    expect(taken).toBeGreaterThan(150);
    expect(changes).toBeGreaterThan(50);
  });

  it('takes the usual answers: the repository\'s entries as uploaded, with terms changed, dropped and added, in any script', () => {
    const declared: [string, string][] = [
      ['Größe', 'size'],
      ['размер', 'size'],
      ['尺寸', 'size'],
      ['café', 'coffee'],
      ['jacket', 'Jacke'],
    ];
    const expected = PackedEntries.fromPairs(declared);
    const live = [...declared.filter(([s]) => s !== 'jacket').map(([s, t]): [string, string] => [s, s === 'café' ? 'Kaffee' : t]), ['zip', 'Reißverschluss'] as [string, string]];
    live.sort((a, b) => byCodeUnits(a[0], b[0]));
    const text = escapedOf(live.map(([s, t]) => `${s}\t${t}`));
    const fast = compareIndexed(text, expected);
    expect(fast).toEqual(compareLiveEntries(plainOf(text), expected).diff);
    expect(fast).toMatchObject({ added: 1, changed: 1, removed: 1 });
    // An unchanged answer, and one whose phrases are canonical only once canonicalised (NFD): the same as the plain reading.
    const same = escapedOf([...declared].sort((a, b) => byCodeUnits(a[0], b[0])).map(([s, t]) => `${s}\t${t}`));
    expect(compareIndexed(same, expected)).toEqual({ added: 0, changed: 0, removed: 0, entryChanges: [], upserts: [] });
    const nfdTarget = same.replace('coffee', 'cafe\u0301 coffee'.normalize('NFD'));
    expect(compareIndexed(nfdTarget, expected)).toEqual(compareLiveEntries(plainOf(nfdTarget), expected).diff);
  });
});
