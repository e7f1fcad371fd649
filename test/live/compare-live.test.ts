import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTsvEntries } from '../../src/api/tsv-entries.js';
import { visitTsvEntries } from '../../src/lib/entries-tsv.js';
import { canonicalEntries } from '../../src/live/canonical-entries.js';
import { readLiveEntries } from '../../src/live/compare-live.js';
import type { Entries, EntryList } from '../../src/model/entries.js';

const where = { method: 'GET', path: '/v3/glossaries/g/entries' };

/** The reading before the streaming one: split into lines, then pairs, then canonical (a reference). */
function reference(text: string): Entries {
  const out: [string, string][] = [];
  const lines = text.split(/\r?\n/);
  for (const line of lines) {
    if (line === '') continue;
    const tab = line.indexOf('\t');
    out.push([line.slice(0, tab), line.slice(tab + 1)]);
  }
  return canonicalEntries(out);
}

const sorted = (entries: Entries): [string, string][] => [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

// Phrases that canonicalise (spaces, NFD, CR) and collide after canonicalisation, in a small universe.
const phrase = fc.constantFrom('a', 'b', 'B', ' a', 'a ', 'cafe\u0301', 'caf\u00e9', 'x\ry', 'Größe', '\u00a0b', 'z');
const pairs = fc.array(fc.tuple(phrase, phrase), { maxLength: 8 });
// What a repository can declare: canonical phrases never hold a line break.
const declarable = fc.array(fc.tuple(phrase.filter((p) => !p.includes('\r')), phrase.filter((p) => !p.includes('\r'))), { maxLength: 8 });
const tsvOf = (list: EntryList, crlf: boolean): string => list.map(([s, t]) => `${s}\t${t}`).join(crlf ? '\r\n' : '\n');

describe('visitTsvEntries', () => {
  it('visits exactly the pairs of splitting the text into lines, with CRLF, blank lines and extra tabs', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a\tb', 'c\td\te', '', 'x\t', '\ty', 'p\tq\r', 'r\rs\tt'), { maxLength: 8 }), fc.boolean(), (lines, crlf) => {
        const text = lines.join(crlf ? '\r\n' : '\n');
        const seen: [string, string][] = [];
        expect(visitTsvEntries(text, (s, t) => seen.push([s, t]) > 0)).toBe(0);
        const expected = text.split(/\r?\n/).filter((l) => l !== '').map((l) => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]);
        expect(seen).toEqual(expected);
      }),
    );
  });

  it('names the first non-empty line without a tab, as the client reports it', () => {
    expect(visitTsvEntries('a\tb\n\nno tab here\nc\td')).toBe(3);
    expect(() => parseTsvEntries('a\tb\r\n\r\nbad\n', where)).toThrow('entries line 3 has no tab');
  });
});

describe('readLiveEntries', () => {
  it('gives the entries of the line-by-line reading, whatever the repository expects', () => {
    fc.assert(
      fc.property(pairs, pairs, fc.boolean(), fc.boolean(), (live, declared, crlf, asList) => {
        const text = tsvOf(live, crlf);
        const expected = canonicalEntries(declared);
        const read = readLiveEntries(asList ? { list: parseTsvEntries(text, where) } : { tsv: text }, expected);
        expect(sorted(read)).toEqual(sorted(reference(text)));
      }),
    );
  });

  it('hands back the repository\'s own entries when the answer equals them, in upload order or not canonical yet', () => {
    fc.assert(
      fc.property(declarable, fc.boolean(), (declared, crlf) => {
        const expected = canonicalEntries(declared);
        const upload = sorted(expected);
        expect(readLiveEntries({ tsv: tsvOf(upload, crlf) }, expected)).toBe(expected);
        // The service may store phrases as sent by another tool: surrounding spaces are canonicalised away.
        expect(readLiveEntries({ tsv: tsvOf(upload.map(([s, t]) => [` ${s}`, `${t} `]), crlf) }, expected)).toBe(expected);
      }),
    );
  });

  it('does not take a duplicate source for a missing one', () => {
    const expected = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    // As many lines as expected entries, each one of them, but `b` is missing: only `a`, twice.
    const read = readLiveEntries({ tsv: 'a\t1\na\t1' }, expected);
    expect(read).not.toBe(expected);
    expect(sorted(read)).toEqual([['a', '1']]);
    // The same entries in another order are still equal, read through the map.
    expect(sorted(readLiveEntries({ tsv: 'b\t2\na\t1' }, expected))).toEqual(sorted(expected));
  });
});
