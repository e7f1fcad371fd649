import { createServer, request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createWorld, type World } from '../e2e/harness.js';
import { listenOnLoopback } from '../e2e/loopback.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('apply messages a CI log can trust', () => {
  it('a read-only key (403): no "run apply again" hint, the reason and what to do instead', async () => {
    world = await createWorld('basic', { keys: ['KEY', 'RO=read'] });
    const run = await world.cli(['apply'], { TERMSYNC_API_KEY: 'RO' });
    expect(run.code).toBe(7);
    expect(run.stdout).toMatch(/^Apply incomplete: 0 applied, 1 failed, \d+ skipped\.$/m);
    expect(run.stdout).not.toMatch(/apply again/i);
    expect(run.stderr).toContain('Use a key with write access.');
  });

  it('a write failing with a 5xx: the "run apply again" hint (it may pass)', async () => {
    world = await createWorld('basic');
    world.emulator.injectOnce({ kind: 503, method: 'POST', pathPrefix: '/v3/style_rules' });
    // Every attempt of the style rule create is answered 503, so it fails with a retryable error.
    const flaky = await world.cli(['apply'], { TERMSYNC_MAX_ATTEMPTS: '1' });
    expect(flaky.code).toBe(6);
    expect(flaky.stdout).toMatch(/Run apply again to retry\.\n$/);
  });

  it('interrupted: what had not started is listed as skipped, one line says the run was interrupted', async () => {
    world = await createWorld('basic');
    const w = world;
    const controller = new AbortController();
    // In front of the emulator: reads pass through; the first write is held (never answered) and
    // the run interrupted the moment it arrives, so that write is in flight and the others (which
    // wait for the first write to be accepted) have not started. No timing involved.
    const upstream = new URL(w.emulator.url);
    const held: string[] = [];
    const proxy = await listenOnLoopback(
      createServer((req, res) => {
        if (req.method !== 'GET') {
          held.push(`${req.method ?? '?'} ${req.url ?? '?'}`);
          req.resume();
          controller.abort(new Error('received SIGINT'));
          return;
        }
        const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        req.pipe(forward);
      }),
    );
    let stdout = '';
    let stderr = '';
    try {
      const code = await runCli(['apply', '--dir', w.dir], {
        stdout: (t) => {
          stdout += t;
        },
        stderr: (t) => {
          stderr += t;
        },
        env: { TERMSYNC_BASE_URL: proxy.url, TERMSYNC_API_KEY: w.key },
        cwd: w.dir,
        signal: controller.signal,
      });
      expect(code).toBe(130);
    } finally {
      await proxy.close();
    }
    expect(held).toEqual(['POST /v2/glossaries']);
    expect(stdout).toMatch(/^ {2}✗ op-1 POST \/v2\/glossaries .*aborted/m);
    expect(stdout.match(/skipped \(not started\)/g)).toHaveLength(2);
    expect(stdout).toMatch(/^Apply interrupted: 0 applied, 1 failed, 2 skipped \(2 not started\)\. Run apply again to finish\.$/m);
    expect(`${stdout}${stderr}`.match(/interrupted/g)).toHaveLength(1);
    // Nothing was written: the one write that went out never reached the service.
    expect(w.writesSince(0)).toEqual([]);
  });
});
