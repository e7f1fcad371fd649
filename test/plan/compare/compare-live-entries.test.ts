import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EntriesText, parseTsvEntries } from '../../../src/api/tsv-entries.js';
import { visitTsvEntries } from '../../../src/lib/entries-tsv.js';
import { canonicalEntries, readLiveEntries } from '../../../src/lib/live-entries.js';
import { compareLiveEntries, WHOLE_TEXT_CHARS } from '../../../src/plan/compare/index.js';
import { diffEntries, entriesOfCompared } from '../../../src/plan/diff-entries.js';
import { hashEntries } from '../../../src/plan/fingerprint-live.js';
import type { Entries, EntryList } from '../../../src/model/entries.js';
import type { RawEntries } from '../../../src/model/live.js';
import { PackedEntries } from '../../../src/model/packed-entries.js';
import { literalDigestOfText } from '../../../src/lib/text-digest.js';
import { deferredOf, readingOf } from './deferred-of.js';

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
  it('gives the entries of the line-by-line reading, from text, pairs or the client\'s checked text', () => {
    fc.assert(
      fc.property(pairs, fc.boolean(), fc.constantFrom('tsv', 'list', 'checked'), (live, crlf, form) => {
        const text = tsvOf(live, crlf);
        expect(sorted(readLiveEntries(rawOf(text, form)))).toEqual(sorted(reference(text)));
      }),
    );
  });
});

/** The three forms an answer reaches the live layer in. */
function rawOf(text: string, form: 'tsv' | 'list' | 'checked'): RawEntries {
  if (form === 'list') return { list: parseTsvEntries(text, where) };
  if (form === 'checked') return new EntriesText(text, where);
  return { tsv: text };
}

describe('compareLiveEntries', () => {
  it('gives the diff and hash of the entries read whole, whatever the repository expects and the answer\'s order', () => {
    fc.assert(
      fc.property(pairs, declarable, fc.boolean(), fc.constantFrom('tsv', 'list', 'checked'), fc.boolean(), (live, declared, crlf, form, upload) => {
        const expected = canonicalEntries(declared);
        // The service's usual order (the upload's: canonical, sorted), or the order generated.
        const canonicalLive = sorted(canonicalEntries(live)).filter(([s, t]) => !`${s}${t}`.includes('\n'));
        const text = tsvOf(upload ? canonicalLive : live, crlf);
        const whole = reference(text);
        const compared = compareLiveEntries(rawOf(text, form), expected, true);
        expect(compared.expected).toBe(expected);
        expect(compared.diff).toEqual(diffEntries(expected, whole));
        expect(compared.hash).toBe(hashEntries(whole));
        expect(sorted(entriesOfCompared(compared))).toEqual(sorted(whole));
        expect(compareLiveEntries(rawOf(text, form), expected).hash).toBeUndefined();
      }),
    );
  });

  it('finds no change when the answer equals the repository\'s entries, in upload order or not canonical yet', () => {
    fc.assert(
      fc.property(declarable, fc.boolean(), (declared, crlf) => {
        const expected = canonicalEntries(declared);
        const upload = sorted(expected);
        expect(compareLiveEntries({ tsv: tsvOf(upload, crlf) }, expected).diff.entryChanges).toEqual([]);
        // The service may store phrases as sent by another tool: surrounding spaces are canonicalised away.
        expect(compareLiveEntries({ tsv: tsvOf(upload.map(([s, t]) => [` ${s}`, `${t} `]), crlf) }, expected).diff.entryChanges).toEqual([]);
      }),
    );
  });

  it('gives the same with the loader\'s packed entries, also when the answer is the upload text itself or the repository\'s own order (plain or JSON-escaped), compared whole or line by line', () => {
    fc.assert(
      fc.property(declarable, declarable, fc.constantFrom('same', 'as read', 'other', 'other unsorted'), fc.boolean(), fc.boolean(), fc.constantFrom(0, WHOLE_TEXT_CHARS), (declared, live, which, escaped, hashed, wholeTextChars) => {
        const canonical = canonicalEntries(declared);
        const expected = PackedEntries.fromPairs(canonical);
        const list =
          which === 'same' ? sorted(canonical) : which === 'as read' ? [...canonical] : which === 'other' ? sorted(canonicalEntries(live)) : [...canonicalEntries(live)];
        const text = tsvOf(list, false);
        const raw: RawEntries = escaped ? new EntriesText(JSON.stringify(text).slice(1, -1), where, true) : new EntriesText(text, where);
        const whole = reference(text);
        const compared = compareLiveEntries(raw, expected, hashed, wholeTextChars);
        expect(compared.diff).toEqual(diffEntries(new Map(canonical), whole));
        expect(compared.hash).toBe(hashed ? hashEntries(whole) : undefined);
      }),
    );
  });

  it('with the packed entries of a repository in its own order, gives the diff of the entries read whole for an answer in upload order with some terms changed, dropped or added', () => {
    const term = fc.integer({ min: 0, max: 400 }).map((n) => `term ${n}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(term, { minLength: 1, maxLength: 120 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('change', 'drop', 'add')), { maxLength: 6 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(0, WHOLE_TEXT_CHARS),
        (sources, edits, escaped, hashed, wholeTextChars) => {
          const declared = sources.map((s, i): [string, string] => [s, `target ${i}`]);
          const expected = PackedEntries.fromPairs(declared);
          const live = new Map(declared);
          for (const [at, edit] of edits) {
            const source = declared[at % declared.length]![0];
            if (edit === 'change') live.set(source, `${live.get(source) ?? 'dropped'} changed`);
            else if (edit === 'drop') live.delete(source);
            else live.set(`${source} new`, 'added live');
          }
          const text = tsvOf(sorted(live), false);
          const raw: RawEntries = escaped ? new EntriesText(JSON.stringify(text).slice(1, -1), where, true) : new EntriesText(text, where);
          const compared = compareLiveEntries(raw, expected, hashed, wholeTextChars);
          expect(compared.diff).toEqual(diffEntries(new Map(declared), live));
          expect(compared.hash).toBe(hashed ? hashEntries(live) : undefined);
        },
      ),
    );
  });

  it('with deferred entries (the plan\'s), gives what the packed entries give, reading the text again once for an answer that is not the text as read, and never for one that is', () => {
    fc.assert(
      fc.property(
        declarable.filter((d) => d.length > 0),
        declarable,
        fc.constantFrom('as read', 'same', 'other', 'other unsorted'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(0, WHOLE_TEXT_CHARS),
        (declared, live, which, escaped, hashed, wholeTextChars) => {
          const canonical = canonicalEntries(declared);
          const packed = PackedEntries.fromPairs(canonical);
          const { deferred, reads } = deferredOf(packed);
          const list =
            which === 'same' ? sorted(canonical) : which === 'as read' ? [...canonical] : which === 'other' ? sorted(canonicalEntries(live)) : [...canonicalEntries(live)];
          const text = tsvOf(list, false);
          const raw = (): RawEntries => (escaped ? new EntriesText(JSON.stringify(text).slice(1, -1), where, true) : new EntriesText(text, where));
          const compared = compareLiveEntries(raw(), deferred, hashed, wholeTextChars, readingOf(deferred));
          const reference = compareLiveEntries(raw(), PackedEntries.fromPairs(canonical), hashed, wholeTextChars);
          expect(compared.expected).toBe(deferred);
          expect(compared.diff).toEqual(reference.diff);
          expect(compared.hash).toBe(reference.hash);
          // The text as read is told by its digest (the hash of a saved plan is made from the answer);
          // any other answer (the entries sorted included) is compared with the text read once more.
          expect(reads()).toBe(text === packed.text.slice(0, -1) ? 0 : 1);
          expect(deferred.utf8Bytes()).toBe(packed.utf8Bytes());
          expect(deferred.textLength).toBe(packed.text.length);
        },
      ),
    );
  });

  it('never takes an answer with an unpaired surrogate for deferred entries holding U+FFFD in its place (the same UTF-8 bytes)', () => {
    const { deferred, reads } = deferredOf(PackedEntries.fromPairs([['a\ufffd', 'b']]));
    expect(createHash('sha256').update('a\ud800\tb').digest('hex')).toBe(createHash('sha256').update('a\ufffd\tb').digest('hex'));
    expect(literalDigestOfText('a\ud800\tb').digest).not.toBe(literalDigestOfText('a\ufffd\tb').digest);
    const compared = compareLiveEntries({ tsv: 'a\ud800\tb' }, deferred, false, WHOLE_TEXT_CHARS, readingOf(deferred));
    expect(reads()).toBe(1);
    expect(compared.diff.entryChanges.length).toBeGreaterThan(0);
  });

  it('does not take a duplicate source for a missing one', () => {
    const expected = new Map([
      ['a', '1'],
      ['b', '2'],
    ]);
    // As many lines as expected entries, each one of them, but `b` is missing: only `a`, twice.
    expect(compareLiveEntries({ tsv: 'a\t1\na\t1' }, expected).diff).toMatchObject({ added: 1, changed: 0, removed: 0, entryChanges: [{ source: 'b', after: '2' }] });
    // The same entries in another order are still equal, read through the map.
    expect(compareLiveEntries({ tsv: 'b\t2\na\t1' }, expected).diff.entryChanges).toEqual([]);
  });

  it('keeps changes in source order, added ones merged in, and the upserts a PATCH sends', () => {
    const expected = new Map([
      ['a', '1'],
      ['c', '3'],
      ['e', '5'],
    ]);
    const { diff } = compareLiveEntries({ tsv: 'b\t2\nc\t4\nd\t4' }, expected);
    expect(diff).toEqual({
      added: 2,
      changed: 1,
      removed: 2,
      entryChanges: [
        { source: 'a', after: '1' },
        { source: 'b', before: '2' },
        { source: 'c', before: '4', after: '3' },
        { source: 'd', before: '4' },
        { source: 'e', after: '5' },
      ],
      upserts: [
        ['a', '1'],
        ['c', '3'],
        ['e', '5'],
      ],
    });
  });

  it('reports a line without a tab of the client\'s text, wherever the comparison is', () => {
    const expected = new Map([['a', '1']]);
    expect(() => compareLiveEntries(new EntriesText('a\t1\nbad', where), expected)).toThrow('entries line 2 has no tab');
    expect(() => compareLiveEntries(new EntriesText('b\t1\na\t1\nbad', where), expected)).toThrow('entries line 3 has no tab');
  });
});
