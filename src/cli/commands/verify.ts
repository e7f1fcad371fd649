import { Option, type Command } from 'commander';
import { ExitCode } from '../../lib/exit-codes.js';
import { loadDesired, selectTargets } from '../../reconcile/index.js';
import { addCommonOptions } from '../common-options.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { configPathOf, createCliLogger, logFormatFor, printDiagnostics, repositoryDir, runProblem } from '../print-outcome.js';
import { runVerifyTargets, wholeNumber, type VerifyOptions } from '../print-verify.js';
import { withHelpFooter } from '../help-text.js';

interface VerifyCommandOptions extends CommonOptions, VerifyOptions {
  readonly format: 'text' | 'json';
}

async function runVerify(ctx: CommandContext, options: VerifyCommandOptions): Promise<number> {
  const { io } = ctx;
  const { desired, diagnostics } = await loadDesired(repositoryDir(io, options), configPathOf(io, options).configPath, io.signal);
  printDiagnostics(io, diagnostics, options.dir);
  if (desired === undefined) {
    io.stderr(runProblem({ kind: 'invalid', diagnostics }) ?? '');
    return ExitCode.invalidInput;
  }
  return runVerifyTargets(io, createCliLogger(io, options.logLevel, logFormatFor(options.format)), desired, selectTargets(desired, options.target), options);
}

/** The options `verify` and `apply --verify` share. */
export function addVerifyOptions(command: Command): Command {
  return command
    .option('--sample <n>', 'also translate N entries of each dictionary alone (a seeded choice); each must give its target (default: verify.sample)', wholeNumber('--sample', 0, 10_000))
    .option('--seed <n>', 'seed of the sample (default: verify.seed)', wholeNumber('--seed', -2_147_483_648, 2_147_483_647))
    .option('--max-characters <n>', 'characters one run may send to one target; a run over it sends nothing (default: verify.max_characters)', wholeNumber('--max-characters', 0, 1_000_000_000));
}

export function registerVerify(program: Command, ctx: CommandContext): Command {
  return addVerifyOptions(
    addCommonOptions(withHelpFooter(program.command('verify'), { service: true, exits: [0, 3, [4, 'over the character limit (verify.max_characters): nothing was sent'], 7, 8, 130] }).description("prove the glossaries work: translate each glossary's tests (and a sample of entries) with its live id")),
  )
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .action(async (options: VerifyCommandOptions) => {
      ctx.setExitCode(await runVerify(ctx, options));
    });
}
