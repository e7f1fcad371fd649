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

  it('with no command: the help and the first three commands to try, no error, exit 0', async () => {
    const run = await runCliCaptured([]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: termsync \[options\] \[command\]\n/);
    const steps = run.stdout.slice(run.stdout.indexOf('\nFirst steps:\n')).split('\n').slice(2, 5);
    expect(steps.map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(['termsync init', 'termsync validate', 'termsync plan']);
    expect(run.stdout).toContain('No service yet? `termsync emulator` serves one on this machine.');
  });

  it('treats an unknown command as invalid input (exit 3)', async () => {
    const run = await runCliCaptured(['frobnicate']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/unknown command/);
  });

  it('suggests the command meant by a misspelt name (all commands are known then)', async () => {
    const run = await runCliCaptured(['valdate']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Did you mean validate\?/);
  });

  it('lists every command with an option before the command name (`--help validate`)', async () => {
    const run = await runCliCaptured(['--help', 'validate']);
    expect(run.code).toBe(0);
    for (const command of ['validate', 'plan', 'apply', 'import', 'watch', 'emulator']) expect(run.stdout).toContain(command);
  });

  it('shows the help of one command, with `help <command>` and `<command> --help`', async () => {
    for (const argv of [['help', 'plan'], ['plan', '--help']]) {
      const run = await runCliCaptured(argv);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: termsync plan \[options\]/);
      expect(run.stdout).toContain('--detailed-exitcode');
    }
  });
});
