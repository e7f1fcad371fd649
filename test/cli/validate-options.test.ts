/**
 * `termsync validate` with only its own options runs without commander (validate-options.ts): the
 * options it reads must be exactly those commander gives the command's action, and every other
 * command line must be left to commander.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertyTimeout, runs } from '../helpers/properties.js';
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
  // Commander checks every occurrence's choice, not only the last one's.
  ['--format', 'xml', '--format', 'json'],
  ['--log-level=verbose', '--log-level', 'warn'],
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
    for (const args of [['--format', 'xml'], ['--dir'], ['extra'], ['--help'], ['--format', 'xml', '--format', 'json']]) {
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

/*
 * A corpus of validate command lines: every validate option and every option of the other commands,
 * in the forms `--opt value`, `--opt=value` and `--opt` (a value missing), with values that are
 * valid, invalid, empty, option-like or `--`, repeated and mixed with `--`, `-h`, `--help`, `-V`,
 * `--version`, `-`, arguments and command names. Whenever the plain parser accepts a command line,
 * commander must give validate's action the very same options; and bin/termsync.js's build of the
 * plain parser (dist/bundle/validate-options.cjs, `npm test` builds first) must answer as the source.
 */
const VALIDATE_FLAGS = ['--dir', '--config', '--target', '--log-level', '--format'];

/** Every long option and short flag of the other commands and the program (read from commander itself). */
async function otherFlags(): Promise<string[]> {
  const ctx: CommandContext = { io: { stdout: () => undefined, stderr: () => undefined, env: {}, cwd: ROOT, signal: new AbortController().signal }, setExitCode: () => undefined };
  const program = await createProgram(ctx, []);
  const flags = new Set<string>();
  for (const command of [program, ...program.commands]) {
    for (const option of command.options) {
      for (const flag of [option.long, option.short]) if (flag !== undefined && !VALIDATE_FLAGS.includes(flag)) flags.add(flag);
    }
  }
  return [...flags];
}

const VALUES = ['.', 'examples', 'a b', 'ü', '', '-', '-x', '-1', '--', '--help', '-h', '--dir', 'a=b', '=', 'json', 'text', 'github', 'xml', 'JSON', 'warn', 'silent', 'trace', 'verbose', 'default', 'validate'];
const LONE = ['--', '-h', '--help', '-V', '--version', '-', '', 'extra', 'validate', 'plan', '-d', '--no-dir', '--dirr', '---dir', '--Dir', '--__proto__', '--constructor', '-hx'];

/** The command lines of one option in each of its forms, every value. */
function forms(flag: string): string[][] {
  return [[flag], ...VALUES.flatMap((value) => [[flag, value], [`${flag}=${value}`]])];
}

const plainBuilt = (): ((args: readonly string[]) => CommonOptions | undefined) =>
  (createRequire(import.meta.url)(path.join(ROOT, 'dist', 'bundle', 'validate-options.cjs')) as { plainValidateOptions: (args: readonly string[]) => CommonOptions | undefined }).plainValidateOptions;

describe('the plain validate parser and commander agree on a corpus of validate command lines', () => {
  /** Checks one command line; true when the plain parser accepted it. */
  const agree = async (args: readonly string[], built: (args: readonly string[]) => CommonOptions | undefined): Promise<boolean> => {
    const plain = plainValidateOptions(args);
    expect(built(args), JSON.stringify(args)).toEqual(plain);
    if (plain === undefined) return false;
    expect(await commanderOptions(args), JSON.stringify(args)).toEqual(plain);
    return true;
  };

  it('every option alone and each pair of validate options, in every form, every value', async () => {
    const built = plainBuilt();
    const others = await otherFlags();
    expect(others).toEqual(expect.arrayContaining(['--out', '--detailed-exitcode', '--check', '--no-verify', '--port', '-V', '--version']) as unknown);
    let accepted = 0;
    let lines = 0;
    const singles = [...[...VALIDATE_FLAGS, ...others].flatMap(forms), ...LONE.map((token) => [token])];
    for (const args of singles) {
      lines++;
      if (await agree(args, built)) accepted++;
    }
    for (const a of VALIDATE_FLAGS) {
      for (const b of VALIDATE_FLAGS) {
        for (const first of forms(a)) {
          for (const second of [...forms(b).filter((_, i) => i % 5 === 0), ...LONE.map((token) => [token])]) {
            lines++;
            if (await agree([...first, ...second], built)) accepted++;
          }
        }
      }
    }
    // The corpus is not vacuous: it holds many command lines of each kind.
    expect(accepted).toBeGreaterThan(500);
    expect(lines - accepted).toBeGreaterThan(500);
  }, 120_000);

  it('random command lines of up to six options and tokens (any command\'s options, values, `--`, help, arguments)', async () => {
    const built = plainBuilt();
    const others = await otherFlags();
    const flag = fc.constantFrom(...VALIDATE_FLAGS, ...VALIDATE_FLAGS, ...others);
    const value = fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 4 }));
    const item = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(flag, value).map(([f, v]) => [f, v]) },
      { weight: 3, arbitrary: fc.tuple(flag, value).map(([f, v]) => [`${f}=${v}`]) },
      { weight: 1, arbitrary: flag.map((f) => [f]) },
      { weight: 1, arbitrary: fc.constantFrom(...LONE).map((t) => [t]) },
    );
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 6 }), async (items) => {
        if (await agree(items.flat(), built)) accepted++;
      }),
      { numRuns: runs(3000) },
    );
    expect(accepted).toBeGreaterThan(100);
  }, propertyTimeout(120_000));
});
