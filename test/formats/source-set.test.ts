import { describe, expect, it } from 'vitest';
import { SourceSet } from '../../src/formats/common/source-set.js';

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
});
