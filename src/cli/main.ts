import { Command, CommanderError } from 'commander';
import { isTermsyncError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { CliIo, CommandContext } from './io.js';
import { registerEmulator } from './commands/emulator.js';
import { registerValidate } from './commands/validate.js';
import { registerPlan } from './commands/plan.js';
import { registerApply } from './commands/apply.js';
import { registerImport } from './commands/import.js';
import { registerWatch } from './commands/watch.js';

export const VERSION = '0.1.0';

function createProgram(ctx: CommandContext): Command {
  const program = new Command('termsync')
    .description('GitOps for terminology: keep glossaries and style rules on the service equal to this repository')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => ctx.io.stdout(s),
      writeErr: (s) => ctx.io.stderr(s),
    });
  for (const register of [registerValidate, registerPlan, registerApply, registerImport, registerWatch, registerEmulator]) {
    const sub = register(program, ctx);
    sub.exitOverride().configureOutput({ writeOut: (s) => ctx.io.stdout(s), writeErr: (s) => ctx.io.stderr(s) });
  }
  return program;
}

/**
 * Runs one CLI invocation and returns its exit code. The only place that maps errors to exit codes:
 * a TermsyncError carries its own; anything else is a bug (exit 1, said plainly, no stack trace
 * unless TERMSYNC_DEBUG is set).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const ctx: CommandContext = {
    io,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  const program = createProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; usage errors are invalid input.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput;
    }
    if (isTermsyncError(error)) {
      io.stderr(`Error: ${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`Internal error (a bug in termsync, please report it): ${message}\n`);
    if (io.env['TERMSYNC_DEBUG'] && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    return ExitCode.internal;
  }
}
