import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { jsonBody } from '../../src/api/json-body.js';
import { UploadBody } from '../../src/lib/entries-tsv.js';

/** Long TSV-like strings: lines of phrases with tabs and line breaks, sometimes a character JSON escapes otherwise. */
const phrase = fc.string({ unit: fc.constantFrom('a', 'ö', 'ß', '€', '😀', ' ', '\t', '\n', '"', '\\', '\u0001', '\ud800', 'x'), maxLength: 12 });
const longText = fc
  .tuple(fc.array(phrase, { minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 3 }))
  .map(([phrases, extra]) => {
    let s = phrases.join('\t');
    while (s.length < 64 * 1024 + extra) s += `\n${s}`;
    return s;
  });

describe('jsonBody', () => {
  it('gives exactly the bytes of JSON.stringify, long strings written in place or not', () => {
    fc.assert(
      fc.property(longText, longText, fc.string(), (a, b, name) => {
        // eslint-disable-next-line no-control-regex
        const plain = a.replace(/["\\\u0000-\u0008\u000b-\u001f\ud800-\udfff]/g, 'x');
        for (const value of [{ name, dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: plain, entries_format: 'tsv' }, { entries: b }] }, { name, entries: plain }, plain, { short: name }]) {
          expect(Buffer.from(jsonBody(value)).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
        }
      }),
      { numRuns: runs(40) },
    );
  });

  it('writes a 10 MiB dictionary body as JSON.stringify would', () => {
    const entries = Array.from({ length: 200_000 }, (_, i) => `waterproof jacket ${i}\tWasserdichte Jacke ${i} Größe`).join('\n');
    const value = { name: 'Catalogue', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries, entries_format: 'tsv' }] };
    const body = jsonBody(value);
    // Written in place (a buffer), not through a JSON text.
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(Buffer.from(body).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
    // A small value stays its JSON text.
    expect(jsonBody({ name: 'Catalogue' })).toBe('{"name":"Catalogue"}');
  });

  it('writes an upload body of sorted lines (a large dictionary\'s) as JSON.stringify writes its text, blocks of lines and escapes alike', () => {
    let inPlace = 0;
    // Mostly phrases JSON writes as they are (the body then goes in place), now and then one it escapes otherwise (then as a string).
    const clean = fc.string({ unit: fc.constantFrom('a', 'ö', 'ß', '€', '尺', ' ', 'x'), minLength: 1, maxLength: 12 });
    const any = fc.oneof({ arbitrary: clean, weight: 20 }, { arbitrary: phrase.map((p) => p.replace(/[\t\n]/g, '')), weight: 1 });
    const line = fc.tuple(any, any).map(([s, t]) => `${s}\t${t}`);
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 3000 }), fc.string(), (some, n, name) => {
        const lines = Array.from({ length: n }, (_, i) => `${some[i % some.length] as string}${i}`);
        const text = `${lines.join('\n')}\n`;
        const body = new UploadBody(lines, text, Buffer.byteLength(text, 'utf8') - 1);
        for (const value of [{ name, dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: body, entries_format: 'tsv' }, { entries: body }] }, { entries: body, other: text }, body]) {
          const written = jsonBody(value);
          expect(Buffer.from(written).equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
          if (Buffer.isBuffer(written)) inPlace++;
        }
      }),
      { numRuns: runs(60) },
    );
    expect(inPlace).toBeGreaterThan(30);
  });
});
