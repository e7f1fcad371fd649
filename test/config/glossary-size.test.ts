import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { encodeEntries } from '../../src/api/tsv-entries.js';
import { glossaryBytes, MAX_GLOSSARY_BYTES, validateRepository } from '../../src/config/validate-repository.js';
import { parseEntries as serviceParseEntries } from '../../src/emulator/parse-entries.js';
import { canonicalPhrase, findControlCharacter } from '../../src/lib/canonical.js';
import type { DesiredDictionary, DesiredGlossary } from '../../src/model/desired.js';

const origin = { file: 'glossaries/big.yaml', line: 1, column: 1 };

function glossary(dictionaries: readonly Map<string, string>[]): DesiredGlossary {
  const langs = ['de', 'fr', 'es', 'it'];
  return {
    kind: 'glossary',
    name: 'Catalogue',
    api: 'v3',
    preventDestroy: false,
    origin,
    dictionaries: dictionaries.map((entries, i): DesiredDictionary => ({ sourceLang: 'en', targetLang: langs[i] ?? 'ja', entries, origin })),
  };
}

/** `count` entries of exactly 1000 bytes each as a TSV line (7 + tab + 992, one 2-byte character). */
function lines(count: number, from = 0): Map<string, string> {
  const entries = new Map<string, string>();
  const target = `ü${'a'.repeat(990)}`;
  for (let i = from; i < from + count; i++) entries.set(`k${String(i).padStart(6, '0')}`, target);
  return entries;
}

/** The size the client uploads and the service counts: each dictionary's TSV, lines joined by LF. */
function uploadedBytes(dictionaries: readonly Map<string, string>[]): number {
  return dictionaries.reduce((sum, entries) => sum + Buffer.byteLength(encodeEntries([...entries]).entries, 'utf8'), 0);
}

describe('glossary size (10 MiB, as uploaded)', () => {
  // Two dictionaries: 5000 lines of 1000 bytes each (+ 4999 newlines), and the rest of the
  // limit in the second one, its last target phrase made to fill it to the byte.
  const first = lines(5000);
  const atLimit = (extra: number): Map<string, string> => {
    const second = lines(5000, 5000);
    const used = 2 * (5000 * 1000 + 4999) + 1 + 7 + 1;
    second.set('k999999', `ü${'a'.repeat(MAX_GLOSSARY_BYTES - used - 2 + extra)}`);
    return second;
  };

  it('accepts a glossary of exactly 10485760 bytes over two dictionaries', () => {
    const dictionaries = [first, atLimit(0)];
    expect(uploadedBytes(dictionaries)).toBe(MAX_GLOSSARY_BYTES);
    expect(glossaryBytes(glossary(dictionaries))).toBe(MAX_GLOSSARY_BYTES);
    expect(validateRepository([glossary(dictionaries)], [])).toEqual([]);
  });

  it('refuses one byte more', () => {
    const dictionaries = [first, atLimit(1)];
    expect(uploadedBytes(dictionaries)).toBe(MAX_GLOSSARY_BYTES + 1);
    expect(validateRepository([glossary(dictionaries)], [])).toEqual([
      expect.objectContaining({ code: 'glossary/too-large', message: `glossary "Catalogue" holds ${MAX_GLOSSARY_BYTES + 1} bytes of entries as uploaded (TSV); the service's limit is ${MAX_GLOSSARY_BYTES} bytes (10 MiB)` }),
    ]);
  });

  it('counts what the client sends and the service emulator measures, for any entries', () => {
    // Phrases as the loader produces them: canonical, no character the service refuses.
    const phrase = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => s !== '' && canonicalPhrase(s) === s && findControlCharacter(s) === -1 && !/[\t\n]/.test(s));
    const dictionary = fc.dictionary(phrase, phrase, { minKeys: 1, maxKeys: 20 }).map((record) => new Map(Object.entries(record)));
    fc.assert(
      fc.property(fc.array(dictionary, { minLength: 1, maxLength: 3 }), (dictionaries) => {
        const measured = dictionaries.reduce((sum, entries) => {
          const parsed = serviceParseEntries(encodeEntries([...entries]).entries, 'tsv', { sourceLang: 'en', targetLang: 'de' });
          return sum + (parsed.ok ? parsed.value.bytes : Number.NaN);
        }, 0);
        expect(glossaryBytes(glossary(dictionaries))).toBe(measured);
        expect(glossaryBytes(glossary(dictionaries))).toBe(uploadedBytes(dictionaries));
      }),
      { numRuns: runs(200) },
    );
  });
});
