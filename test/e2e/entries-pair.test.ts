import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';
import { listenOnLoopback } from './loopback.js';

/**
 * `plan` against a server that answers GET …/entries of en-de with another pair's dictionary: a
 * proxy in front of the emulator (which holds the repository as applied) rewrites that answer.
 * The plain plan tells a deferred TSV file's answer from its bytes, `plan --format json` decodes
 * it: neither may take the other pair's entries for en-de's.
 */

type Rewrite = (body: string) => string;

interface Proxy {
  readonly url: string;
  close(): Promise<void>;
}

/** Forwards everything; the answer to a GET of en-de entries goes through `rewrite`, or comes from `from` instead. */
async function rewritingProxy(target: string, how: { rewrite?: Rewrite; from?: string }): Promise<Proxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '/';
    const entriesDe = req.method === 'GET' && /\/entries\?/.test(url) && url.includes('target_lang=de');
    const path = entriesDe && how.from !== undefined ? url.replace('target_lang=de', `target_lang=${how.from}`) : url;
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers }, (answer) => {
      if (!entriesDe || how.rewrite === undefined) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const body = (how.rewrite as Rewrite)(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) });
        res.end(body);
      });
    });
    req.pipe(forward);
  });
  return listenOnLoopback(server);
}

let world: World;
let proxy: Proxy | undefined;
beforeEach(async () => {
  world = await createWorld('basic');
  const applied = await world.cli(['apply']);
  expect(applied.code).toBe(0);
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await world.close();
});

async function planThrough(how: { rewrite?: Rewrite; from?: string }, args: readonly string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  await proxy?.close();
  proxy = await rewritingProxy(world.emulator.url, how);
  const run = await world.cli(['plan', '--detailed-exitcode', ...args], { TERMSYNC_BASE_URL: proxy.url, TERMSYNC_MAX_ATTEMPTS: '1' });
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return run;
}

const REFUSED = /GET \/v3\/glossaries\/[^/]+\/entries\?source_lang=en&target_lang=de: unexpected response: no dictionary en → de in the answer \(it holds en → fr\)/;

describe('plan against an entries answer of another language pair', () => {
  it('the en-de file\'s own entries labelled en-fr: refused (exit 7), not taken as unchanged, by the plain plan (from the bytes) and the JSON plan', async () => {
    const relabel: Rewrite = (body) => body.replace('"target_lang":"de"', '"target_lang":"fr"');
    for (const args of [[], ['--format', 'json']]) {
      const run = await planThrough({ rewrite: relabel }, args);
      expect(run.stdout).not.toContain('No changes.');
      expect(run.stderr).toMatch(REFUSED);
      expect(run.code).toBe(7);
    }
  });

  it('the en-fr dictionary answered for en-de: refused (exit 7), not planned as a change of en-de', async () => {
    for (const args of [[], ['--format', 'json']]) {
      const run = await planThrough({ from: 'fr' }, args);
      expect(run.stdout).not.toContain('en-de');
      expect(run.stderr).toMatch(REFUSED);
      expect(run.code).toBe(7);
    }
  });

  it('the pair in another case is the pair: no changes, both plans', async () => {
    const upper: Rewrite = (body) => body.replace('"source_lang":"en","target_lang":"de"', '"source_lang":"EN","target_lang":"De"');
    for (const args of [[], ['--format', 'json']]) {
      const run = await planThrough({ rewrite: upper }, args);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    // The rewrite found its mark (the emulator writes the pair so).
    expect(upper('{"source_lang":"en","target_lang":"de"}')).not.toBe('{"source_lang":"en","target_lang":"de"}');
  });
});
