import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

// A bench script asked for --help prints the comment at its head (its usage line among it) and
// exits, instead of starting a run: `bench/run.js` alone takes about half an hour and starts
// emulators.
describe('bench scripts: --help', () => {
  it.each([
    ['bench/run.js', '--help', 'node bench/run.js [--quick]'],
    ['bench/floor-many.js', '-h', 'node bench/floor-many.js'],
    ['bench/many-targets.js', '--help', 'node bench/many-targets.js'],
    ['bench/plan-gc.js', '--help', 'node bench/plan-gc.js'],
  ])('%s %s prints its usage and exits 0', async (script, flag, usage) => {
    const { stdout, stderr } = await run(process.execPath, [script, flag], { timeout: 20_000 });
    expect(stdout).toContain(usage);
    expect(stdout.startsWith('#!')).toBe(false);
    expect(stdout).not.toMatch(/^\/\//m);
    expect(stderr).toBe('');
  });
});
