import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../../helpers/properties.js';
import { literalDigestOfText } from '../../../src/lib/text-digest.js';
import { fetchEntries, type LiveReader } from '../../../src/live/fetch-live.js';
import { hashOfLatin1Lines, sortedLinesOfLatin1, sortedLiteralDigestOfLatin1 } from '../../../src/plan/compare/sorted-bytes.js';
import type { ExpectedLiteral } from '../../../src/model/live.js';
import { hashEntries } from '../../../src/plan/fingerprint-live.js';
import { PackedEntries, type DeferredText } from '../../../src/model/packed-entries.js';
import { compareWithRepository } from '../../../src/reconcile/reconcile-target.js';
import { readingOf } from './deferred-of.js';

/** The sorted literal digest as made from the decoded text (null: in order already). */
function decodedPath(text: string, controlFree: boolean): string | null {
  const entries = PackedEntries.fromText(text, undefined, controlFree);
  const body = entries.sortedBody();
  return body === text.slice(0, -1) ? null : literalDigestOfText(body).digest;
}

const latin1Of = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

// Characters of every UTF-8 length, those JSON escapes (quote, backslash, controls the loader
// keeps as they are), and both sides of the UTF-8/UTF-16 order difference (U+E000–U+FFFF, astral).
// Inputs without a character above U+FFFF are the ones the bytes can sort (the path under test):
// nine in ten here, the rest hold one or more (the bytes then give no answer, undefined). A
// character above U+FFFF in every phrase's reach would leave almost no input without one.
const bmp = ['a', 'b', 'Z', '0', ' ', '"', '\\', '/', '\u000b', '\u000c', '\u001f', '\u007f', 'é', 'ÿ', '\u0080', 'ß', 'Ω', 'ж', '中', '文', '한', '\u3000', '\ue000', '\uff21', '\ufffd'];
const astralChars = ['😀', '𠀀', '\u{10ffff}'];
const astral = /[\u{10000}-\u{10ffff}]/u;
const phraseOf = (pool: readonly string[]): fc.Arbitrary<string> => fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''));
const linesOf = (phrase: fc.Arbitrary<string>): fc.Arbitrary<string[]> => fc.array(fc.tuple(phrase, phrase), { minLength: 1, maxLength: 30 }).map((pairs) => pairs.map(([s, t]) => `${s}\t${t}`));
const lines = fc.oneof({ weight: 9, arbitrary: linesOf(phraseOf(bmp)) }, { weight: 1, arbitrary: linesOf(phraseOf([...bmp, ...astralChars])) });

/** How many runs of a property took each path: the property is only as good as the runs that reach its assertion. */
interface Reached {
  runs: number;
  sorted: number;
  /** Of those, with more than 3 lines that were not in order (the bytes really sorted). */
  sortedMany: number;
  astral: number;
}
const reachedNone = (): Reached => ({ runs: 0, sorted: 0, sortedMany: 0, astral: 0 });

describe('sortedLiteralDigestOfLatin1', () => {
  it('gives the digest of the entries decoded and sorted, from their bytes (a character above U+FFFF: none)', () => {
    const reached = reachedNone();
    fc.assert(
      fc.property(lines, fc.boolean(), (list, shuffled) => {
        reached.runs++;
        const text = `${(shuffled ? list : [...list].sort()).join('\n')}\n`;
        const bytes = sortedLiteralDigestOfLatin1(latin1Of(text));
        if (astral.test(text)) {
          reached.astral++;
          expect(bytes).toBeUndefined();
          return;
        }
        const expected = decodedPath(text, true);
        expect(bytes).toBe(expected);
        reached.sorted++;
        if (expected !== null && list.length > 3) reached.sortedMany++;
      }),
      { numRuns: runs(2000) },
    );
    // Most runs compare a digest made from the bytes with the decoded one, many of them after a real
    // sort (a run: about 1,790 of 2,000, 640 of them more than 3 lines out of order).
    expect(reached.runs).toBe(runs(2000));
    expect(reached.sorted).toBeGreaterThan(runs(1600));
    expect(reached.sortedMany).toBeGreaterThan(runs(450));
    expect(reached.astral).toBeGreaterThan(runs(50));
  });

  it('hashOfLatin1Lines of the sorted bytes is hashEntries of the entries decoded (escapes included)', () => {
    const reached = reachedNone();
    fc.assert(
      fc.property(lines, (list) => {
        reached.runs++;
        const text = `${list.join('\n')}\n`;
        const sorted = sortedLinesOfLatin1(latin1Of(text));
        if (astral.test(text)) {
          reached.astral++;
          expect(sorted).toBeUndefined();
          return;
        }
        expect(sorted).toBeDefined();
        expect(hashOfLatin1Lines(sorted?.lines ?? [])).toBe(hashEntries(PackedEntries.fromText(text, undefined, true)));
        reached.sorted++;
        if (sorted?.inOrder === false && list.length > 3) reached.sortedMany++;
      }),
      { numRuns: runs(1000) },
    );
    // Before, the inputs nearly all held a character above U+FFFF: 79 of 1,000 runs got here, 3
    // with more than 3 lines. Now (a run): 923 of 1,000, 679 with more than 3 lines out of order.
    expect(reached.runs).toBe(runs(1000));
    expect(reached.sorted).toBeGreaterThan(runs(800));
    expect(reached.sortedMany).toBeGreaterThan(runs(500));
    expect(reached.astral).toBeGreaterThan(runs(25));
  });

  it('tells UTF-8 order from UTF-16 order: a character above U+FFFF sorts before U+E000–U+FFFF as JavaScript compares', () => {
    const text = '\uff21\tx\n😀\ty\n';
    expect(Buffer.compare(Buffer.from('\uff21'), Buffer.from('😀'))).toBeLessThan(0);
    expect(decodedPath(text, true)).not.toBeNull();
    expect(sortedLiteralDigestOfLatin1(latin1Of(text))).toBeUndefined();
  });

  it('sorts ASCII, Latin-1 and CJK sources with quotes and backslashes as the decoded text sorts', () => {
    const text = 'zeta\t1\n"q"\t\\\n中文\tx\né\ty\nab\tz\na\tw\n';
    const digest = sortedLiteralDigestOfLatin1(latin1Of(text));
    expect(digest).toBe(literalDigestOfText('"q"\t\\\na\tw\nab\tz\nzeta\t1\né\ty\n中文\tx').digest);
    expect(sortedLiteralDigestOfLatin1(latin1Of('a\t1\nb\t2\n'))).toBeNull();
    expect(sortedLiteralDigestOfLatin1('')).toBeNull();
  });

  it('leaves a line with a control below TAB to the decoded path', () => {
    expect(sortedLiteralDigestOfLatin1(latin1Of('b\u0001\t1\na\t2\n'))).toBeUndefined();
  });
});

/** Deferred entries of `text` counting their reads. */
function deferredOf(text: string, fail = false): { entries: PackedEntries; reads: { text: number; latin1: number } } {
  const reads = { text: 0, latin1: 0 };
  const size = text.split('\n').length - 1;
  const literal = literalDigestOfText(text.slice(0, -1));
  const changed = (): never => {
    throw new Error('the entries file changed');
  };
  const deferred: DeferredText = {
    digest: literal.digest,
    literalBytes: literal.bytes,
    length: text.length,
    bytes: Buffer.byteLength(text),
    read: () => {
      reads.text++;
      return fail ? changed() : text;
    },
    readLatin1: () => {
      reads.latin1++;
      return fail ? changed() : latin1Of(text);
    },
  };
  return { entries: PackedEntries.deferred(deferred, size), reads };
}

describe('ReadOnce: the sorted digest from the bytes', () => {
  it('makes the sorted digest from the bytes read once, never decoding them, and decodes them only for the entries', () => {
    const text = 'b\t2\né\t3\na\t1\n中\t4\n';
    const { entries, reads } = deferredOf(text);
    const once = readingOf(entries);
    expect(once.sortedDigest()).toBe(literalDigestOfText('a\t1\nb\t2\né\t3\n中\t4').digest);
    expect(reads).toEqual({ text: 0, latin1: 1 });
    expect(once.knownSortedDigest).toBe(once.sortedDigest());
    // The entries come from the same read.
    expect(once.entries().text).toBe(text);
    expect([...once.entries().keys()]).toEqual(['b', 'é', 'a', '中']);
    expect(reads).toEqual({ text: 0, latin1: 1 });
  });

  it('in order already: no sorted digest (the one as read is theirs)', () => {
    const { entries, reads } = deferredOf('a\t1\nb\t2\n');
    const once = readingOf(entries);
    expect(once.sortedDigest()).toBeUndefined();
    expect(reads).toEqual({ text: 0, latin1: 1 });
  });

  it('a character above U+FFFF: decoded from the same read and sorted as UTF-16', () => {
    const text = '😀\ty\n\uff21\tx\na\tz\n';
    const { entries, reads } = deferredOf(text);
    const once = readingOf(entries);
    expect(once.sortedDigest()).toBe(literalDigestOfText('a\tz\n😀\ty\n\uff21\tx').digest);
    expect(once.entries().text).toBe(text);
    expect(reads).toEqual({ text: 0, latin1: 1 });
  });

  it('a read that failed fails again with the same error, without another read', () => {
    const { entries, reads } = deferredOf('b\t1\na\t2\n', true);
    const once = readingOf(entries);
    expect(() => once.sortedDigest()).toThrow('the entries file changed');
    let again: unknown;
    try {
      once.entries();
    } catch (error) {
      again = error;
    }
    expect(again).toBeInstanceOf(Error);
    expect(() => once.sortedDigest()).toThrow('the entries file changed');
    expect(reads).toEqual({ text: 0, latin1: 1 });
  });
});

describe('a plan that hashes the entries (a saved plan): the answer sorted told by its bytes', () => {
  it('passes the deferred entries\' literal, and hashes the file\'s bytes read once, not decoded', async () => {
    const text = 'b\t"2"\né\t3\na\t\\1\n中\t4\n';
    const sorted = 'a\t\\1\nb\t"2"\né\t3\n中\t4';
    const { entries, reads } = deferredOf(text);
    const literals: (ExpectedLiteral | undefined)[] = [];
    const reader = {
      concurrency: 1,
      getEntries: () => Promise.reject(new Error('not used')),
      getEntriesV2: () => Promise.reject(new Error('not used')),
      readEntries: (_id: string, _s: string, _t: string, literal?: ExpectedLiteral) => {
        literals.push(literal);
        // The client: an answer of the literal's length that is not the text as read asks for the sorted digest.
        const digest = literalDigestOfText(sorted).digest;
        return Promise.resolve(literal?.later?.() === digest ? { sameLiteral: digest } : { tsv: sorted });
      },
    } as unknown as LiveReader;
    const { compared } = await fetchEntries(reader, [{ glossaryId: 'g', api: 'v3', sourceLang: 'en', targetLang: 'de', expected: entries }], { hashes: true, compare: compareWithRepository });
    expect(literals[0]?.digests).toEqual([]);
    expect(literals[0]?.later).toBeDefined();
    // The text as read is decoded as the answer holds it (hashed from it), never asked `later` for.
    expect(literals[0]?.decoded).toEqual([entries.deferredText?.digest]);
    const result = compared.get('g/en-de');
    expect(result?.diff.entryChanges).toEqual([]);
    expect(result?.hash).toBe(hashEntries(PackedEntries.fromText(text, 4, true)));
    expect(reads).toEqual({ text: 0, latin1: 1 });
  });
});
