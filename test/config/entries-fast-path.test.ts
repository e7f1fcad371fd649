import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { parseEntries } from '../../src/config/index.js';
import { canonicalPhrase, isNfcText } from '../../src/lib/canonical.js';

// A TSV file's lines are kept as they are, without normalising each phrase, while they are plain
// (EntryCollector.addPlainLine): below U+0300 by one scan of the file, from U+0300 up (CJK,
// Cyrillic, combining marks) when the whole text is in NFC (isNfcText) and the line holds nothing
// checkPhrase looks at. Their case twins: each source that may have a capital lowercased alone. A CSV file
// takes none of these paths: every phrase goes through EntryCollector.add, canonicalised and
// checked alone. So a table read as TSV and as CSV must give the same entries and diagnostics.

const pair = { sourceLang: 'en', targetLang: 'de' };

// Scripts and what canonicalisation and the checks look at: composed and decomposed marks, marks
// that compose with the letters of `\t`/`\n` escapes, Hangul jamo, spaces of every width at the
// ends, controls, surrogate pairs (a file decoded from UTF-8 holds no lone one), the letters whose lowercase forms are special.
const unit = fc.constantFrom(
  'a', 'n', 't', 'E', 'Größe', 'é', 'e\u0301', 'n\u0303', '\u0301', '\u0303', '\u0327', 'ñ', 'ť',
  'Жёлтый', 'жёлтый', 'Ё', 'ё', 'ї', '日本語', 'ジャケット', '재킷', '\u1100\u1161', '\u11a8', 'ᄀ',
  'Σ', 'σ', 'ς', 'ΟΔΟΣ', 'İ', 'i', 'ß', 'ẞ', 'Ǆ', 'ǅ', 'ǆ', 'Ⓐ', 'ⓐ', 'Ⅻ', '𐐀', '𐐨', '😀',
  ' ', '\u00a0', '\u3000', '\u2003', '\u1680', '\u202f', '\ufeff', '\u2028', '\u0085', '\u0007', '\u007f', 'x',
);
const plainUnit = fc.constantFrom('Größe', 'Жёлтый', 'жёлтый', '日本語', 'ジャケット', '재킷', 'ΟΔΟΣ', 'σ', 'İ', 'ß', 'ẞ', 'ǅ', 'Ⓐ', '𐐀', 'é', 'ñ', 'x', 'Y', ' ');
// Phrases about the limit of 1024 UTF-8 bytes (the fast paths take a phrase of at most 341 UTF-16
// units, which cannot pass it; a longer one is measured): just under, at and over it, in 1-, 2-, 3-
// and 4-byte characters, alone or with more after them.
const long = fc.constantFrom('a'.repeat(341), 'a'.repeat(342), 'a'.repeat(1024), 'a'.repeat(1025), 'é'.repeat(512), 'é'.repeat(513), '日'.repeat(341), '日'.repeat(342), '😀'.repeat(256), '😀'.repeat(257), 'Ж'.repeat(170));
// Mostly plain phrases (so that long runs of lines take the fast path), now and then anything.
const phrase = fc.oneof(
  { weight: 6, arbitrary: fc.array(plainUnit, { minLength: 1, maxLength: 4 }).map((p) => p.join('').trim() || 'x') },
  { weight: 1, arbitrary: fc.array(unit, { minLength: 0, maxLength: 4 }).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.tuple(long, fc.array(fc.oneof(plainUnit, unit), { maxLength: 2 })).map(([l, p]) => l + p.join('')) },
);

function diagnosticsOf(text: string, format: 'tsv' | 'csv'): { entries: [string, string][]; diagnostics: string[] } {
  const { entries, diagnostics } = parseEntries(text, format, pair, 'f');
  return { entries: [...entries], diagnostics: diagnostics.map((d) => `${d.severity} ${d.code} ${d.line}:${d.column} ${d.message}`) };
}

describe('TSV lines kept as they are (the fast paths) read as every phrase alone does (property)', () => {
  it('gives the entries and diagnostics of the same table read as CSV', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(phrase, phrase), { maxLength: 60 }), (rows) => {
        const tsv = diagnosticsOf(rows.map(([s, t]) => `${s}\t${t}`).join('\n'), 'tsv');
        const csv = diagnosticsOf(rows.map(([s, t]) => `${s},${t}`).join('\n'), 'csv');
        expect(tsv).toEqual(csv);
      }),
      // A file that starts with two U+FEFF: the byte order mark, then the first phrase's own
      // (csv-parse once took the second off silently, where TSV trimmed and reported it).
      { numRuns: runs(1500), examples: [[[['\ufeff\ufeffa', '']]], [[['\ufeff\ufeffa', 'b'], ['c', 'd']]]] },
    );
  });

  it('keeps CJK, Cyrillic and accented lines of a file in NFC as they are, and finds their duplicates and case twins', () => {
    const lines = ['Жёлтый\tgelb', '日本語\t일본어', 'жёлтый\tGelb', 'ΟΔΟΣ\tStraße', 'οδος\tWeg', 'οδοσ\tPfad', '日本語\tnochmal', 'Größe\tsize'];
    const { entries, diagnostics } = parseEntries(`${lines.join('\n')}\n`, 'tsv', pair, 'f');
    expect(diagnostics.map((d) => `${d.code} ${d.line}: ${d.message}`)).toEqual([
      'entries/case-twin 3: source phrase "жёлтый" differs only in case from the source phrase on line 1',
      // ΟΔΟΣ lowercases to οδος (final sigma), whose twin it is; οδοσ is a twin of neither.
      'entries/case-twin 5: source phrase "οδος" differs only in case from the source phrase on line 4',
      'entries/duplicate-source 7: duplicate source phrase "日本語" on lines 2 and 7; the service rejects the whole dictionary',
    ]);
    expect([...entries.keys()]).toEqual(['Жёлтый', '日本語', 'жёлтый', 'ΟΔΟΣ', 'οδος', 'οδοσ', 'Größe']);
  });

  it('normalises every phrase alone when the file is not in NFC as a whole', () => {
    const { entries, diagnostics } = parseEntries('Жёлтый\tgelb\ne\u0301te\tsommer\n日本語\tJapanisch\n', 'tsv', pair, 'f');
    expect([...entries]).toEqual([['Жёлтый', 'gelb'], ['\u00e9te', 'sommer'], ['日本語', 'Japanisch']]);
    expect(diagnostics.map((d) => `${d.code} ${d.line}`)).toEqual(['entries/not-nfc 2']);
  });
});

describe('isNfcText: a text in NFC has its every phrase in NFC (property)', () => {
  // Letters that compose with marks (among them t and n, the letters of the escapes), marks, Hangul jamo.
  const piece = fc.constantFrom('a', 'e', 'n', 't', 'o', 'A', '\u0301', '\u0303', '\u0308', '\u0327', '\u0307', '\u030c', '\u0323', 'é', 'ñ', '\u1100', '\u1161', '\u11a8', '가', 'ᄀ', '\u0cc6', '\u0cd5', '日');
  const field = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
  const fields = fc.array(fc.tuple(field, field), { minLength: 1, maxLength: 6 });
  it('split at tabs and line breaks', () => {
    fc.assert(
      fc.property(fields, (rows) => {
        const text = rows.map(([s, t]) => `${s}\t${t}`).join('\n');
        if (isNfcText(text)) for (const p of rows.flat()) expect(p.normalize('NFC')).toBe(p);
      }),
      { numRuns: runs(5000) },
    );
  });
  it('split at the `\\t` and `\\n` escapes of a JSON string', () => {
    fc.assert(
      fc.property(fields, (rows) => {
        const text = rows.map(([s, t]) => `${s}\\t${t}`).join('\\n');
        if (isNfcText(text)) for (const p of rows.flat()) expect(p.normalize('NFC')).toBe(p);
      }),
      { numRuns: runs(5000) },
    );
  });
  it('and a phrase that composes with the letter of an escape makes the text not NFC', () => {
    expect(isNfcText('a\\n\u0303b')).toBe(false);
    expect(canonicalPhrase('\u0303b')).toBe('\u0303b');
  });
  // A large text is normalised piece by piece (ICU's copy of a whole 10 MiB text cost the process
  // some 35 MB: see lib/canonical.ts), each piece cut before a code unit below U+0300. Pieces of
  // 1 to 8 code units cut texts of a few dozen wherever they may: the answer is the whole text's.
  it('tested piece by piece, says what the whole text normalised at once says', () => {
    const unit = fc.constantFrom(...'aent<=>AOu\t\n\\ \u00e9\u00f1'.split(''), '\u0301', '\u0303', '\u0308', '\u0338', '\u0327', '\u0323', '\u1100', '\u1161', '\u11a8', '\uac00', '\u0cc6', '\u0cd5', '\u0cc2', '\u0b47', '\u0b3e', '\u65e5', '\u0436', '\r', '\ud83d\ude00');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), fc.integer({ min: 1, max: 8 }), (units, piece) => {
        const text = units.join('');
        expect(isNfcText(text, piece)).toBe(!text.includes('\r') && text.normalize('NFC') === text);
      }),
      { numRuns: runs(5000) },
    );
  });
  it('a text in NFC longer than a piece is in NFC; one whose only change comes late is not', () => {
    const text = 'Jacke\tкуртка 日本語 é\n'.repeat(5000);
    expect(text.length).toBeGreaterThan(16 * 1024 * 4);
    expect(isNfcText(text)).toBe(true);
    expect(isNfcText(`${text}e\u0301`)).toBe(false);
    expect(isNfcText(`${text}\u1100\u1161`)).toBe(false);
  });
});

describe('lowercasing a whole text lowercases each of its phrases in place', () => {
  it('only U+0130 lowercases to a string of another length', () => {
    const other: string[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCodePoint(c);
      if (s.toLowerCase().length !== s.length) other.push(c.toString(16));
    }
    expect(other).toEqual(['130']);
  });

  it('final sigma included, phrase by phrase (property)', () => {
    const piece = fc.constantFrom('Σ', 'σ', 'ς', 'Α', 'α', "'", '\u0301', '.', ' ', 'A', 'Ж', '1');
    const field = fc.array(piece, { maxLength: 5 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(fc.tuple(field, field), { minLength: 1, maxLength: 5 }), (rows) => {
        const text = rows.map(([s, t]) => `${s}\t${t}`).join('\n');
        expect(text.toLowerCase()).toBe(rows.map(([s, t]) => `${s.toLowerCase()}\t${t.toLowerCase()}`).join('\n'));
      }),
      { numRuns: runs(3000) },
    );
  });
});
