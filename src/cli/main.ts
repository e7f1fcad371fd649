import type { Command } from 'commander';
import { ExitCode } from '../lib/exit-codes.js';
import { KeyRedactor } from '../lib/redact-keys.js';
import type { CliIo, CommandContext } from './io.js';
import { invocationOf } from './invocation.js';
import { reportError } from './report-error.js';
import { plainValidateOptions } from './validate-options.js';

import { VERSION } from './version.js';

export { VERSION };

type Register = (program: Command, ctx: CommandContext) => Command;

/**
 * The commands, in help order, each imported only when needed: `validate` does not pay for the HTTP
 * client, the planner or the emulator (about 200 ms of module loading on every run).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  init: async () => (await import('./commands/init.js')).registerInit,
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  plan: async () => (await import('./commands/plan.js')).registerPlan,
  apply: async () => (await import('./commands/apply.js')).registerApply,
  import: async () => (await import('./commands/import.js')).registerImport,
  verify: async () => (await import('./commands/verify.js')).registerVerify,
  pull: async () => (await import('./commands/pull.js')).registerPull,
  watch: async () => (await import('./commands/watch.js')).registerWatch,
  emulator: async () => (await import('./commands/emulator.js')).registerEmulator,
};

/**
 * The commands to register: the one named first on the command line, or all of them (help, an
 * unknown name, or an option before the name, as in `termsync --help validate`).
 */
function commandsFor(argv: readonly string[]): string[] {
  const name = argv[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? [name] : Object.keys(COMMANDS);
}

/**
 * The commander program with the commands `argv` needs. Also used to check command lines written
 * elsewhere (the CI examples) without running them.
 */
export async function createProgram(ctx: CommandContext, argv: readonly string[]): Promise<Command> {
  const { Command } = await import('commander');
  const program = new Command('termsync')
    .description('GitOps for terminology: keep glossaries and style rules on the service equal to this repository')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout(s),
      writeErr: (s) => ctx.io.stderr(s),
    });
  const registers = await Promise.all(commandsFor(argv).map((name) => (COMMANDS[name] as () => Promise<Register>)()));
  for (const register of registers) {
    const sub = register(program, ctx);
    sub.exitOverride().configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  }
  return program;
}

/**
 * What a bare `termsync` adds to the help: the first three commands to try, as typed where the user
 * is. It asked what termsync does, as `--help` does, so it ends with 0 (see the contract).
 */
function firstSteps(termsync: string): string {
  const steps: [string, string][] = [
    [`${termsync} init --dir terminology`, 'start a repository: a commented config and an example glossary'],
    [`${termsync} validate --dir terminology`, 'check it offline'],
    [`${termsync} plan --dir terminology`, 'what apply would change on the service (TERMSYNC_BASE_URL, TERMSYNC_API_KEY)'],
  ];
  const width = Math.max(...steps.map(([command]) => command.length)) + 2;
  return `First steps:\n${steps.map(([command, what]) => `  ${command.padEnd(width)}# ${what}\n`).join('')}\nNo service yet? \`${termsync} emulator\` serves one on this machine. \`${termsync} <command> --help\` says more.\n`;
}

/**
 * Runs one CLI invocation and returns its exit code. Errors are said and mapped to exit codes by
 * reportError (the table: exit-code-of.ts); anything else is a bug (exit 1, said plainly, no stack
 * trace unless TERMSYNC_DEBUG is set).
 */
export async function runCli(argv: readonly string[], given: CliIo): Promise<number> {
  // `--version` alone is answered before any library is loaded (it runs in every CI job's set-up).
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    given.stdout(`${VERSION}\n`);
    return ExitCode.ok;
  }
  // Every key the run reads is taken out of all it prints (plans, reports, messages, log lines):
  // here, where text leaves the run, and never from the data it compares, sends or writes.
  const keys = given.keys ?? new KeyRedactor();
  const io: CliIo = { ...given, keys, stdout: (text) => given.stdout(keys.redact(text)), stderr: (text) => given.stderr(keys.redact(text)) };
  let exitCode: number = ExitCode.ok;
  const ctx: CommandContext = {
    io,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  try {
    // `validate` with only its own options (the run CI jobs make most) needs no command-line
    // library; it maps its own errors (plain-validate.ts).
    const plainValidate = argv[0] === 'validate' ? plainValidateOptions(argv.slice(1)) : undefined;
    if (plainValidate !== undefined) return await (await import('./plain-validate.js')).runPlainValidate(plainValidate, io);
    const program = await createProgram(ctx, argv);
    if (argv.length === 0) {
      io.stdout(`${program.helpInformation()}\n${firstSteps(invocationOf(io.script, io.cwd, io.env))}`);
      return ExitCode.ok;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    const { CommanderError } = await import('commander');
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; usage errors are invalid input.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput;
    }
    return reportError(error, io);
  }
}
