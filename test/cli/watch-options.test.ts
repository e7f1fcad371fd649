import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

describe('watch: expected conditions are exit 3 with a message, never 1', () => {
  it.each([
    [['--schedule', 'bad'], 'expected --schedule to be a cron expression of 5 or 6 fields (e.g. "*/15 * * * *"), got "bad"'],
    [['--git-pull', '5x'], 'expected --git-pull to be a duration'],
    [['--listen', '127.0.0.1:99999'], 'expected --listen to be HOST:PORT'],
  ])('%o', async (args, message) => {
    const controller = new AbortController();
    // Should it start anyway, the test stops it rather than hang.
    const timer = setTimeout(() => controller.abort(), 10_000);
    const run = await runCliCaptured(['watch', '--listen', '127.0.0.1:0', ...args, '--dir', '/nonexistent-termsync-repo'], { signal: controller.signal });
    clearTimeout(timer);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('Internal error');
  });
});
