import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkBaseUrl, createClient, readApiKey, type ServiceClient } from '../../src/api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { captureLogger, dict } from './emulator-harness.js';

const KEY = 'tsk-LEAKCHECK-7f3a9c1e5b';

/** Everything an operation leaves behind that a person or a file could see. */
function evidence(value: unknown): string {
  if (value instanceof Error) return [value.message, String(value), JSON.stringify(value), inspect(value, { depth: 10, showHidden: true })].join('\n');
  return JSON.stringify(value) ?? String(value);
}

async function settle(work: () => unknown, out: string[], errors: unknown[]): Promise<void> {
  try {
    out.push(evidence(await work()));
  } catch (error) {
    errors.push(error);
    out.push(evidence(error));
  }
}

describe('the API key', () => {
  it('appears in no log line (trace level), error, result or emulator record, on success and failure paths', async () => {
    const clock = createVirtualClock();
    const logLines: string[] = [];
    const out: string[] = [];
    const errors: unknown[] = [];
    const emulator = await startEmulator({ port: 0, clock, seed: 3, faults: '429=0.2,529=0.05,503=0.1,456=0.1,reset=0.05', logger: captureLogger(logLines) });
    const readOnly = await startEmulator({ port: 0, clock, keys: [`${KEY}=read`], logger: captureLogger(logLines) });
    const wrongKey = await startEmulator({ port: 0, clock, keys: ['some-other-key'], logger: captureLogger(logLines) });
    const open = (url: string, extra: object = {}): ServiceClient =>
      createClient({ baseUrl: url, apiKey: KEY, clock, logger: captureLogger(logLines), requestsPerSecond: 20, retry: { maxAttempts: 3 }, ...extra });
    const c = open(emulator.url);
    try {
      emulator.injectOnce({ method: 'POST', pathPrefix: '/v3/glossaries', kind: 'reset_after' });
      let id = '';
      await settle(async () => (id = (await c.createGlossary('leak', [dict('en', 'de', [['a', 'b']])])).id), out, errors);
      await settle(() => c.listGlossaries(), out, errors);
      await settle(() => c.getEntries(id, 'en', 'de'), out, errors);
      await settle(() => c.putDictionary(id, dict('en', 'fr', [['c', 'd']])), out, errors);
      await settle(() => c.patchGlossary(id, { name: 'leak-2' }), out, errors);
      await settle(() => c.getGlossary('does-not-exist'), out, errors); // 404
      await settle(() => c.createGlossary('bad', [dict('en', 'de', [['a', 'b'], ['a', 'c']])]), out, errors); // 400
      await settle(() => c.createStyleRules({ name: 's', language: 'de', configuredRules: {}, customInstructions: [{ label: 'l', prompt: 'p' }] }), out, errors);
      await settle(() => c.listStyleRules(), out, errors);
      await settle(() => c.deleteGlossary(id), out, errors);
      await settle(() => open(readOnly.url).createGlossary('x', [dict('en', 'de', [['a', 'b']])]), out, errors); // 403
      await settle(() => open(wrongKey.url).listGlossaries(), out, errors); // 401
      await settle(() => open('http://127.0.0.1:9', { retry: { maxAttempts: 2 } }).listGlossaries(), out, errors); // refused
      await settle(() => open(`https://${KEY}@api.example.com`), out, errors); // URL with credentials
      await settle(() => checkBaseUrl(`http://api.example.com/?key=${KEY}`), out, errors);
      await settle(() => readApiKey({ TERMSYNC_API_KEY: `${KEY} x` }, { name: 't', apiKeyEnv: 'TERMSYNC_API_KEY' }), out, errors);
      out.push(JSON.stringify(emulator.requests()), JSON.stringify(readOnly.requests()), JSON.stringify(wrongKey.requests()));
    } finally {
      await c.close();
      await Promise.all([emulator.close(), readOnly.close(), wrongKey.close()]);
    }

    // The paths really ran: failures of every kind, and plenty of trace output.
    const codes = errors.map((e) => (e as { code?: string }).code);
    for (const code of ['http_404', 'http_400', 'http_403', 'http_401', 'unreachable', 'url_not_allowed', 'api_key_invalid']) expect(codes).toContain(code);
    expect(logLines.length).toBeGreaterThan(50);
    expect(logLines.some((l) => l.includes('"level":10'))).toBe(true);

    const everything = [...logLines, ...out].join('\n');
    expect(everything.length).toBeGreaterThan(5000);
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('LEAKCHECK');
  });
});
