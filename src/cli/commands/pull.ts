import type { Command } from 'commander';
import { displayText } from '../../lib/display.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { hasDrift } from '../../model/drift.js';
import { loadDesired, pullTarget, selectTargets, type PullOutcome } from '../../reconcile/index.js';
import { unwritableLines } from '../../pull/index.js';
import { renderDriftText } from '../../report/index.js';
import { addCommonOptions } from '../common-options.js';
import { pullExitCode } from '../exit-code-of.js';
import type { CliIo, CommandContext, CommonOptions } from '../io.js';
import { configPathOf, createCliLogger, printDiagnostics, printTargetOutcome, repositoryDir, runProblem, serviceContext } from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
import { errorLine } from '../report-error.js';

interface PullOptions extends CommonOptions {
  readonly check?: boolean;
}

function printPulled(io: CliIo, outcome: PullOutcome): void {
  switch (outcome.kind) {
    case 'checked':
      io.stdout(renderDriftText(outcome.drift));
      if (hasDrift(outcome.drift)) io.stdout('Run `termsync pull` to write these edits into the repository, or `termsync apply` to overwrite them.\n');
      return;
    case 'pulled':
      io.stdout(renderDriftText(outcome.drift, outcome.notes));
      if (outcome.written.length > 0) io.stdout(`\nWrote ${outcome.written.length} file${outcome.written.length === 1 ? '' : 's'}:\n${outcome.written.map((f) => `  ${displayText(f)}\n`).join('')}`);
      if (outcome.remaining.length > 0) {
        io.stderr(`Warning: pull could not write everything back; a plan would still change: ${displayText(outcome.remaining.join(', '))}\n`);
      } else if (outcome.written.length > 0) io.stdout('Pull complete: the next plan shows no changes for what was pulled. Review the files and commit them.\n');
      return;
    case 'locked':
      io.stderr(errorLine(outcome.error.message));
      return;
    case 'unwritable':
      io.stderr(`${errorLine(outcome.error.message)}${unwritableLines(outcome.problems ?? []).map((l) => `${l}\n`).join('')}`);
      return;
    default:
      printTargetOutcome(io, outcome, { multi: false });
  }
}

async function runPull(ctx: CommandContext, options: PullOptions): Promise<number> {
  const { io } = ctx;
  const check = options.check === true;
  const { desired, diagnostics } = await loadDesired(repositoryDir(io, options), configPathOf(io, options).configPath, io.signal);
  printDiagnostics(io, diagnostics, options.dir);
  if (desired === undefined) {
    io.stderr(runProblem({ kind: 'invalid', diagnostics }) ?? '');
    return ExitCode.invalidInput;
  }
  const targets = selectTargets(desired, options.target);
  if (!check && targets.length > 1) {
    throw new InputError('pull_needs_target', `pull writes the state of one target into the files; choose one with --target (${targets.map((t) => t.name).join(', ')})`);
  }
  const logger = createCliLogger(io, options.logLevel);
  let code: number = ExitCode.ok;
  for (const target of targets) {
    if (targets.length > 1) io.stdout(`Target "${displayText(target.name)}":\n`);
    const outcome = await pullTarget({ desired, target, check }, serviceContext(io, logger));
    printPulled(io, outcome);
    code = Math.max(code, pullExitCode(outcome));
  }
  return code;
}

export function registerPull(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(withHelpFooter(program.command('pull'), { service: true, exits: [0, [2, 'with --check: the service holds edits the repository lacks'], 3, [5, 'another termsync run holds the lock (.termsync.lock): nothing was written'], 7, 130] }).description('adopt edits made on the service: rewrite the repository files so that the next plan shows no changes'))
    .option('--check', 'write nothing: report the drift and exit 2 when the service holds edits the repository lacks')
    .action(async (options: PullOptions) => {
      ctx.setExitCode(await runPull(ctx, options));
    });
}
