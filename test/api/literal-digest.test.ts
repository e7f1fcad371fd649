import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MockAgent } from 'undici';
import { createClient, isServiceError, type ServiceClient } from '../../src/api/index.js';
import { cutLiteral } from '../../src/api/json-long-strings.js';
import type { EntriesText } from '../../src/api/tsv-entries.js';
import { literalDigestOfBytes, literalDigestOfEscaped, literalDigestOfText, rawDigest } from '../../src/lib/text-digest.js';
import { compareLiveEntries, expectedLiteral, KEPT_LITERAL_CHARS, WHOLE_TEXT_CHARS } from '../../src/plan/compare/index.js';
import { compareWithRepository } from '../../src/reconcile/reconcile-target.js';
import { fetchEntries } from '../../src/live/fetch-live.js';
import type { ExpectedLiteral, RawEntries, SameLiteral } from '../../src/model/live.js';
import { PackedEntries } from '../../src/model/packed-entries.js';
import { deferredOf, readingOf } from '../plan/compare/deferred-of.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
/** The literal digest by its definition: sha256 of the UTF-8 bytes of JSON.stringify. */
const byDefinition = (text: string): { digest: string; bytes: number } => {
  const literal = Buffer.from(JSON.stringify(text), 'utf8');
  return { digest: sha(literal), bytes: literal.length };
};

// Characters JSON escapes or that are many bytes long: tabs, quotes, backslashes, every kind of
// control, DEL, Latin-1, BMP beyond it, line separators, astral characters.
const char = fc.constantFrom('a', 'Z', ' ', '\t', '\n', '\r', '"', '\\', '/', '<', '\u0000', '\u0001', '\b', '\f', '\u000b', '\u001f', '\u007f', 'é', 'ß', '\u00ff', '\u0100', '€', '\u2028', '\ufeff', '\ufffd', '\u{1f600}', '\u{10ffff}');
const text = fc.array(char, { maxLength: 40 }).map((chars) => chars.join(''));

describe('literal digests', () => {
  it('are sha256 of JSON.stringify, from a text, its UTF-8 bytes, or the content JSON.stringify writes', () => {
    fc.assert(
      // Lone surrogates too (JSON.stringify writes them as \u escapes).
      fc.property(fc.oneof(text, fc.string({ unit: 'grapheme' }), fc.array(fc.oneof(char, fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'))).map((c) => c.join(''))), (t) => {
        const expected = byDefinition(t);
        expect(literalDigestOfText(t)).toEqual(expected);
        const wellFormed = Buffer.from(t, 'utf8').toString('utf8') === t;
        if (wellFormed) {
          // At every alignment of the words it is read in, and with bytes around it that are not its.
          for (const before of ['', 'x', 'xy', 'xyz']) {
            const bytes = Buffer.from(`${before}${t}"\t`, 'utf8');
            expect(literalDigestOfBytes(bytes, before.length, bytes.length - 2)).toEqual(expected);
          }
          expect(literalDigestOfEscaped(JSON.stringify(t).slice(1, -1))).toBe(expected.digest);
        }
      }),
    );
  });

  it('JSON.stringify of the Latin-1 string of a text\'s UTF-8 bytes is its own JSON.stringify, byte for byte (it escapes nothing from U+0080 to U+00FF)', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'grapheme' })), (t) => {
        const bytes = Buffer.from(t, 'utf8');
        expect(Buffer.from(JSON.stringify(bytes.toString('latin1')), 'latin1').equals(Buffer.from(JSON.stringify(t), 'utf8'))).toBe(true);
      }),
    );
  });

  it('hold across the pieces the escaped bytes are hashed in (texts over 64 KiB, escapes six bytes long at the seams)', () => {
    for (const t of ['\u0001'.repeat(70_000), `${'x'.repeat(65_533)}\u0001\t"é\u{1f600}`, 'a\tb\n'.repeat(50_000), 'é'.repeat(200_000)]) {
      expect(literalDigestOfText(t)).toEqual(byDefinition(t));
      expect(literalDigestOfBytes(Buffer.from(t, 'utf8'))).toEqual(byDefinition(t));
    }
  });

  it('tell a lone surrogate from the U+FFFD its UTF-8 bytes would hold', () => {
    expect(literalDigestOfText('a\ud800').digest).not.toBe(literalDigestOfText('a\ufffd').digest);
  });
});

/** An answer of v3 entries as the emulator sends it (JSON.stringify of the object). */
const answerOf = (entries: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries, entries_format: 'tsv', ...extra }] });

/** The literal a deferred file of `text` (without its last LF) stands for, as the loader makes it from the bytes. */
function literalOf(asRead: string, sorted?: string): ExpectedLiteral {
  const literal = literalDigestOfBytes(Buffer.from(asRead, 'utf8'));
  return { bytes: literal.bytes, digests: sorted === undefined ? [literal.digest] : [literal.digest, literalDigestOfText(sorted).digest] };
}

describe('cutLiteral', () => {
  it('finds the entries string of an answer by its bytes, and leaves the rest for JSON.parse with a placeholder', () => {
    const entries = 'say "hi"\tsag "hallo"\nback\\slash\tx\u0001';
    const body = Buffer.from(answerOf(entries, { note: 'a "quoted" \\ note' }), 'utf8');
    const cut = cutLiteral(body, literalOf(entries));
    expect(cut).toBeDefined();
    const value = JSON.parse(cut?.rest ?? '') as { dictionaries: { entries: string; note: string }[] };
    expect(value.dictionaries[0]?.entries).toBe(cut?.placeholder);
    expect(value.dictionaries[0]?.note).toBe('a "quoted" \\ note');
    expect(cutLiteral(body, literalOf(`${entries}!`))).toBeUndefined();
  });

  it('never asks `later` for a string whose digest is one to decode (a hashed plan\'s text as read), and asks it for another', () => {
    const entries = 'b\t2\na\t1';
    const body = Buffer.from(answerOf(entries, {}), 'utf8');
    const digest = literalDigestOfText(entries).digest;
    let asked = 0;
    const later = () => {
      asked++;
      return 'another digest';
    };
    expect(cutLiteral(body, { ...literalOf(entries), digests: [], later, decoded: [digest] })).toBeUndefined();
    expect(asked).toBe(0);
    expect(cutLiteral(body, { ...literalOf(entries), digests: [], later })).toBeUndefined();
    expect(asked).toBe(1);
  });

  it('says an answer is the text only when it decodes to that text (property: texts with tabs, quotes, backslashes, controls, non-ASCII, astral)', () => {
    // b derived from a: equal, one character changed, one more, or a different text.
    const pair = text.chain((a) => fc.tuple(fc.constant(a), fc.oneof(fc.constant(a), text, char.map((c) => a + c), fc.nat().map((i) => (a.length === 0 ? 'x' : a.slice(0, i % a.length) + (a[i % a.length] === 'a' ? 'b' : 'a') + a.slice((i % a.length) + 1))))));
    const escapings: ((answer: object) => string)[] = [
      (answer) => JSON.stringify(answer),
      (answer) => JSON.stringify(answer, null, 2),
      // Another server's escapes: every non-ASCII character as \u, `/` as `\/`, `<` as \u003c.
      (answer) => JSON.stringify(answer).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replaceAll('/', '\\/').replaceAll('<', '\\u003c'),
    ];
    let told = 0;
    let notTold = 0;
    fc.assert(
      fc.property(pair, fc.constantFrom(0, 1, 2), ([a, b], escaping) => {
        const answer = { dictionaries: [{ entries: b, source_lang: 'en', target_lang: 'de' }] };
        const body = Buffer.from((escapings[escaping] as (answer: object) => string)(answer), 'utf8');
        const cut = cutLiteral(body, literalOf(a));
        if (cut !== undefined) {
          told++;
          // Told the same: the answer decodes to the text, and the rest to the rest.
          expect(b).toBe(a);
          const decoded = JSON.parse(body.toString('utf8')) as typeof answer;
          expect(decoded.dictionaries[0]?.entries).toBe(a);
          expect({ ...(JSON.parse(cut.rest) as typeof answer).dictionaries[0], entries: a }).toEqual(decoded.dictionaries[0]);
        } else notTold++;
        // What JSON.stringify writes is always told (whitespace outside strings aside).
        if (a === b && escaping < 2) expect(cut).toBeDefined();
      }),
    );
    expect(told).toBeGreaterThan(0);
    expect(notTold).toBeGreaterThan(0);
  });
});

const ORIGIN = 'https://api.example.test';
const PATH = '/v3/glossaries/g1/entries?source_lang=en&target_lang=de';
let agents: MockAgent[] = [];
let clients: ServiceClient[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const client of clients) await client.close();
  for (const agent of agents) await agent.close();
  agents = [];
  clients = [];
});

/** A client whose every entries read is answered `body` (bytes as given). */
function clientAnswering(body: string | Buffer, status = 200, options: { apiKey?: string } = {}): ServiceClient {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent.get(ORIGIN).intercept({ path: PATH, method: 'GET' }).reply(status, body, { headers: { 'content-type': 'application/json' } }).persist();
  const client = createClient({ baseUrl: ORIGIN, apiKey: options.apiKey ?? 'mock-key', dispatcher: agent, clock: createVirtualClock(), retry: { maxAttempts: 1 }, random: () => 0.5 });
  agents.push(agent);
  clients.push(client);
  return client;
}

/** The largest run of bytes decoded to a string (Buffer#toString and the rest go through utf8Slice) while `work` runs. */
async function largestDecode<T>(work: () => Promise<T>): Promise<{ result: T; largest: number }> {
  let largest = 0;
  const proto = Buffer.prototype as unknown as { utf8Slice: (this: Buffer, start?: number, end?: number) => string };
  const original = proto.utf8Slice;
  const spy = vi.spyOn(proto, 'utf8Slice').mockImplementation(function (this: Buffer, start?: number, end?: number) {
    largest = Math.max(largest, (end ?? this.length) - (start ?? 0));
    return original.call(this, start, end);
  });
  try {
    return { result: await work(), largest };
  } finally {
    spy.mockRestore();
  }
}

/** Deferred entries of `asRead` (a file without its last LF), as the loader makes them, counting the reads of their file. */
const deferredOfText = (asRead: string): ReturnType<typeof deferredOf> => deferredOf(PackedEntries.fromText(`${asRead}\n`));

const lines = (n: number, from = 0): string =>
  Array.from({ length: n }, (_, i) => `term "${i + from}" \\ Größe\t<Begriff> ${i} é/€ \u{1f600}`).join('\n');

describe('an entries answer told by its bytes', () => {
  it('is told unchanged without decoding it, answered byte for byte as the emulator sends it (as read or sorted; sorted, from the file read once more)', async () => {
    const asRead = lines(2000);
    const sorted = PackedEntries.fromText(`${asRead}\n`).sortedBody();
    expect(sorted).not.toBe(asRead);
    for (const sent of [asRead, sorted]) {
      const { deferred, reads } = deferredOfText(asRead);
      const body = answerOf(sent);
      const client = clientAnswering(body);
      const { result, largest } = await largestDecode(() => fetchEntries(client, [{ glossaryId: 'g1', api: 'v3', sourceLang: 'en', targetLang: 'de', expected: deferred }], { compare: compareWithRepository }));
      const compared = result.compared.get('g1/en-de');
      expect(compared?.diff.entryChanges).toEqual([]);
      expect(compared?.diff.added).toBe(0);
      // Nothing of the entries was decoded: only the rest of the answer (a hundred bytes).
      expect(largest).toBeLessThan(200);
      // The digest sorted by source is made only for an answer that is not the text as read.
      expect(reads()).toBe(sent === asRead ? 0 : 1);
    }
    // The spy sees a decode when there is one: the same answer read without a literal.
    const client = clientAnswering(answerOf(asRead));
    const { largest } = await largestDecode(() => client.readEntries('g1', 'en', 'de'));
    expect(largest).toBeGreaterThanOrEqual(Buffer.byteLength(answerOf(asRead)));
  });

  it('of a large dictionary kept in memory (a file too large to defer): told unchanged by the digest of its sorted text, not decoded; a change of the same length is a change', async () => {
    // Over a million characters, in an order that is not the sources' ("term \"10\"" before "term \"2\""), with quotes and backslashes to escape.
    const asRead = lines(30_000);
    expect(asRead.length).toBeGreaterThan(KEPT_LITERAL_CHARS);
    const kept = (): PackedEntries => PackedEntries.fromText(`${asRead}\n`, 30_000, true);
    const sorted = kept().sortedBody();
    expect(sorted).not.toBe(asRead);
    const fetch = async (sent: string) => {
      const client = clientAnswering(answerOf(sent));
      return largestDecode(() => fetchEntries(client, [{ glossaryId: 'g1', api: 'v3', sourceLang: 'en', targetLang: 'de', expected: kept() }], { compare: compareWithRepository }));
    };
    const same = await fetch(sorted);
    expect(same.result.compared.get('g1/en-de')?.diff).toMatchObject({ added: 0, changed: 0, removed: 0 });
    // Nothing of the entries was decoded: only the rest of the answer (a hundred bytes).
    expect(same.largest).toBeLessThan(200);
    // One target changed, as many bytes long (é and è are two bytes each): the digest differs, the answer is read as always.
    const edited = sorted.replace('<Begriff> 7 é', '<Begriff> 7 è');
    expect(Buffer.byteLength(edited)).toBe(Buffer.byteLength(sorted));
    const changed = await fetch(edited);
    expect(changed.result.compared.get('g1/en-de')?.diff.entryChanges).toEqual([{ source: 'term "7" \\ Größe', before: '<Begriff> 7 è/€ \u{1f600}', after: '<Begriff> 7 é/€ \u{1f600}' }]);
    // The file's own order (another tool uploaded it as it is): decoded and compared, unchanged.
    expect((await fetch(asRead)).result.compared.get('g1/en-de')?.diff).toMatchObject({ added: 0, changed: 0, removed: 0 });
  });

  it('gives SameLiteral only for a literal given, and reads a changed answer as without one', async () => {
    const asRead = lines(300);
    const literal = literalOf(asRead);
    const same = await clientAnswering(answerOf(asRead)).readEntries('g1', 'en', 'de', literal);
    expect(same).toEqual({ sameLiteral: literal.digests[0] });
    const changed = lines(300).replace('Größe', 'Grösse');
    const read = (await clientAnswering(answerOf(changed)).readEntries('g1', 'en', 'de', literal)) as EntriesText;
    expect(read.toList()).toEqual((await clientAnswering(answerOf(changed)).readEntries('g1', 'en', 'de')).toList());
  });

  it('tells the same content escaped otherwise (\\u00e9, \\/, \\u003c, spaces, keys in another order) unchanged, and a change a change, in every form', async () => {
    const asRead = lines(300);
    const changed = asRead.replace('<Begriff> 7', '<Begriff> 8');
    const forms: ((entries: string) => string)[] = [
      (entries) => answerOf(entries),
      (entries) => JSON.stringify({ dictionaries: [{ entries_format: 'tsv', entries, target_lang: 'de', source_lang: 'en' }] }, null, 2),
      (entries) => answerOf(entries).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      (entries) => answerOf(entries).replaceAll('/', '\\/').replaceAll('<', '\\u003c').replaceAll('>', '\\u003e'),
    ];
    for (const form of forms) {
      for (const [sent, unchanged] of [
        [asRead, true],
        [changed, false],
      ] as const) {
        const { deferred } = deferredOfText(asRead);
        const client = clientAnswering(form(sent));
        const { compared } = await fetchEntries(client, [{ glossaryId: 'g1', api: 'v3', sourceLang: 'en', targetLang: 'de', expected: deferred }], { compare: compareWithRepository });
        const diff = compared.get('g1/en-de')?.diff;
        if (unchanged) expect(diff?.entryChanges).toEqual([]);
        else expect(diff?.entryChanges).toEqual([{ source: 'term "7" \\ Größe', before: '<Begriff> 8 é/€ \u{1f600}', after: '<Begriff> 7 é/€ \u{1f600}' }]);
      }
    }
  });

  it('refuses malformed answers with the very errors of a read without a literal', async () => {
    const asRead = lines(200);
    const literal = literalOf(asRead);
    const good = answerOf(asRead);
    const inner = JSON.stringify(asRead);
    const bodies: (string | Buffer)[] = [
      good.slice(0, -1),
      good.slice(0, -3),
      `${good}x`,
      good.replace('"source_lang":"en"', '"source_lang":"en\\x"'),
      good.replace('"tsv"', '"csv"'),
      good.replace('"source_lang":"en"', '"source_lang":1'),
      good.replace('"dictionaries":[', '"dictionaries":[],"x":['),
      `{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":"x","note":${inner}}]}`,
      `{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":${inner}`,
      `{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":${inner}}`,
      `{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":${inner}"}]}`,
      `{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":${inner},"entries":"a\\tb"}]}`,
      // Invalid UTF-8 inside the entries string (as long as the literal, so that it is hashed).
      Buffer.concat([Buffer.from(good.slice(0, good.indexOf('Größe'))), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(good.slice(good.indexOf('Größe') + 3))]),
      good.replace(/\\t/, '\t'),
      good.replace(/\\t/, '\\x'),
      '',
      '<html><body>gateway</body></html>',
      'null',
    ];
    for (const body of bodies) {
      const outcome = async (client: ServiceClient, withLiteral: boolean): Promise<unknown> => {
        try {
          const read = await (withLiteral ? client.readEntries('g1', 'en', 'de', literal) : client.readEntries('g1', 'en', 'de'));
          if ('sameLiteral' in read) return read;
          return { pairs: read.toList() };
        } catch (error) {
          expect(isServiceError(error)).toBe(true);
          return { error: String(error) };
        }
      };
      const before = await outcome(clientAnswering(body), false);
      const now = await outcome(clientAnswering(body), true);
      expect(now).toEqual(before);
      expect(JSON.stringify(now)).not.toContain('sameLiteral');
    }
  });

  it('tells an answer that holds the API key by its bytes like any other: an entry that holds the key is data, kept as it is', async () => {
    const key = 'key-in-entries:fx';
    const asRead = `${lines(100)}\n${key}\tx`;
    const literal = literalOf(asRead);
    const read = await clientAnswering(answerOf(asRead), 200, { apiKey: key }).readEntries('g1', 'en', 'de', literal);
    expect('sameLiteral' in read).toBe(true);
    const decoded = await clientAnswering(answerOf(asRead), 200, { apiKey: key }).readEntries('g1', 'en', 'de');
    expect(decoded.toList().at(-1)).toEqual([key, 'x']);
  });

  it('is compared as its literal says: unchanged for deferred entries of that digest (as read, or sorted as made for this comparison), with the hash of their entries', () => {
    const asRead = lines(50);
    const { deferred, reads } = deferredOfText(asRead);
    const reading = readingOf(deferred);
    const literal = expectedLiteral(deferred, reading);
    expect(literal?.digests.length).toBe(1);
    expect(reads()).toBe(0);
    const sorted = literal?.later?.();
    expect(sorted).toBe(literalDigestOfText(PackedEntries.fromText(`${asRead}\n`).sortedBody()).digest);
    for (const digest of [literal?.digests[0] ?? '', sorted ?? '']) {
      const raw: RawEntries = { sameLiteral: digest } satisfies SameLiteral;
      expect(compareLiveEntries(raw, deferred, false, WHOLE_TEXT_CHARS, reading).diff.entryChanges).toEqual([]);
      const reference = compareLiveEntries({ tsv: asRead }, PackedEntries.fromText(`${asRead}\n`), true);
      expect(compareLiveEntries(raw, deferred, true, WHOLE_TEXT_CHARS, reading).hash).toBe(reference.hash);
    }
    // One read for the whole comparison.
    expect(reads()).toBe(1);
    // A sorted digest nobody made for this comparison is not taken.
    expect(() => compareLiveEntries({ sameLiteral: sorted ?? '' }, deferred)).toThrow('internal error');
    expect(() => compareLiveEntries({ sameLiteral: rawDigest(Buffer.from('"x"'), 0, 3) }, deferred)).toThrow('internal error');
    expect(() => compareLiveEntries({ sameLiteral: literal?.digests[0] ?? '' }, PackedEntries.fromText(`${asRead}\n`))).toThrow('internal error');
  });
});

describe('cutLiteral asks for the sorted digest only for the value of "entries"', () => {
  // A 9-byte literal is as long as the key "entries"; 13 bytes as "source_lang" and "target_lang".
  for (const text of ['ab\tcde', 'abcde\tfghij']) {
    it(`a file of ${JSON.stringify(text).length} literal bytes answered as it is read: told from its bytes, the file never read again`, () => {
      const literal = JSON.stringify(text);
      const body = Buffer.from(`{"dictionaries":[{"source_lang":"en","target_lang":"de","entries":${literal},"entries_format":"tsv"}]}`);
      const later = vi.fn(() => 'f'.repeat(64));
      const expected: ExpectedLiteral = { bytes: Buffer.byteLength(literal), digests: [literalDigestOfText(text).digest], later };
      const cut = cutLiteral(body, expected);
      expect(cut?.digest).toBe(literalDigestOfText(text).digest);
      expect(later).not.toHaveBeenCalled();
      // Answered otherwise (sorted): asked once, for the value, with spaces around the colon too.
      const other = Buffer.from(`{"dictionaries":[{"source_lang":"en","target_lang":"de","entries" :\n ${JSON.stringify(text.toUpperCase())},"entries_format":"tsv"}]}`);
      expect(cutLiteral(other, expected)).toBeUndefined();
      expect(later).toHaveBeenCalledTimes(1);
    });
  }
});
