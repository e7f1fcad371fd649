import { describe, expect, it } from 'vitest';
import { createRandom } from '../../src/emulator/random.js';
import { sortByCodeUnits } from '../../src/model/sort-strings.js';

/** What the default sort gives (code-unit order). */
const reference = (strings: readonly string[]): string[] => [...strings].sort();

describe('sortByCodeUnits', () => {
  it('orders thousands of strings in no order as the default sort does: shared prefixes, strings that are prefixes of others, every script', () => {
    const random = createRandom(7);
    const alphabet = ['a', 'b', 'A', ' ', '\t', 'é', 'ß', 'я', 'ё', '中', '文', 'が', '\u{1f600}', '\u{10000}', '\uffff', '\ue000', '\u0300', '0', '\u0000'];
    const strings: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      // A few shared stems make long runs of ties, so that the sort goes many code units deep.
      let s = ['product term ', 'Größe ', 'размер ', '', '防水'][Math.floor(random() * 5)] as string;
      const length = Math.floor(random() * 12);
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(random() * alphabet.length)] as string;
      strings.push(s);
    }
    const sorted = [...strings];
    expect(sortByCodeUnits(sorted)).toBe(false);
    expect(sorted).toEqual(reference(strings));
  });

  it('orders equal strings and strings that differ only past a long common prefix', () => {
    const stem = 'x'.repeat(300);
    const strings: string[] = [];
    for (let i = 0; i < 3000; i++) strings.push(`${stem}${(i * 7919) % 1000}`, `${stem}`, `${stem}\u0000${i % 3}`);
    const sorted = [...strings];
    sortByCodeUnits(sorted);
    expect(sorted).toEqual(reference(strings));
  });

  it('says whether the strings were in order already, and leaves them so', () => {
    const strings = Array.from({ length: 5000 }, (_, i) => `term ${String(i).padStart(5, '0')}`);
    const copy = [...strings];
    expect(sortByCodeUnits(copy)).toBe(true);
    expect(copy).toEqual(strings);
  });

  it('orders strings nearly in order (a few lines out of place) and short lists', () => {
    const strings = Array.from({ length: 5000 }, (_, i) => `term ${String(i).padStart(5, '0')}`);
    [strings[10], strings[4000]] = [strings[4000] as string, strings[10] as string];
    const nearly = [...strings];
    expect(sortByCodeUnits(nearly)).toBe(false);
    expect(nearly).toEqual(reference(strings));
    const short = ['b', 'a', 'ab', 'B', ''];
    sortByCodeUnits(short);
    expect(short).toEqual(['', 'B', 'a', 'ab', 'b']);
  });
});
