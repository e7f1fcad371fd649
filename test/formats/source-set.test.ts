import { describe, expect, it } from 'vitest';
import { hashOf, SourceSet } from '../../src/formats/common/source-set.js';

describe('SourceSet', () => {
  it('finds keys added as strings and as ranges of one text, in a set sized beforehand', () => {
    const set = new SourceSet();
    set.expect(1000);
    const text = 'Haus\tBaum\tHaus';
    expect(set.addRange(text, 0, 4)).toBe(-1);
    expect(set.addRange(text, 5, 9)).toBe(-1);
    expect(set.addRange(text, 10, 14)).toBe(0);
    expect(set.indexOf('Baum')).toBe(1);
    expect(set.indexOf('Dach')).toBe(-1);
    expect(set.size).toBe(2);
  });

  it('can be sized and used again after release (its arrays serving the next set)', () => {
    const first = new SourceSet();
    first.addString('a');
    first.release();
    first.expect(100_000);
    expect(first.addString('b')).toBe(-1);
    expect(first.indexOf('b')).toBe(0);
    const next = new SourceSet();
    expect(next.addString('a')).toBe(-1);
    expect(next.size).toBe(1);
  });

  it('finds and adds ranges of another text than its own, with one hash for two sets', () => {
    const own = 'Haus\tdach\nBaum';
    const other = 'haus dach baum';
    const set = new SourceSet();
    set.addRange(own, 0, 4);
    set.addString('dach');
    expect(set.indexOfRange(other, 5, 9)).toBe(1);
    expect(set.indexOfRange(other, 0, 4)).toBe(-1);
    const hash = hashOf(other, 10, 14);
    expect(hash).toBe(hashOf('baum'));
    expect(set.addRangeOf(other, 10, 14, hash)).toBe(-1);
    expect(set.indexOf('baum')).toBe(2);
    expect(set.addRangeOf(own, 0, 4)).toBe(0);
    const lowered = new SourceSet();
    expect(lowered.addRangeOf(other, 0, 4)).toBe(-1);
    expect(lowered.addRangeOf(other, 0, 4)).toBe(0);
    expect(lowered.addString('haus')).toBe(0);
    expect(lowered.indexOfRange(own.toLowerCase(), 0, 4)).toBe(0);
  });
});
