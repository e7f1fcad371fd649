import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const scratch = await mkdtemp(join(tmpdir(), 'termsync-ui-token-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('watch --ui-token-file: the token is read at each dashboard request', () => {
  it('a rotated token is the one the dashboard asks for, without a restart; a file made unusable refuses every request', async () => {
    const repo = join(scratch, 'repo');
    await cp(join(ROOT, 'config'), join(repo, 'config'), { recursive: true });
    await cp(join(ROOT, 'glossaries'), join(repo, 'glossaries'), { recursive: true });
    const tokenFile = join(scratch, 'ui-token');
    const first = 'first-dashboard-token-0123456789';
    const second = 'second-dashboard-token-987654321';
    await writeFile(tokenFile, `${first}\n`);
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TERMSYNC_')));
    const args = ['watch', '--dir', repo, '--listen', '127.0.0.1:0', '--emulator', 'auto', '--no-verify', '--ui-token-file', tokenFile];
    const daemon = spawn(process.execPath, [join(ROOT, 'bin', 'termsync.js'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    daemon.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    daemon.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const base = await until('the endpoints', () => /serving .* on (http:\/\/[\d.]+:\d+)/.exec(log)?.[1], { timeoutMs: 30_000, everyMs: 50, context: () => log });
      const status = async (token: string): Promise<number> => (await fetch(`${base}/`, { headers: { authorization: `Bearer ${token}` } })).status;
      expect(await status(first)).toBe(200);
      expect(await status(second)).toBe(401);

      await writeFile(tokenFile, `${second}\n`);
      expect(await status(second)).toBe(200);
      expect(await status(first)).toBe(401);

      // A file emptied (a rotation half done) lets no request in, and says why without a token.
      await writeFile(tokenFile, '');
      const refused = await fetch(`${base}/`, { headers: { authorization: `Bearer ${second}` } });
      expect(refused.status).not.toBe(200);
      const text = await refused.text();
      expect(text).toContain('--ui-token-file');
      expect(text).not.toContain(second);
      // /healthz needs no token and is not touched by the file.
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect(daemon.exitCode).toBeNull();
      // Neither token was ever written to the log.
      expect(log).not.toContain(first);
      expect(log).not.toContain(second);
    } finally {
      daemon.kill('SIGTERM');
      await new Promise((r) => (daemon.exitCode === null ? daemon.once('exit', r) : r(undefined)));
    }
  }, 60_000);
});
