import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

/** A token file in a folder of its own. */
function tokenFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'termsync-token-')), 'token');
  writeFileSync(file, text);
  return file;
}

describe('watch: expected conditions are exit 3 with a message, never 1', () => {
  it.each([
    [['--schedule', 'bad'], 'expected --schedule to be a cron expression of 5 or 6 fields (e.g. "*/15 * * * *"), got "bad"'],
    [['--git-pull', '5x'], 'expected --git-pull to be a duration'],
    [['--listen', '127.0.0.1:99999'], 'expected --listen to be HOST:PORT'],
    [['--ui-token-file', '/nonexistent-termsync-token'], 'cannot read --ui-token-file /nonexistent-termsync-token (ENOENT)'],
    [['--ui-token-file', tokenFile('short-secret\n')], 'to hold one token of at least 16 characters without spaces (e.g. `openssl rand -hex 32`), got 12 characters'],
    [['--ui-token-file', tokenFile('a token with spaces in it\n')], 'got 25 characters with spaces or line breaks'],
  ])('%o', async (args, message) => {
    const controller = new AbortController();
    // Should it start anyway, the test stops it rather than hang.
    const timer = setTimeout(() => controller.abort(), 10_000);
    const run = await runCliCaptured(['watch', '--listen', '127.0.0.1:0', ...args, '--dir', '/nonexistent-termsync-repo'], { signal: controller.signal });
    clearTimeout(timer);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('Internal error');
    // A token is never shown, not even one refused.
    expect(run.stderr).not.toMatch(/short-secret|a token with spaces/);
  });
});
