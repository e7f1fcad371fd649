import { afterEach, describe, expect, it } from 'vitest';
import { createClient, isServiceError, type ServiceClient } from '../../src/api/index.js';
import { literalDigestOfBytes } from '../../src/lib/text-digest.js';
import type { ExpectedLiteral } from '../../src/model/live.js';
import { startHttpServer, type HostileServer } from './hostile-server.js';

/*
 * GET /v3/glossaries/{id}/entries?source_lang=…&target_lang=… answers the dictionary of that pair
 * (the spec: one dictionary per call). An answer without it is refused, whichever path reads it:
 * decoded (no literal), or told from its bytes (a deferred file's literal, as `plan` gives one).
 * Another pair's entries are never read as the asked pair's.
 */

const ENTRIES = 'account\tKonto\nbilling\tAbrechnung\ncart\tWarenkorb';

let server: HostileServer | undefined;
let client: ServiceClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** A server answering every request `body` (200, JSON), and a client of it that does not retry. */
async function answering(body: string): Promise<ServiceClient> {
  server = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  client = createClient({ baseUrl: server.url, apiKey: 'test-key', retry: { maxAttempts: 1 }, random: () => 0.5 });
  return client;
}

const dictionary = (source: string, target: string, entries = ENTRIES): object => ({ source_lang: source, target_lang: target, entries, entries_format: 'tsv' });
const answerOf = (...dictionaries: object[]): string => JSON.stringify({ dictionaries });

/** The literal a deferred file holding ENTRIES stands for (as the loader makes it from the bytes). */
function literalOf(text: string): ExpectedLiteral {
  const literal = literalDigestOfBytes(Buffer.from(text, 'utf8'));
  return { bytes: literal.bytes, digests: [literal.digest] };
}

/** What one read makes of the answer: the entries, told unchanged, or the error's code and message. */
async function outcome(c: ServiceClient, literal?: ExpectedLiteral): Promise<unknown> {
  try {
    const read = literal === undefined ? await c.readEntries('g1', 'en', 'de') : await c.readEntries('g1', 'en', 'de', literal);
    if ('sameLiteral' in read) return 'same literal';
    return read.toList();
  } catch (error) {
    if (!isServiceError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('an entries answer of another language pair', () => {
  it('is refused naming the asked pair and what came, decoded or told from its bytes (the entries byte for byte the file\'s)', async () => {
    const c = await answering(answerOf(dictionary('en', 'fr')));
    const expected = {
      code: 'invalid_response',
      message: 'GET /v3/glossaries/g1/entries?source_lang=en&target_lang=de: unexpected response: no dictionary en → de in the answer (it holds en → fr)',
    };
    expect(await outcome(c)).toEqual(expected);
    expect(await outcome(c, literalOf(ENTRIES))).toEqual(expected);
    // Read once each: an invalid answer is not retried.
    expect(server?.requests).toHaveLength(2);
  });

  it('an answer of no dictionary, or of only others, is refused the same way', async () => {
    const c = await answering(answerOf());
    const message = 'unexpected response: no dictionary en → de in the answer (it holds none)';
    expect(await outcome(c)).toMatchObject({ code: 'invalid_response', message: expect.stringContaining(message) as unknown });
    expect(await outcome(c, literalOf(ENTRIES))).toMatchObject({ code: 'invalid_response', message: expect.stringContaining(message) as unknown });
    await client?.close();
    await server?.close();
    const other = await answering(answerOf(dictionary('de', 'en'), dictionary('en', 'en')));
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      expect(await outcome(other, literal)).toMatchObject({ message: expect.stringContaining('no dictionary en → de in the answer (it holds de → en, en → en)') as unknown });
    }
  });

  it('an answer whose languages are not language codes is refused naming the field and the code, within bounds, control characters replaced', async () => {
    const many = Array.from({ length: 500 }, (_, i) => dictionary(`x${'y'.repeat(5000)}\n${i}`, 'fr', 'a\tb'));
    const c = await answering(answerOf(dictionary('e\u001b[2Jn', 'fr'), ...many));
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      const result = (await outcome(c, literal)) as { code: string; message: string };
      expect(result.code).toBe('invalid_response');
      expect(result.message).toContain(
        'unexpected response: `dictionaries.0.source_lang`: expected a language code (letters, digits and hyphens, at most 35 characters), got "e?[2Jn" (and 500 more problems)',
      );
      expect(result.message.length).toBeLessThan(300);
      expect(result.message).not.toContain('\n');
    }
    await client?.close();
    await server?.close();
    const long = await answering(answerOf(dictionary('en', `x${'y'.repeat(5000)}`)));
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      expect(await outcome(long, literal)).toMatchObject({ message: expect.stringContaining('`dictionaries.0.target_lang`: expected a language code (letters, digits and hyphens, at most 35 characters), got a string of over 4096 characters') as unknown });
    }
  });

  it('replaces what a terminal would act on or reorder, in the answer\'s languages and in the asked pair (import asks for the listing\'s)', async () => {
    const c = await answering(answerOf(dictionary('\u009b2J\u202eab', 'fr\u2028x')));
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      const result = (await outcome(c, literal)) as { message: string };
      expect(result.message).toContain('got "?2J?ab"');
      // eslint-disable-next-line no-control-regex
      expect(result.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u202e]/);
    }
    await client?.close();
    await server?.close();
    const other = await answering(answerOf(dictionary('en', 'fr')));
    const asked = 'e\u001b]0;pwned\u0007n';
    const read = await other.readEntries('g1', `${asked}${'x'.repeat(300)}`, 'de').catch((error: unknown) => error);
    expect(isServiceError(read)).toBe(true);
    const message = (read as Error).message;
    expect(message).toContain(`unexpected response: no dictionary e?]0;pwned?n${'x'.repeat(8)}… → de in the answer`);
    // eslint-disable-next-line no-control-regex
    expect(message.replace(/^[^:]*: /, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(message.length).toBeLessThan(1000);
  });

  it('takes out the API key a server wrote with JSON escapes', async () => {
    // "test-key" with its first letter escaped: the raw bytes do not hold it, the decoded text does.
    const c = await answering('{"dictionaries":[{"source_lang":"\\u0074est-key","target_lang":"fr","entries":"a\\tb"}]}');
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      const result = (await outcome(c, literal)) as { message: string };
      // "test-key" has a language code's shape: the answer is refused as another pair's, named without the key.
      expect(result.message).toContain('(it holds [redacted] → fr)');
      expect(result.message).not.toContain('test-key');
    }
  });

  it('two dictionaries of the asked pair are refused, not the first read', async () => {
    const c = await answering(answerOf(dictionary('en', 'de'), dictionary('en', 'de', 'account\tKonto2')));
    for (const literal of [undefined, literalOf(ENTRIES)]) {
      expect(await outcome(c, literal)).toMatchObject({ code: 'invalid_response', message: expect.stringContaining('unexpected response: 2 dictionaries en → de in the answer (one per call)') as unknown });
    }
  });

  it('the asked pair among others is the one read, wherever it is in the list, and a difference of case is none', async () => {
    const c = await answering(answerOf(dictionary('en', 'fr', 'cart\tpanier'), dictionary('EN', 'De')));
    expect(await outcome(c)).toEqual([
      ['account', 'Konto'],
      ['billing', 'Abrechnung'],
      ['cart', 'Warenkorb'],
    ]);
    expect(await outcome(c, literalOf(ENTRIES))).toBe('same literal');
    // The other pair's entries being the file's is no match for it.
    expect(await outcome(c, literalOf('cart\tpanier'))).toEqual([
      ['account', 'Konto'],
      ['billing', 'Abrechnung'],
      ['cart', 'Warenkorb'],
    ]);
  });
});
