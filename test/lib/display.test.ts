import { describe, expect, it } from 'vitest';
import { displayJson, displayText } from '../../src/lib/display.js';

describe('displayText: the one display function', () => {
  it('escapes every character that ends, starts or reorders a line, and nothing else', () => {
    expect(displayText('x\n::error title=PWNED::y')).toBe('x\\n::error title=PWNED::y');
    expect(displayText('a\tb\rc\u0000d\u001b[2Je\u007f')).toBe('a\\tb\\rc\\u0000d\\u001b[2Je\\u007f');
    expect(displayText('nel\u0085csi\u009bls\u2028ps\u2029')).toBe('nel\\u0085csi\\u009bls\\u2028ps\\u2029');
    expect(displayText('rlo\u202eiso\u2066pdi\u2069')).toBe('rlo\\u202eiso\\u2066pdi\\u2069');
    // Letters of every script, marks, emoji, quotes and backslashes are text: kept.
    expect(displayText('Größe · 日本語 · עברית\u200f · 👍 · "q" \\ back')).toBe('Größe · 日本語 · עברית\u200f · 👍 · "q" \\ back');
  });

  it('a second pass changes nothing', () => {
    const once = displayText('a\nb\u0085c\u202ed\\ne');
    expect(displayText(once)).toBe(once);
  });
});

describe('displayJson', () => {
  it('the same JSON value, with no line separator or control character left in the text', () => {
    const value = { name: 'x\u2028::error::y', nel: 'a\u0085b', bidi: '\u202e', tab: 'a\tb', del: '\u007f' };
    const text = displayJson(JSON.stringify(value, null, 2));
    expect(JSON.parse(text)).toEqual(value);
    // eslint-disable-next-line no-control-regex
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });
});
