import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBaseUrl } from '../../src/api/check-base-url.js';
import { createRequire } from 'node:module';
import { Agent as EntryPointAgent } from 'undici';
import { createAgent, loadUndici, sendRequest } from '../../src/api/send-request.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, path: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('undici, loaded module by module', () => {
  it('sends through the Agent, and through any dispatcher that only dispatches (an exchange is dispatched with a handler of its own)', async () => {
    const agent = createAgent(1);
    try {
      // Only `dispatch`: nothing else of a dispatcher's API is used.
      const dispatchOnly = { dispatch: agent.dispatch.bind(agent) } as unknown as Dispatcher;
      for (const dispatcher of [agent as Dispatcher, dispatchOnly]) {
        const answer = await sendRequest(dispatcher, checkBaseUrl(url), 'key', { method: 'GET', path: '/v3/glossaries' }, undefined);
        expect(answer.status).toBe(200);
        expect(JSON.parse(answer.text)).toEqual({ method: 'GET', path: '/v3/glossaries' });
      }
    } finally {
      await agent.close();
    }
  });

  it('the client\'s modules load the Agent without undici\'s entry point (the whole library)', async () => {
    const script = `
      import { createRequire } from 'node:module';
      const { createAgent } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'api', 'send-request.js'))});
      await createAgent(1).close();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('undici'));
      console.log(JSON.stringify(loaded));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const loaded = JSON.parse(stdout) as string[];
    expect(loaded.some((f) => f.endsWith(path.join('undici', 'lib', 'dispatcher', 'agent.js')))).toBe(true);
    expect(loaded.some((f) => f.endsWith(path.join('undici', 'index.js')))).toBe(false);
    // Nor undici's `request` and its body stream: an answer's chunks go to the client's own handler.
    expect(loaded.some((f) => f.endsWith(path.join('undici', 'lib', 'api', 'api-request.js')) || f.endsWith(path.join('undici', 'lib', 'api', 'readable.js')))).toBe(false);
  });

  it('falls back to undici\'s entry point when its layout differs (a module missing, or not a function), and sends through it', async () => {
    const real = createRequire(import.meta.url);
    const missing = Object.assign((id: string) => {
      if (id.startsWith('undici/lib/')) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return real(id) as unknown;
    }, real) as NodeJS.Require;
    const changed = Object.assign((id: string) => (id.startsWith('undici/lib/') ? { moved: true } : (real(id) as unknown)), real) as NodeJS.Require;
    for (const require of [missing, changed]) {
      const loaded = loadUndici(require);
      expect(loaded.Agent).toBe(EntryPointAgent);
      expect(loaded.light).toBe(false);
      const agent = new loaded.Agent({ connections: 1 });
      try {
        const answer = await sendRequest(agent, checkBaseUrl(url), 'key', { method: 'GET', path: '/v3/glossaries' }, undefined);
        expect(JSON.parse(answer.text)).toEqual({ method: 'GET', path: '/v3/glossaries' });
      } finally {
        await agent.close();
      }
    }
    expect(loadUndici(real).light).toBe(true);
  });
});

describe('undici\'s HTTP parser stays on V8\'s baseline code', () => {
  // llhttp is WebAssembly, compiled when the first connection opens. With V8's default tiering
  // budget its main function was compiled again by TurboFan after the first answer: 0.1-0.4 s of
  // CPU and 30-40 MB of compiler memory per command (see keepParserOnBaselineTier). V8 says what it
  // compiles with --trace-wasm-compilation-times, and Node waits for compilations queued before it
  // exits, so a tier-up queued by these answers is seen. 1,500 answers: a larger tiering budget
  // alone only puts the tier-up off to the thousandth answer or so.
  it('through an agent of createAgent, 1,500 answers are read without compiling the parser again', async () => {
    const script = `
      import http from 'node:http';
      const { createAgent, sendRequest } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'api', 'send-request.js'))});
      const { checkBaseUrl } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'api', 'check-base-url.js'))});
      const server = http.createServer((req, res) => res.end(JSON.stringify({ path: req.url, padding: 'x'.repeat(req.url.endsWith('0') ? 70000 : 100) })));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const agent = createAgent(2);
      const base = checkBaseUrl('http://127.0.0.1:' + server.address().port);
      for (let i = 0; i < 1500; i++) {
        const answer = await sendRequest(agent, base, 'key', { method: 'GET', path: '/v3/glossaries/' + i }, undefined);
        if (JSON.parse(answer.text).path !== '/v3/glossaries/' + i) throw new Error('wrong answer');
      }
      await agent.close();
      server.close();`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--trace-wasm-compilation-times', '--input-type=module', '-e', script], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const compiled = stdout.split('\n').filter((line) => line.startsWith('Compiled function'));
    expect(compiled.some((line) => line.includes('using Liftoff'))).toBe(true);
    expect(compiled.filter((line) => line.includes('using TurboFan'))).toEqual([]);
  }, 60_000);
});
