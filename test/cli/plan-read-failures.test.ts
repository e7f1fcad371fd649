import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from '../e2e/harness.js';
import { listenOnLoopback } from '../e2e/loopback.js';

/**
 * `plan` never exits 6 (that code says an apply was incomplete): a service it cannot read — a wrong
 * base path (404), 5xx after the retries, an answer it cannot use — is a destination error, exit 7.
 */
let world: World;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await world.close();
});

/** A server that answers every request 200 with a body that is not JSON. */
async function garbageServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('<html>not the service</html>');
  });
  return listenOnLoopback(server);
}

describe('plan when the service cannot be read', () => {
  it('a wrong base path (404): exit 7 with the failed request', async () => {
    const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: `${world.emulator.url}/wrong` });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(/^Error: GET \/v\S+: not found \(404\)/m);
    expect(run.stderr).not.toContain('apply');
  });

  it('5xx after the retries: exit 7, with --detailed-exitcode and --out too', async () => {
    world.emulator.setFaults('503=1');
    for (const argv of [['plan'], ['plan', '--detailed-exitcode'], ['plan', '--out', 'p.json']]) {
      const run = await world.cli(argv, { TERMSYNC_MAX_ATTEMPTS: '2' });
      expect(run.code).toBe(7);
      expect(run.stderr).toMatch(/^Error: GET \/v\S+: HTTP 503 after 2 attempts/m);
    }
  });

  it('an answer that is not the service’s: exit 7 with the reason', async () => {
    const server = await garbageServer();
    try {
      const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: server.url });
      expect(run.code).toBe(7);
      expect(run.stderr).toMatch(/^Error: GET \/v\S+: unexpected response: an HTML page .*not the service's JSON/m);
    } finally {
      await server.close();
    }
  });
});

/**
 * A pass-through proxy to `target` that calls `first` once, when the first request for a
 * dictionary's entries arrives and before it is forwarded: the repository was read and checked,
 * and no answer to compare with has come yet.
 */
async function entriesProxy(target: string, first: () => void): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let called = false;
  const server: Server = createServer((req, res) => {
    if (!called && req.method === 'GET' && (req.url ?? '').includes('/entries')) {
      called = true;
      first();
    }
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(out);
  });
  return listenOnLoopback(server);
}

describe('plan when an entries file changes while it runs', () => {
  const file = 'glossaries/product.en-de.tsv';
  const unsorted = 'invoice\tRechnung\ncart\tWarenkorb\naccount\tKonto\n';

  it('a file not in source order, on a service that answers sorted (after termsync apply): no change when it stays as it was; edited or removed after the check, exit 3 and nothing written — saved or not (a plain plan tells an answer from its bytes)', async () => {
    await world.write(file, unsorted);
    expect((await world.cli(['apply'])).code).toBe(0);
    const edited = unsorted.replace('Konto', 'Kundenkonto');
    const edits: [string, (() => void) | undefined, string][] = [
      ['as it was', undefined, ''],
      ['edited', () => writeFileSync(path.join(world.dir, file), edited), 'it no longer holds what was read and checked at the start'],
      ['removed', () => rmSync(path.join(world.dir, file)), 'it can no longer be read ('],
    ];
    for (const saved of [true, false]) {
      for (const [name, edit, why] of edits) {
        await world.write(file, unsorted);
        const proxy = await entriesProxy(world.emulator.url, () => edit?.());
        try {
          const mark = world.mark();
          const run = await world.cli(['plan', '--detailed-exitcode', ...(saved ? ['--out', 'plan.json'] : [])], { TERMSYNC_BASE_URL: proxy.url });
          expect(world.writesSince(mark), name).toEqual([]);
          if (edit === undefined) {
            expect(run.stderr, name).toBe('');
            expect(run.code, name).toBe(0);
            expect(existsSync(path.join(world.dir, 'plan.json')), name).toBe(saved);
          } else {
            expect(run.code, name).toBe(3);
            expect(run.stderr, name).toContain('the entries file glossaries/product.en-de.tsv (`entries_file` of glossaries/product.yaml) changed while termsync ran: ');
            expect(run.stderr, name).toContain(why);
            expect(run.stderr, name).not.toMatch(/\n\s+at /);
            expect(existsSync(path.join(world.dir, 'plan.json')), name).toBe(false);
          }
        } finally {
          await proxy.close();
          rmSync(path.join(world.dir, 'plan.json'), { force: true });
        }
      }
    }
    // Run again: the file as it is now, a change to plan.
    await world.write(file, edited);
    const again = await world.cli(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(2);
    expect(again.stdout).toContain('Kundenkonto');
  });
});
