import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliCaptured } from './run-cli.js';

/** Runs `termsync emulator` in-process; `use` gets the URL it printed, then the signal aborts. */
async function runEmulatorCommand(argv: string[], use: (url: string) => Promise<void>): Promise<{ code: number; stdout: string; stderr: string }> {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  let announce: (url: string) => void = () => undefined;
  const started = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const done = runCli(['emulator', ...argv], {
    stdout: (t) => {
      stdout += t;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) announce(match[1]);
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    cwd: process.cwd(),
    signal: controller.signal,
  });
  const url = await Promise.race([started, done.then(() => '')]);
  if (url !== '') {
    try {
      await use(url);
    } finally {
      controller.abort();
    }
  }
  const code = await done;
  return { code, stdout, stderr };
}

describe('termsync emulator (CLI)', () => {
  it('prints the URL, answers requests, and exits 0 when the signal aborts', async () => {
    let status = 0;
    let body: unknown;
    const run = await runEmulatorCommand(['--port', '0', '--keys', 'k1,k2=read', '--seed', '7'], async (url) => {
      const response = await fetch(`${url}/v3/glossaries`, { headers: { Authorization: 'Service-Auth-Key k1' } });
      status = response.status;
      body = await response.json();
      const denied = await fetch(`${url}/v3/glossaries`, { headers: { Authorization: 'Service-Auth-Key nope' } });
      expect(denied.status).toBe(401);
    });
    expect(run.code).toBe(0);
    expect(status).toBe(200);
    expect(body).toEqual({ glossaries: [] });
    expect(run.stdout).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\n/);
    expect(run.stdout).toContain('curl');
    expect(run.stdout).toContain('/__emulator/requests');
    // With --keys the suggested curl reads the key from the variable, never from the banner.
    expect(run.stdout).toContain('curl -H "Authorization: Service-Auth-Key $TERMSYNC_API_KEY"');
    expect(run.stdout).not.toContain('any-key');
    expect(run.stdout).not.toContain('any non-empty key');
  });

  it('never prints the keys given to --keys; any-key only without --keys', async () => {
    const secrets = ['emu-secret-rw-8c2f1d', 'emu-secret-ro-41aa0e'];
    const withKeys = await runEmulatorCommand(['--port', '0', '--keys', `${secrets[1]}=read,${secrets[0]}`], async () => {});
    for (const secret of secrets) expect(withKeys.stdout + withKeys.stderr).not.toContain(secret);
    expect(withKeys.stdout).toContain('Only the keys given with --keys are accepted (not shown here): set TERMSYNC_API_KEY to one of them');
    const open = await runEmulatorCommand(['--port', '0'], async () => {});
    expect(open.stdout).toContain('Service-Auth-Key any-key"');
    expect(open.stdout).toContain('Without --keys any non-empty key is accepted');
  });

  it('rejects a bad fault spec with exit 3 and a clear message', async () => {
    const run = await runCliCaptured(['emulator', '--port', '0', '--faults', '429=2']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/expected a rate from 0 to 1 for "429", got "2"/);
  });

  it('rejects a port out of range with exit 3', async () => {
    const run = await runCliCaptured(['emulator', '--port', '70000']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/--port to be an integer from 0 to 65535, got "70000"/);
  });

  it('reports a port already in use plainly with exit 3', async () => {
    const busy = await startEmulator({ port: 0 });
    try {
      const port = new URL(busy.url).port;
      const run = await runCliCaptured(['emulator', '--port', port]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await busy.close();
    }
  });

  it('rejects a bad rate limit and a bad key scope with exit 3', async () => {
    expect((await runCliCaptured(['emulator', '--port', '0', '--rate-limit', '0'])).code).toBe(3);
    const scoped = await runCliCaptured(['emulator', '--port', '0', '--keys', 'k=admin']);
    expect(scoped.code).toBe(3);
    expect(scoped.stderr).toMatch(/key scope "admin"/);
  });
});
