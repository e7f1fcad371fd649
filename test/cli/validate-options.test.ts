/**
 * `termsync validate` with only its own options runs without commander (validate-options.ts): the
 * options it reads must be exactly those commander gives the command's action, and every other
 * command line must be left to commander.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/main.js';
import type { CommandContext, CommonOptions } from '../../src/cli/io.js';
import { plainValidateOptions } from '../../src/cli/validate-options.js';
import { runCliCaptured } from './run-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What commander gives validate's action for `validate <args>`, or 'refused' when it ends the run (usage error, help). */
async function commanderOptions(args: readonly string[]): Promise<CommonOptions | 'refused'> {
  const ctx: CommandContext = { io: { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: ROOT, signal: new AbortController().signal }, setExitCode: () => undefined };
  const argv = ['validate', ...args];
  const program = await createProgram(ctx, argv);
  let seen: CommonOptions | undefined;
  const validate = program.commands.find((c) => c.name() === 'validate');
  validate?.action((options: CommonOptions) => {
    seen = { ...options };
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch {
    return 'refused';
  }
  return seen ?? 'refused';
}

const READ_ALIKE: readonly (readonly string[])[] = [
  [],
  ['--dir', '.'],
  ['--dir=examples'],
  ['--dir', ''],
  ['--dir='],
  ['--dir', 'a b', '--format', 'json'],
  ['--format=github', '--dir', 'x'],
  ['--dir', 'one', '--dir', 'two'],
  ['--format', 'json', '--format', 'text'],
  ['--config', 'config/termsync.yaml'],
  ['--config=other.yaml', '--target', 'default'],
  ['--log-level', 'silent'],
  ['--log-level=trace', '--format', 'github', '--target=t', '--config', 'c.yaml', '--dir', 'd'],
  ['--dir=a=b'],
  ['--dir=-x'],
];

const LEFT_TO_COMMANDER: readonly (readonly string[])[] = [
  ['--help'],
  ['-h'],
  ['--dir'],
  ['--dir', '--format', 'json'],
  ['--dir', '-x'],
  ['--format', 'xml'],
  ['--format', 'JSON'],
  ['--log-level', 'verbose'],
  ['--unknown'],
  ['--dirr', '.'],
  ['-d', '.'],
  ['extra'],
  ['--dir', '.', 'extra'],
  ['--', '--dir', '.'],
  ['--dir', '.', '--'],
  ['--no-dir'],
  ['--version'],
];

describe('validate without commander', () => {
  it('reads exactly the options commander gives the action, defaults included', async () => {
    for (const args of READ_ALIKE) {
      const plain = plainValidateOptions(args);
      expect(plain, args.join(' ')).toBeDefined();
      expect(plain, args.join(' ')).toEqual(await commanderOptions(args));
    }
  });

  it('leaves every other command line to commander', () => {
    for (const args of LEFT_TO_COMMANDER) expect(plainValidateOptions(args), args.join(' ')).toBeUndefined();
  });

  it('answers a refused command line as commander does', async () => {
    for (const args of [['--format', 'xml'], ['--dir'], ['extra'], ['--help']]) {
      const run = await runCliCaptured(['validate', ...args], { cwd: ROOT });
      expect(await commanderOptions(args), args.join(' ')).toBe('refused');
      expect(run.code === 0 ? run.stdout : run.stderr, args.join(' ')).not.toBe('');
    }
  });

  it('validates the example the same way with options in either form', async () => {
    const plain = await runCliCaptured(['validate', '--dir', ROOT, '--format', 'json'], { cwd: ROOT });
    const written = await runCliCaptured(['validate', `--dir=${ROOT}`, '--format=json', '--log-level', 'error'], { cwd: ROOT });
    expect(written).toEqual(plain);
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ errors: 0, warnings: 0 });
  });
});
