import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, isServiceError, type ClientOptions, type ServiceClient } from '../../src/api/index.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { endlessBody, lyingLength, startHttpServer, startRawServer, trickle, type HostileServer } from './hostile-server.js';

/**
 * The client against servers that misbehave: each ends with a clear error and the right exit code,
 * within its limits (small ones here, so that each case takes milliseconds), with bounded memory.
 */

const open: { server?: HostileServer; client?: ServiceClient }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.client?.close();
    await o.server?.close();
  }
});

async function against(server: Promise<HostileServer>, options: Partial<ClientOptions> = {}): Promise<{ server: HostileServer; client: ServiceClient }> {
  const s = await server;
  const client = createClient({
    baseUrl: s.url,
    apiKey: 'hostile-test-key',
    random: () => 0,
    retry: { maxAttempts: 1 },
    limits: { maxResponseBytes: 1024 * 1024, deadlineMs: 2_000 },
    ...options,
  });
  open.push({ server: s, client });
  return { server: s, client };
}

/** `promise`, or a failure naming `what` if it has not settled within `ms`. */
async function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function failure(work: Promise<unknown>): Promise<{ code: string; exitCode: number; message: string }> {
  try {
    await work;
  } catch (error) {
    if (!isServiceError(error)) throw error;
    expect(error.message).not.toContain('hostile-test-key');
    return { code: error.code, exitCode: exitCodeOfError(error), message: error.message };
  }
  throw new Error('expected the call to fail');
}

describe('answers too large', () => {
  it('an endless body: the read stops just past the limit, the connection is dropped, exit 7', async () => {
    const { server, client } = await against(endlessBody());
    const error = await failure(client.listGlossaries());
    expect(error).toMatchObject({ code: 'too_large', exitCode: ExitCode.authOrDestination });
    expect(error.message).toMatch(/^GET \/v3\/glossaries: the answer is over the limit of 1 MiB; stopped reading at byte \d+$/);
    // The client dropped the connection: the server sees it close, and its pump stops on the
    // response's close, so what it wrote by then is all it ever writes. (A deadline for the close
    // to come, not a wait for nothing to happen.)
    await within(5_000, server.allClosed(), 'the server to see the connection closed');
    // Memory stays bounded: the server could write only the limit plus what socket buffers hold.
    expect(server.written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('a declared Content-Length over the limit: refused before reading a byte, not retried', async () => {
    const { server, client } = await against(
      startRawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000000000\r\n\r\n{"glo')),
      { retry: { maxAttempts: 3 } },
    );
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('too_large');
    expect(error.message).toContain('the answer declares 4768.4 MiB, over the limit of 1 MiB; nothing was read');
    expect(server.requests).toHaveLength(1);
  });

  it('an answer at the limit is read whole (a large legitimate glossary passes)', async () => {
    const entries = 'a\tb\n'.repeat(150_000); // 900 KB as JSON, under the 1 MiB limit
    const { client } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries, entries_format: 'tsv' }] }));
      }),
    );
    const list = await client.getEntries('g1', 'en', 'de');
    expect(list).toHaveLength(150_000);
  });

  it('a huge error page keeps only its first bytes but is still bounded by the limit', async () => {
    const { client } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'bad', detail: 'x'.repeat(900 * 1024) }));
      }),
    );
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('http_400');
    // The body was cut to its first 64 KiB: not JSON any more, so the message names only the status.
    expect(error.message).toBe('GET /v3/glossaries: bad request (400)');
  });
});

describe('answers that take too long', () => {
  it('a body trickling a byte at a time never trips the idle timeout, but the exchange deadline ends it', async () => {
    const { client } = await against(trickle(20), { limits: { deadlineMs: 200 } });
    const error = await failure(client.listGlossaries());
    expect(error).toMatchObject({ code: 'network', exitCode: ExitCode.applyIncomplete });
    expect(error.message).toBe('GET /v3/glossaries: network failure (request_deadline: no complete answer within 200 ms) after 1 attempts');
  });

  it('a deadline-hit read is retried like any network failure, and succeeds when the server recovers', async () => {
    let calls = 0;
    const { client, server } = await against(
      startHttpServer((_req, res) => {
        calls += 1;
        if (calls === 1) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"glossaries": '); // and nothing more
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"glossaries": []}');
      }),
      { retry: { maxAttempts: 2 }, limits: { deadlineMs: 150 } },
    );
    expect(await client.listGlossaries()).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it("the operation's deadline holds during an exchange, not only between attempts", async () => {
    const { client, server } = await against(trickle(20), { retry: { maxAttempts: 10, deadlineMs: 250 }, limits: { deadlineMs: 60_000 } });
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('deadline');
    expect(error.message).toBe('GET /v3/glossaries: no complete answer before the operation deadline (250 ms) passed');
    expect(server.requests).toHaveLength(1);
  });

  it('a Content-Length longer than the body, connection held open: ended by the deadline', async () => {
    const { client } = await against(lyingLength(500, '{"glossaries": []}', 'hold'), { limits: { deadlineMs: 200 } });
    const error = await failure(client.listGlossaries());
    expect(error.message).toContain('no complete answer within 200 ms');
  });
});

describe('answers that lie or are not the service', () => {
  it('a Content-Length longer than the body, then the connection closes: says how much came', async () => {
    const { client } = await against(lyingLength(500, '{"glossaries": []}', 'close'), { retry: { maxAttempts: 2 } });
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('network');
    expect(error.message).toMatch(/the connection closed before the answer was complete \(received 18 of the 500 bytes its Content-Length declares\)\) after 2 attempts$/);
  });

  it('a Content-Length shorter than the body: the cut answer is not JSON, and says so', async () => {
    const { client } = await against(lyingLength(5, '{"glossaries": []}', 'close'));
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('invalid_response');
    expect(error.message).toBe('GET /v3/glossaries: unexpected response: the body is not JSON (5 bytes, Content-Type "application/json")');
  });

  it('a malformed Content-Length is a protocol error, named', async () => {
    const { client } = await against(startRawServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n{}')));
    const error = await failure(client.listGlossaries());
    expect(error.message).toMatch(/the answer is not valid HTTP\/1\.1 \(Response does not match the HTTP\/1\.1 protocol \(Invalid character in Content-Length\)\)/);
  });

  it('a Content-Encoding termsync did not ask for is refused, compressed or junk, and not retried', async () => {
    for (const [encoding, body] of [
      ['gzip', gzipSync('{"glossaries": []}')],
      ['x-junk', Buffer.from('\u0000\u0001garbage')],
    ] as const) {
      let asked: string | undefined;
      const { client, server } = await against(
        startHttpServer((req, res) => {
          asked = req.headers['accept-encoding'];
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding });
          res.end(body);
        }),
        { retry: { maxAttempts: 3 } },
      );
      const error = await failure(client.listGlossaries());
      expect(asked).toBe('identity');
      expect(error).toMatchObject({ code: 'invalid_response', exitCode: ExitCode.applyIncomplete });
      expect(error.message).toBe(`GET /v3/glossaries: unexpected response: Content-Encoding "${encoding}" (termsync asks for none and decodes none)`);
      expect(server.requests).toHaveLength(1);
    }
  });

  it('malformed JSON and a wrong shape: named as such', async () => {
    const { client: broken } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"glossaries": [');
      }),
    );
    expect((await failure(broken.listGlossaries())).message).toBe('GET /v3/glossaries: unexpected response: the body is not JSON (16 bytes, Content-Type "application/json")');
    const { client: shape } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"glossaries": {"a": 1}}');
      }),
    );
    expect((await failure(shape.listGlossaries())).message).toBe('GET /v3/glossaries: unexpected response: `glossaries`: Invalid input: expected array, received object');
  });

  it('an HTML page instead of JSON (a login page, a captive portal) is named as one, for JSON and TSV answers', async () => {
    const { client } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!DOCTYPE html><html><body>Sign in</body></html>');
      }),
    );
    const expected = 'unexpected response: an HTML page (48 bytes, Content-Type "text/html; charset=utf-8"), not the service\'s JSON: is the base URL the service\'s own, not a proxy, gateway or login page?';
    expect((await failure(client.listGlossaries())).message).toBe(`GET /v3/glossaries: ${expected}`);
    expect((await failure(client.getEntriesV2('g1'))).message).toBe(`GET /v2/glossaries/g1/entries: ${expected}`);
  });

  it("an HTML error page of a gateway: retried as a 5xx, then reported with the status and what it was", async () => {
    const { client, server } = await against(
      startHttpServer((_req, res) => {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      }),
      { retry: { maxAttempts: 2 } },
    );
    const error = await failure(client.listGlossaries());
    expect(error.code).toBe('http_502');
    expect(error.message).toBe("GET /v3/glossaries: HTTP 502 after 2 attempts (an HTML page, not the service's answer: a proxy or gateway may have answered)");
    expect(server.requests).toHaveLength(2);
  });

  it('a redirect is never followed (the key would go along): a destination error, exit 7', async () => {
    const elsewhere = await startHttpServer((_req, res) => res.end('{}'));
    open.push({ server: elsewhere });
    for (const method of ['GET', 'DELETE'] as const) {
      const { client } = await against(
        startHttpServer((_req, res) => {
          res.writeHead(307, { location: `${elsewhere.url}/v3/glossaries` });
          res.end();
        }),
      );
      const error = await failure(method === 'GET' ? client.listGlossaries() : client.deleteGlossary('g1'));
      expect(error).toMatchObject({ code: 'redirect', exitCode: ExitCode.authOrDestination });
      expect(error.message).toContain(`the service answered with a redirect (307) to ${elsewhere.url}/v3/glossaries`);
      expect(error.message).toContain("which termsync does not follow (the API key would go along): point the target's base URL at the service itself");
    }
    expect(elsewhere.requests).toEqual([]);
  });

  it('a server that echoes the key back (in its message, code, detail, trace id, Location): the key is never shown', async () => {
    const echo = (req: { headers: Record<string, string | string[] | undefined> }): string => String(req.headers.authorization ?? '').split(' ')[1] ?? '';
    const { client } = await against(
      startHttpServer((req, res) => {
        const key = echo(req);
        res.writeHead(400, { 'content-type': `application/json; key=${key}`, 'x-trace-id': `trace-${key}` });
        res.end(JSON.stringify({ message: `your key is ${key}`, code: key, detail: `sent ${key}` }));
      }),
    );
    const error = await failure(client.listGlossaries());
    expect(error.message).toContain('your key is [redacted]');
    expect(error.message).toContain('trace-[redacted]');

    // Written with JSON escapes (every character \uXXXX), the raw bytes do not hold the key; the decoded message, code and detail do.
    const escaped = (text: string): string => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const { client: escaping } = await against(
      startHttpServer((req, res) => {
        const key = escaped(echo(req));
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(`{"message":"your key is ${key}","code":"${key}","detail":"sent ${key}"}`);
      }),
    );
    const decoded = await failure(escaping.listGlossaries());
    expect(decoded.message).toBe('GET /v3/glossaries: bad request (400) — your key is [redacted] (sent [redacted]) [[redacted]]');

    const { client: redirected } = await against(
      startHttpServer((req, res) => {
        res.writeHead(307, { location: `http://127.0.0.1:1/steal?k=${echo(req)}` });
        res.end();
      }),
    );
    const moved = await failure(redirected.listGlossaries());
    expect(moved.message).toContain('http://127.0.0.1:1/steal?k=[redacted]');
  });
});

describe('a server that writes the key back with JSON escapes', () => {
  // Capitals, so that a lowercased copy (a language code is canonicalised) would be missed too.
  const KEY = 'AbCdEf12-3456-7890-abcd-ef1234567890:fx';
  /** `text` with its first character written as a \uXXXX escape: the raw bytes no longer hold the key, the decoded text does. */
  const escapeFirst = (text: string): string => `\\u${text.charCodeAt(0).toString(16).padStart(4, '0')}${text.slice(1)}`;
  const answering = (status: number, body: string, headers: Record<string, string> = {}): Promise<HostileServer> =>
    startHttpServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body);
    });
  const keyless = (text: string): void => {
    // No piece of the key of 8 characters or more.
    for (let i = 0; i + 8 <= KEY.length; i++) {
      expect(text).not.toContain(KEY.slice(i, i + 8));
      expect(text).not.toContain(KEY.slice(i, i + 8).toLowerCase());
    }
  };

  it('an error message longer than is shown: the key is out before the message is cut', async () => {
    const { client } = await against(answering(400, `{"message":"${'A'.repeat(480)}${escapeFirst(KEY)}","detail":"${escapeFirst(KEY)}"}`), { apiKey: KEY });
    const error = await failure(client.listGlossaries());
    keyless(error.message);
    expect(error.message).toContain(`${'A'.repeat(20)}[redacted]`);
  });

  it('a glossary name or id in a listing is data: the client returns it as the server sent it (the outputs take the key out)', async () => {
    const listing = `{"glossaries":[{"glossary_id":"${escapeFirst(KEY)}","name":"terms ${escapeFirst(KEY)}","ready":true,"dictionaries":[],"creation_time":"2026-01-01T00:00:00Z"}]}`;
    const { client } = await against(answering(200, listing), { apiKey: KEY });
    const [glossary] = await client.listGlossaries();
    expect(glossary).toMatchObject({ id: KEY, name: `terms ${KEY}` });
  });

  it('a field name of an answer that does not fit its schema: the message names it without the key', async () => {
    const rules = `{"style_rules":[{"style_id":"s1","name":"n","language":"en","version":1,"configured_rules":{"${escapeFirst(KEY)}":{"x":1}},"custom_instructions":[]}]}`;
    const { client } = await against(answering(200, rules), { apiKey: KEY });
    const error = await failure(client.listStyleRules());
    expect(error.code).toBe('invalid_response');
    keyless(error.message);
    expect(error.message).toContain('[redacted]');
  });

  it('a language code of an entries answer: out before it is clipped into the message', async () => {
    const { client } = await against(answering(200, `{"dictionaries":[{"source_lang":"${escapeFirst(KEY)}","target_lang":"fr","entries":"a\\tb"}]}`), { apiKey: KEY });
    const error = await failure(client.readEntries('g1', 'en', 'de'));
    keyless(error.message);
    expect(error.message).toContain('`dictionaries.0.source_lang`: expected a language code');
    expect(error.message).toContain('got "[redacted]"');
  });

  it('control characters of an error body, a trace id and a Content-Type are replaced', async () => {
    const { client } = await against(answering(400, '{"message":"\\u001b]0;pwned\\u0007\\u001b[2J","code":"\\u009b2J"}', { 'x-trace-id': 't\u00802J' }));
    const error = await failure(client.listGlossaries());
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(error.message).toContain('?]0;pwned??[2J');
    const { client: typed } = await against(answering(200, 'not json', { 'content-type': 'text/plain; x=\u00802J' }));
    const notJson = await failure(typed.listGlossaries());
    // eslint-disable-next-line no-control-regex
    expect(notJson.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(notJson.message).toContain('Content-Type "text/plain; x=?2J"');
  });
});

describe('language codes from the service', () => {
  /** A server answering `body` to every GET, and the client's call of `call` against it. */
  const json = (body: unknown): Promise<HostileServer> =>
    startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  const glossary = (target: string): object => ({ glossary_id: 'g1', name: 'Shop', ready: true, creation_time: '2026-01-01T00:00:00Z', dictionaries: [{ source_lang: 'en', target_lang: target, entry_count: 1 }] });
  const list = (language: string, sourceLanguage?: string): { style_rules: object[] } => ({
    style_rules: [
      {
        style_id: 's1', name: 'n', language, version: 1, configured_rules: {}, creation_time: 'c', updated_time: 'u',
        custom_instructions: [{ id: 'i1', label: 'l', prompt: 'p', ...(sourceLanguage === undefined ? {} : { source_language: sourceLanguage }) }],
      },
    ],
  });

  it('a path, a NUL, a line break or an over-long code is an invalid_response naming the field and the code, clipped', async () => {
    const cases: [string, (client: ServiceClient) => Promise<unknown>, object, string][] = [
      ['v3 listing', (c) => c.listGlossaries(), { glossaries: [glossary('../../../../tmp/pwned')] }, '`glossaries.0.dictionaries.0.target_lang`: expected a language code (letters, digits and hyphens, at most 35 characters), got "../../../../tmp/pwned"'],
      ['v3 listing, NUL', (c) => c.listGlossaries(), { glossaries: [glossary('de\u0000x')] }, 'got "de?x"'],
      ['v3 listing, line break inside', (c) => c.listGlossaries(), { glossaries: [glossary('de\n::error::x')] }, 'got "de?::error::x"'],
      ['v3 listing, too long', (c) => c.listGlossaries(), { glossaries: [glossary(`de-${'abcdefgh-'.repeat(4)}x`)] }, 'got "de-abcdefgh-abcdefgh-abcdefgh-abcdefgh-x"'],
      ['v3 listing, a subtag too long', (c) => c.listGlossaries(), { glossaries: [glossary('deutschland')] }, 'got "deutschland"'],
      ['v3 listing, empty', (c) => c.listGlossaries(), { glossaries: [glossary('')] }, 'got ""'],
      ['v2 listing', (c) => c.listGlossariesV2(), { glossaries: [{ glossary_id: 'g', name: 'n', ready: true, source_lang: 'en/../..', target_lang: 'de', creation_time: 'c', entry_count: 1 }] }, '`glossaries.0.source_lang`'],
      ['style rule list', (c) => c.listStyleRules(), list('de\\x'), '`style_rules.0.language`'],
      ['instruction source language', (c) => c.listStyleRules(), list('de', 'en/x'), '`style_rules.0.custom_instructions.0.source_language`'],
      ['entries answer', (c) => c.readEntries('g1', 'en', 'de'), { dictionaries: [{ source_lang: 'en', target_lang: 'de\u0000', entries: 'a\tb' }] }, '`dictionaries.0.target_lang`'],
    ];
    for (const [what, call, body, says] of cases) {
      const { client } = await against(json(body));
      const error = await failure(call(client));
      expect(error.code, what).toBe('invalid_response');
      expect(error.message, what).toContain(says);
      // eslint-disable-next-line no-control-regex
      expect(error.message, what).not.toMatch(/[\u0000-\u001f]/);
    }
  });

  it('codes of the shape pass, trimmed and lowercased; an empty or null instruction source language is none', async () => {
    const { client } = await against(json({ glossaries: [glossary(' zh-Hans ')] }));
    expect((await client.listGlossaries())[0]?.dictionaries[0]?.targetLang).toBe('zh-hans');
    for (const source of ['', null]) {
      const { client: rules } = await against(json({ style_rules: [{ ...list('DE').style_rules[0], custom_instructions: [{ id: 'i', label: 'l', prompt: 'p', source_language: source }] }] }));
      const [read] = await rules.listStyleRules();
      expect(read?.language).toBe('de');
      expect(read?.customInstructions[0]).toEqual({ id: 'i', label: 'l', prompt: 'p' });
    }
  });
});
