import { describe, expect, it } from 'vitest';
import { isUncased, SourceSet } from '../../src/formats/common/source-set.js';

describe('SourceSet: a source told uncased is its own lowercase form', () => {
  it('isUncased holds only of code units toLowerCase leaves as they are', () => {
    const changed: string[] = [];
    for (let c = 0x100; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      if (isUncased(c) && s.toLowerCase() !== s) changed.push(c.toString(16));
    }
    expect(changed).toEqual([]);
  });

  it('every code unit that lowercasing changes (alone or before and after another) makes its range cased', () => {
    const missed: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      const text = `x${s}y\tz`;
      const set = new SourceSet();
      set.addRange(text, 0, 3);
      if (text.slice(0, 3).toLowerCase() !== text.slice(0, 3) && !set.lastRangeMayHaveCase) missed.push(c.toString(16));
    }
    expect(missed).toEqual([]);
    // CJK, kana, Hangul and lowercase Cyrillic are uncased (the case-twin check lowercases none of them).
    const set = new SourceSet();
    const text = '尺寸ジャケット재킷размер\tx';
    set.addRange(text, 0, text.indexOf('\t'));
    expect(set.lastRangeMayHaveCase).toBe(false);
  });
});
