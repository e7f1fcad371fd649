// The entries writers production runs (pull's CSV_WRITER and TSV_WRITER, whose `create` import's
// TSV files use too): every file they write, new or rewritten, reads back through the loader's
// parser to exactly the entries it was written from, without an error. The generator makes the
// hard cases often: entries that read as a header when they come first (`source,target`,
// `term,translation`, `source_lang,target_lang`, the pair's own codes or English names, in any
// case), put first, or put second behind an entry the service removes, in files with and without a
// header, blank lines, CRLF and other delimiters.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { parseEntries } from '../../src/config/index.js';
import type { CsvDelimiter } from '../../src/formats/entries-format.js';
import { canonicalPhrase, findControlCharacter } from '../../src/lib/canonical.js';
import { ENGLISH_LANGUAGE_NAMES } from '../../src/lib/languages.js';
import type { LanguagePair } from '../../src/model/entries.js';
import { CSV_WRITER } from '../../src/formats/csv/csv-format.js';
import type { EntriesWriter } from '../../src/formats/entries-format.js';
import { TSV_WRITER } from '../../src/formats/tsv/tsv-format.js';

const PAIRS: readonly LanguagePair[] = [
  { sourceLang: 'en', targetLang: 'de' },
  { sourceLang: 'de', targetLang: 'en' },
  { sourceLang: 'fr', targetLang: 'ja' },
];

/** A word in a random mix of upper and lower case. */
const anyCase = (word: string): fc.Arbitrary<string> =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) => [...word].map((c, i) => (upper[i] === true ? c.toUpperCase() : c)).join(''));

/** Entries that read as a header row (CSV) or line (TSV, the pair's codes) when they come first. */
const headerLike = (pair: LanguagePair): fc.Arbitrary<[string, string]> =>
  fc.oneof(
    fc.tuple(anyCase('source'), anyCase('target')),
    fc.tuple(anyCase('term'), anyCase('translation')),
    fc.tuple(anyCase('source_lang'), anyCase('target_lang')),
    fc.tuple(anyCase(pair.sourceLang), anyCase(pair.targetLang)),
    // The pair's English names: a first row so is refused as a header, so the writers guard it too.
    fc.tuple(anyCase(ENGLISH_LANGUAGE_NAMES[pair.sourceLang as 'en']?.[0] ?? ''), anyCase(ENGLISH_LANGUAGE_NAMES[pair.targetLang as 'en']?.[0] ?? '')),
  );

const piece = fc.constantFrom('a', 'Z', 'é', 'ß', '日本', '😀', ' ', ',', ';', '"', "'", 'source', 'en', 'de', '-', '.');
// A phrase a dictionary can hold: canonical, no tab or line break, no control character.
const phrase = fc
  .array(piece, { minLength: 1, maxLength: 5 })
  .map((parts) => canonicalPhrase(parts.join('')))
  .filter((p) => p !== '' && findControlCharacter(p) === -1);

/** A dictionary: header-like entries mixed with others, often first, sources unique after canonicalisation. */
const dictionary = (pair: LanguagePair): fc.Arbitrary<[string, string][]> =>
  fc
    .tuple(fc.array(fc.tuple(phrase, phrase), { maxLength: 8 }), fc.array(headerLike(pair), { maxLength: 2 }), fc.nat(3))
    .map(([plain, headers, at]) => {
      const rows = [...plain];
      // Header-like entries first (at 0), second (behind one the service may remove), or further down.
      for (const h of headers) rows.splice(Math.min(at === 3 ? rows.length : at, rows.length), 0, h);
      const seen = new Set<string>();
      return rows.filter(([source]) => !seen.has(source) && seen.add(source) !== undefined);
    });

/** The bytes a text writer wrote (they write synchronously). */
function written(bytes: Uint8Array | Promise<Uint8Array>): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  throw new Error('a text writer returned a promise');
}

/** What the loader reads from a file's bytes (no error allowed). */
function readBack(bytes: Uint8Array, format: 'tsv' | 'csv', pair: LanguagePair, delimiter: CsvDelimiter | undefined): Map<string, string> {
  const { entries, diagnostics } = parseEntries(new TextDecoder().decode(bytes), format, pair, `t.${format}`, undefined, delimiter);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return new Map(entries);
}

interface Case {
  readonly format: 'tsv' | 'csv';
  readonly writer: EntriesWriter;
  readonly delimiters: readonly (CsvDelimiter | undefined)[];
}

const CASES: readonly Case[] = [
  { format: 'csv', writer: CSV_WRITER, delimiters: [undefined, ';', '\t'] },
  { format: 'tsv', writer: TSV_WRITER, delimiters: [undefined] },
];

/** How an existing file may look around what the writer would make of its entries: a header, blank lines, CRLF, a byte order mark. */
const layout = fc.record({ header: fc.boolean(), blankFirst: fc.boolean(), crlf: fc.boolean(), bom: fc.boolean() });

function styled(text: string, format: 'tsv' | 'csv', pair: LanguagePair, delimiter: CsvDelimiter, style: { header: boolean; blankFirst: boolean; crlf: boolean; bom: boolean }): string {
  // A header of the file's own (whatever follows it: a header line the writer put there reads as an entry then).
  let body = text;
  if (style.header) body = `${format === 'tsv' ? `${pair.sourceLang}\t${pair.targetLang}` : `source${delimiter}target`}\n${body}`;
  if (style.blankFirst) body = `\n${body}`;
  if (style.bom) body = `\uFEFF${body}`;
  return style.crlf ? body.replace(/\n/g, '\r\n') : body;
}

for (const { format, writer, delimiters } of CASES) {
  describe(`${format}: what the production writer writes reads back to exactly its entries (properties)`, () => {
    it('a new file (pull `create`, import)', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...PAIRS).chain((pair) => fc.tuple(fc.constant(pair), dictionary(pair), fc.constantFrom(...delimiters))),
          ([pair, rows, delimiter]) => {
            const live = new Map(rows);
            const bytes = written(writer.create([{ pair, live, ...(delimiter === undefined ? {} : { delimiter }) }]));
            expect(readBack(bytes, format, pair, delimiter)).toEqual(live);
          },
        ),
        { numRuns: runs(1500) },
      );
    });

    it('an existing file rewritten (pull `rewrite`): entries removed, changed and added, a header-like one coming first', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...PAIRS).chain((pair) => fc.tuple(fc.constant(pair), dictionary(pair), dictionary(pair), fc.constantFrom(...delimiters), layout, fc.array(fc.boolean(), { maxLength: 12 }))),
          ([pair, before, extra, delimiter, style, kept]) => {
            const d = delimiter ?? ',';
            const original = styled(new TextDecoder().decode(written(writer.create([{ pair, live: new Map(before), ...(delimiter === undefined ? {} : { delimiter }) }]))), format, pair, d, style);
            // The service's side: some entries of the file removed, some changed, others added.
            const live = new Map<string, string>();
            before.forEach(([source, target], i) => {
              if (kept[i] === false) return;
              live.set(source, i % 3 === 2 ? `${target} 2` : target);
            });
            for (const [source, target] of extra) if (!live.has(source) && !before.some(([s]) => s === source)) live.set(source, target);
            const bytes = written(writer.rewrite(new TextEncoder().encode(original), [{ pair, live, ...(delimiter === undefined ? {} : { delimiter }) }]));
            expect(readBack(bytes, format, pair, delimiter)).toEqual(live);
          },
        ),
        { numRuns: runs(1500) },
      );
    });
  });
}

describe('the hard cases, written out', () => {
  const de = { sourceLang: 'en', targetLang: 'de' };
  const text = (bytes: Uint8Array | Promise<Uint8Array>): string => new TextDecoder('utf-8', { ignoreBOM: true }).decode(written(bytes));

  it('a first entry that reads as a header gets a header line before it, and no other file does', () => {
    expect(text(CSV_WRITER.create([{ pair: de, live: new Map([['Source', 'Target'], ['cart', 'Wagen']]) }]))).toBe('source,target\nSource,Target\ncart,Wagen\n');
    expect(text(CSV_WRITER.create([{ pair: de, live: new Map([['EN', 'de']]), delimiter: ';' }]))).toBe('source;target\nEN;de\n');
    expect(text(CSV_WRITER.create([{ pair: de, live: new Map([['cart', 'Wagen'], ['source', 'target']]) }]))).toBe('cart,Wagen\nsource,target\n');
    expect(text(TSV_WRITER.create([{ pair: de, live: new Map([['En', 'DE'], ['cart', 'Wagen']]) }]))).toBe('en\tde\nEn\tDE\ncart\tWagen\n');
    expect(text(TSV_WRITER.create([{ pair: de, live: new Map([['source', 'target']]) }]))).toBe('source\ttarget\n');
  });

  it('an entry that becomes first when the one before it is removed gets a header line; a file with a header keeps it', () => {
    const csv = new TextEncoder().encode('cart,Wagen\r\nterm,translation\r\n');
    expect(text(CSV_WRITER.rewrite(csv, [{ pair: de, live: new Map([['term', 'translation']]) }]))).toBe('source,target\r\nterm,translation\r\n');
    const tsv = new TextEncoder().encode('\uFEFFcart\tWagen\nen\tde\n');
    expect(text(TSV_WRITER.rewrite(tsv, [{ pair: de, live: new Map([['en', 'de'], ['bag', 'Tasche']]) }]))).toBe('\uFEFFen\tde\nen\tde\nbag\tTasche\n');
    const headed = new TextEncoder().encode('en\tde\ncart\tWagen\n');
    expect(text(TSV_WRITER.rewrite(headed, [{ pair: de, live: new Map([['cart', 'Korb']]) }]))).toBe('en\tde\ncart\tKorb\n');
  });
});
