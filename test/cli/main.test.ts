import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

describe('termsync CLI', () => {
  it('prints help listing every command of the contract and exits 0', async () => {
    const run = await runCliCaptured(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['validate', 'plan', 'apply', 'import', 'watch', 'emulator']) {
      expect(run.stdout).toContain(command);
    }
  });

  it('treats an unknown command as invalid input (exit 3)', async () => {
    const run = await runCliCaptured(['frobnicate']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/unknown command/);
  });
});
