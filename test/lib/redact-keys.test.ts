import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { KeyRedactor } from '../../src/lib/redact-keys.js';
import { runs } from '../helpers/properties.js';

/** What redact did before it looked for every form in one scan: each form in turn, longest first. */
function eachFormInTurn(keys: readonly string[], text: string): string {
  const forms = new Set<string>();
  for (const key of keys) for (const form of key.length >= 16 ? [key, key.toLowerCase()] : [key]) for (const f of [form, JSON.stringify(form).slice(1, -1)]) forms.add(f);
  let out = text;
  for (const form of [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length)) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

describe('KeyRedactor: one scan for every form of every key', () => {
  it('a key is found as written, its characters taken literally (none has a meaning of a pattern)', () => {
    const keys = new KeyRedactor();
    const key = 'k.e*y+?(x)[y]{2}|z^$\\-/';
    keys.add(key);
    expect(keys.redact(`a ${key} b`)).toBe('a [redacted] b');
    expect(keys.redact(JSON.stringify({ k: key }))).toBe('{"k":"[redacted]"}');
    // What the characters would match as a pattern is not the key.
    expect(keys.redact('kXeeey+?x[y]{2}|z^$\\-/')).toBe('kXeeey+?x[y]{2}|z^$\\-/');
    expect(keys.redact('k.e*y+?(x)y|z')).toBe('k.e*y+?(x)y|z');
  });

  it('with hundreds of keys, a text that holds none comes back as it is and one that holds some loses each', () => {
    const names = Array.from({ length: 300 }, (_, i) => `bench-key-t${String(i).padStart(3, '0')}`);
    const keys = new KeyRedactor();
    for (const n of names) keys.add(n);
    const text = JSON.stringify({ ids: Object.fromEntries(names.map((n, i) => [`t${i}`, `glossary-${i}`])) });
    expect(keys.redact(text)).toBe(text);
    expect(keys.redact(`${names[0]} and ${names[299]}, ${names[150]}${names[150]}`)).toBe('[redacted] and [redacted], [redacted][redacted]');
  });

  it('a text that holds no key is scanned once for all the forms, not once per form', () => {
    const keys = new KeyRedactor();
    for (let i = 0; i < 300; i++) keys.add(`bench-key-t${String(i).padStart(3, '0')}`);
    const text = JSON.stringify({ ids: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`t${i}`, `glossary-${i}`])) }, null, 2);
    const includes = vi.spyOn(String.prototype, 'includes');
    try {
      expect(keys.redact(text)).toBe(text);
      expect(includes).not.toHaveBeenCalled();
    } finally {
      includes.mockRestore();
    }
  });

  it('says what redacting each form in turn says, keys inside keys and overlapping ones included', () => {
    const alphabet = fc.constantFrom('a', 'b', 'A', '.', '*', '"', '\\', '|', '(', 'é');
    const word = fc.array(alphabet, { minLength: 0, maxLength: 20 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 5 }), fc.array(word, { maxLength: 8 }), (keys, pieces) => {
        const redactor = new KeyRedactor();
        for (const k of keys) redactor.add(k);
        // The text mixes the keys (as written, JSON-escaped, lowercased) with other pieces.
        const text = pieces.map((p, i) => (keys.length === 0 ? p : `${p}${i % 3 === 0 ? keys[i % keys.length] : i % 3 === 1 ? JSON.stringify(keys[i % keys.length]) : (keys[i % keys.length] ?? '').toLowerCase()}`)).join('');
        expect(redactor.redact(text)).toBe(eachFormInTurn(keys, text));
      }),
      { numRuns: runs(500) },
    );
  });
});
