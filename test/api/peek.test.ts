import { afterEach, describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/api/check-base-url.js';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { createAgent, sendRequest } from '../../src/api/send-request.js';
import { literalDigestOfText } from '../../src/lib/text-digest.js';
import { startHttpServer, type HostileServer } from './hostile-server.js';

/*
 * A request's `peek` (the client's look at a v3 entries answer's bytes) is an optimisation: one that
 * throws is as one that made nothing of the bytes. The answer is decoded and read as always; the
 * exception is no network error and the request is not sent again.
 */

const ENTRIES = 'account\tKonto\ncart\tWarenkorb';
const BODY = JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: ENTRIES, entries_format: 'tsv' }] });

let server: HostileServer | undefined;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await server?.close();
  server = undefined;
});

async function serve(): Promise<HostileServer> {
  server = await startHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(BODY);
  });
  return server;
}

describe('a peek that throws', () => {
  it('sendRequest: the answer is decoded as without a peek (nothing peeked), and a peek that returns something is its answer', async () => {
    const s = await serve();
    const agent = createAgent(1);
    closing.push(() => agent.close());
    const request = { method: 'GET', path: '/v3/glossaries/g1/entries' } as const;
    const thrown = await sendRequest(agent, checkBaseUrl(s.url), 'key', {
      ...request,
      peek: () => {
        throw new TypeError('a bug in the peek');
      },
    }, undefined);
    expect(thrown.status).toBe(200);
    expect(thrown.text).toBe(BODY);
    expect(thrown.peeked).toBeUndefined();
    const peeked = await sendRequest(agent, checkBaseUrl(s.url), 'key', { ...request, peek: (bytes) => ({ length: bytes.length }) }, undefined);
    expect(peeked.peeked).toEqual({ length: Buffer.byteLength(BODY) });
    expect(peeked.text).toBe('');
    expect(s.requests).toHaveLength(2);
  });

  it('client: an entries read whose literal throws while the answer is peeked reads the answer decoded, sent once, not retried as a network failure', async () => {
    const s = await serve();
    const client: ServiceClient = createClient({ baseUrl: s.url, apiKey: 'key', retry: { maxAttempts: 3 }, random: () => 0.5 });
    closing.push(() => client.close());
    // A string of the literal's length that is none of its digests: the peek asks `later`, which throws.
    const literal = {
      bytes: literalDigestOfText(ENTRIES).bytes,
      digests: ['not this one'],
      later: (): string => {
        throw new Error('a bug behind the peek');
      },
    };
    const read = await client.readEntries('g1', 'en', 'de', literal);
    expect('sameLiteral' in read).toBe(false);
    expect('toList' in read && read.toList()).toEqual([
      ['account', 'Konto'],
      ['cart', 'Warenkorb'],
    ]);
    expect(s.requests).toEqual(['GET /v3/glossaries/g1/entries?source_lang=en&target_lang=de']);
  });
});
