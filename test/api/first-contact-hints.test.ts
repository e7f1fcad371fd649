import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { createClient, type ServiceClient } from '../../src/api/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';

/**
 * What a refused key or a missing route says on first contact: the setting or the part of the URL
 * to check, not only the status.
 */
let closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing) await close();
  closing = [];
});

function clientFor(baseUrl: string, answer: { status: number; body: string }, authScheme?: string): ServiceClient {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent.get(new URL(baseUrl).origin).intercept({ path: /.*/, method: 'GET' }).reply(answer.status, answer.body).persist();
  const client = createClient({
    baseUrl,
    apiKey: 'hint-test-key-0c4d',
    dispatcher: agent,
    clock: createVirtualClock(),
    requestsPerSecond: 100,
    concurrency: 1,
    baseUrlEnv: 'TERMSYNC_BASE_URL',
    ...(authScheme === undefined ? {} : { authScheme }),
  });
  closing.push(
    () => client.close(),
    () => agent.close(),
  );
  return client;
}

async function messageOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}

describe('a 403 with the spec scheme', () => {
  it("from the vendor's servers: says they take auth_scheme: DeepL-Auth-Key", async () => {
    for (const host of ['api.deepl.com', 'api-free.deepl.com']) {
      const message = await messageOf(clientFor(`https://${host}`, { status: 403, body: '{"message":"Forbidden"}' }).listGlossaries());
      expect(message).toBe(
        `GET /v3/glossaries: the key is not permitted to read this (403); the vendor's servers (${host}) take \`auth_scheme: DeepL-Auth-Key\`: set it on this target in the config — Forbidden`,
      );
    }
  });

  it("with the vendor's refusal as the body, from any host (its mock server): says its servers take auth_scheme: DeepL-Auth-Key", async () => {
    expect(await messageOf(clientFor('http://127.0.0.1:3000', { status: 403, body: '{"message":"Authorization failure, check auth_key"}' }).listGlossaries())).toBe(
      "GET /v3/glossaries: the key is not permitted to read this (403); the answer is the vendor's: its servers take `auth_scheme: DeepL-Auth-Key`: set it on this target in the config — Authorization failure, check auth_key",
    );
  });

  it('from another host: names the setting as a possibility; with DeepL-Auth-Key already set: no hint', async () => {
    expect(await messageOf(clientFor('https://terms.example.test', { status: 403, body: '' }).listGlossaries())).toBe(
      "GET /v3/glossaries: the key is not permitted to read this (403); if this is the vendor's own service or its mock server, set `auth_scheme: DeepL-Auth-Key` on this target in the config",
    );
    expect(await messageOf(clientFor('https://api.deepl.com', { status: 403, body: '' }, 'DeepL-Auth-Key').listGlossaries())).toBe('GET /v3/glossaries: the key is not permitted to read this (403)');
  });
});

describe('a 404', () => {
  it("with an empty body (no route answered): check the URL's path, naming the variable and the URL", async () => {
    expect(await messageOf(clientFor('https://terms.example.test/api', { status: 404, body: '' }).listGlossaries())).toBe(
      "GET /v3/glossaries: not found (404) with an empty answer: check the URL's path (TERMSYNC_BASE_URL is https://terms.example.test/api; the service's routes start with /v2 and /v3 under it)",
    );
  });

  it('with an empty body for one resource (it may be gone): no hint about the URL', async () => {
    expect(await messageOf(clientFor('https://terms.example.test', { status: 404, body: '' }).getGlossary('g1'))).toBe('GET /v3/glossaries/g1: not found (404)');
  });

  it("with the service's own message: that message, no hint", async () => {
    expect(await messageOf(clientFor('https://terms.example.test', { status: 404, body: '{"message":"Glossary not found"}' }).getGlossary('g1'))).toBe(
      'GET /v3/glossaries/g1: not found (404) — Glossary not found',
    );
  });
});
