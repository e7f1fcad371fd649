import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import { parseEntries } from '../../src/config/index.js';
import { ENTRIES_FORMATS } from '../../src/formats/registry.js';
import { createTsv } from '../../src/formats/tsv/rewrite-tsv.js';
import { toEntryList } from '../../src/plan/index.js';
import { canonicalPhrase, findControlCharacter } from '../../src/lib/canonical.js';
import { PackedEntries } from '../../src/model/packed-entries.js';

// The reference definition of the canonical form; the library function adds a fast path to it.
function referenceCanonical(phrase: string): string {
  return phrase.replace(/\r\n?/g, '\n').normalize('NFC').replace(/^[\s\uFEFF]+|[\s\uFEFF]+$/gu, '');
}

// Phrases rich in what the canonical form handles: spaces of all kinds, CR/LF, combining marks, BOM.
const tricky = fc.constantFrom(' ', '\t', '\u00a0', '\u3000', '\r\n', '\r', '\n', '\uFEFF', '\u0301', 'e\u0301', 'é', 'ß', '"', ',', ';', 'A', 'a', '日本', '😀');
const phrase = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.array(fc.oneof(tricky, fc.string({ maxLength: 3 })), { maxLength: 8 }).map((parts) => parts.join('')));

// A valid canonical phrase: what a dictionary can hold (non-empty, no tab, line break or other control character).
const entryPhrase = phrase.map(canonicalPhrase).filter((p) => p !== '' && !p.includes('\t') && !p.includes('\n') && findControlCharacter(p) === -1 && Buffer.byteLength(p) <= 1024);

const pair = { sourceLang: 'en', targetLang: 'de' };

describe('canonical form (properties)', () => {
  it('is idempotent', () => {
    fc.assert(fc.property(phrase, (p) => canonicalPhrase(canonicalPhrase(p)) === canonicalPhrase(p)), { numRuns: runs(2000) });
  });

  it('equals the reference definition (the fast path changes nothing)', () => {
    fc.assert(fc.property(phrase, (p) => canonicalPhrase(p) === referenceCanonical(p)), { numRuns: runs(2000) });
  });
});

// Every format the registry both writes (pull's writer, whose `create` import uses too) and reads
// as the entries of one dictionary: a file it writes reads back to exactly its entries. (Existing
// files rewritten: the writers' round trip test.)
describe('entry tables survive serialisation (properties)', () => {
  // Now and then a first entry that reads like a header row: the pair's codes or English names
  // (any case), the CSV reader's column titles; the writers put a header row before such an entry.
  const headerLike = fc.constantFrom<[string, string]>(['en', 'de'], ['EN', 'De'], ['English', 'German'], ['ENGLISH', 'german'], ['source', 'target'], ['Term', 'Translation'], ['source_lang', 'target_lang'], ['de', 'en'], ['en', 'en']);
  const table = fc
    .tuple(fc.option(headerLike, { freq: 3 }), fc.uniqueArray(fc.tuple(entryPhrase, entryPhrase), { selector: ([source]) => source, maxLength: 30 }))
    .map(([first, rows]) => (first === null ? rows : [first, ...rows.filter(([source]) => source !== first[0])]));
  const written = ENTRIES_FORMATS.filter((f) => f.writer !== undefined && f.readEntries !== undefined);

  it('covers the text formats', () => {
    expect(written.map((f) => f.name)).toEqual(['tsv', 'csv']);
  });

  for (const format of written) {
    it(`${format.name}: write then parse gives the same entries, without errors`, async () => {
      const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
      await fc.assert(
        fc.asyncProperty(table, async (rows) => {
          const entries = new Map(rows);
          const text = decode(await (format.writer as NonNullable<typeof format.writer>).create([{ pair, live: entries }]));
          const parsed = parseEntries(text, format.name, pair, `t${format.extensions[0] as string}`);
          expect(parsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
          expect(new Map(parsed.entries)).toEqual(entries);
        }),
        { numRuns: runs(500) },
      );
    });
  }

  it('the order of entries never matters', () => {
    fc.assert(
      fc.property(table, (rows) => {
        const reversed = parseEntries(createTsv(new Map([...rows].reverse()), pair), 'tsv', pair, 't.tsv').entries;
        const sorted = parseEntries(createTsv(new Map(toEntryList(new Map(rows))), pair), 'tsv', pair, 't.tsv').entries;
        expect(toEntryList(reversed)).toEqual(toEntryList(sorted));
      }),
      { numRuns: runs(200) },
    );
  });
});

describe('duplicate and case-twin detection (property, against a naive reference)', () => {
  it('reports exactly the duplicates and twins a quadratic scan finds, on the same lines', () => {
    const source = fc.array(fc.constantFrom('a', 'A', 'b', 'B', 'ä', 'Ä'), { minLength: 1, maxLength: 2 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(source, { maxLength: 25 }), (sources) => {
        const text = sources.map((s, i) => `${s}\tt${i}`).join('\n');
        const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
        const kept: { source: string; line: number }[] = [];
        const expected: [string, number][] = [];
        sources.forEach((s, i) => {
          const line = i + 1;
          if (kept.some((k) => k.source === s)) {
            expected.push(['entries/duplicate-source', line]);
            return;
          }
          if (kept.some((k) => k.source !== s && k.source.toLowerCase() === s.toLowerCase())) expected.push(['entries/case-twin', line]);
          kept.push({ source: s, line });
        });
        expect(diagnostics.map((d) => [d.code, d.line])).toEqual(expected);
        expect([...entries.keys()]).toEqual(kept.map((k) => k.source));
      }),
      { numRuns: runs(1000) },
    );
  });
});

describe('duplicate and case-twin detection over long files (property, against a Set)', () => {
  // Sources of any case, Latin-1 and beyond (ß, İ, final sigma), with spaces to trim now and then:
  // lines kept verbatim and lines canonicalised alternate, and the set grows past its first table.
  const piece = fc.constantFrom('a', 'A', 'ä', 'Ä', 'ß', 'ẞ', 'É', 'é', '×', 'İ', 'i', 'Σ', 'σ', 'ς', 'µ', 'ÿ', 'Ÿ', '1', '-');
  const src = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join('')), fc.boolean()).map(([s, pad]) => (pad ? ` ${s}` : s));
  it('finds every duplicate and twin, naming the first line, whatever the path of each line', () => {
    fc.assert(
      fc.property(fc.array(src, { maxLength: 300 }), fc.constantFrom('tsv' as const, 'csv' as const), (raw, format) => {
        const text = raw.map((s, i) => (format === 'tsv' ? `${s}\tt${i}` : `"${s}",t${i}`)).join('\n');
        const { entries, diagnostics } = parseEntries(text, format, pair, 'x');
        const firstLine = new Map<string, number>();
        const expected: string[] = [];
        raw.forEach((r, i) => {
          const s = r.trim();
          const line = i + 1;
          const first = firstLine.get(s);
          if (first !== undefined) {
            expected.push(`entries/duplicate-source ${line} lines ${first} and ${line}`);
            return;
          }
          const twin = [...firstLine].find(([k]) => k !== s && k.toLowerCase() === s.toLowerCase());
          if (twin !== undefined) expected.push(`entries/case-twin ${line}`);
          firstLine.set(s, line);
        });
        const got = diagnostics
          .filter((d) => d.code === 'entries/duplicate-source' || d.code === 'entries/case-twin')
          .map((d) => `${d.code} ${d.line}${d.code === 'entries/duplicate-source' ? ` ${/lines \d+ and \d+/.exec(d.message)?.[0]}` : ''}`);
        expect(got).toEqual(expected);
        expect([...entries.keys()]).toEqual([...firstLine.keys()]);
      }),
      { numRuns: runs(300) },
    );
  });
});

describe('duplicate detection in a large file (its set made at its size)', () => {
  it('finds a duplicate and a case twin far apart, and keeps every other line', () => {
    const lines = Array.from({ length: 30000 }, (_, i) => `term number ${i}\tBegriff Nummer ${i}`);
    lines.push('term number 7\tagain', 'Term Number 29999\tTwin');
    const { entries, diagnostics } = parseEntries(`${lines.join('\n')}\n`, 'tsv', pair, 'big.tsv');
    expect(entries.size).toBe(30001);
    expect(diagnostics.map((d) => `${d.code} ${d.line}: ${d.message}`)).toEqual([
      'entries/duplicate-source 30001: duplicate source phrase "term number 7" on lines 8 and 30001; the service rejects the whole dictionary',
      'entries/case-twin 30002: source phrase "Term Number 29999" differs only in case from the source phrase on line 30000',
    ]);
  });
});

describe('the entries a file yields hold no control character (properties)', () => {
  const unit = fc.constantFrom('a', 'B', ' ', '\u0001', '\u0008', '\u000b', '\u001f', '\u007f', '\u0085', '\r', 'é', 'e\u0301', '日', '\u2028', '"', ',');
  const cell = fc.array(unit, { maxLength: 5 }).map((parts) => parts.join(''));
  it('so they are marked control-free, across a structured clone too', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { maxLength: 30 }), fc.constantFrom('tsv' as const, 'csv' as const), (rows, format) => {
        const quote = (c: string): string => `"${c.replaceAll('"', '""')}"`;
        const text = rows.map(([a, b]) => (format === 'tsv' ? `${a}\t${b}` : `${quote(a)},${quote(b)}`)).join('\n');
        const { entries } = parseEntries(text, format, pair, 'x');
        expect(entries.controlFree || entries.size === 0).toBe(true);
        // eslint-disable-next-line no-control-regex
        expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(entries.text)).toBe(false);
        expect(PackedEntries.fromWire(structuredClone({ text: entries.text, size: entries.size, controlFree: entries.controlFree })).controlFree).toBe(entries.controlFree);
      }),
      { numRuns: runs(500) },
    );
  });
});
