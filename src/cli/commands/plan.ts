import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { readIdsFile } from '../read-ids-file.js';
import { readChangedFiles } from '../../config/read-changed-files.js';
import { displayText } from '../../lib/display.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Plan } from '../../model/plan.js';
import { planOf, reconcile, type RefreshRequest } from '../../reconcile/index.js';
import { escapeHtml, escapeMarkdown, renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../report/index.js';
import { addCommonOptions } from '../common-options.js';
import { runExitCode } from '../exit-code-of.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { checkOutputFile, shownPath, writeOutputFile } from '../output-files.js';
import {
  configPathOf,
  createCliLogger,
  logFormatFor,
  printDiagnostics,
  printTargetOutcome,
  repositoryDir,
  runProblem,
  serviceContext,
  withNewline,
} from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
import { errorLine } from '../report-error.js';

interface PlanOptions extends CommonOptions {
  readonly format: 'text' | 'markdown' | 'json';
  readonly out?: string;
  readonly detailedExitcode?: boolean;
  readonly refresh: 'all' | 'changed';
  readonly base?: string;
  readonly ids?: string;
}

/**
 * `--refresh changed --base REF`: the entries of only the resources whose files differ from REF
 * (the pull request's base) are re-read; the listings always are.
 */
async function refreshRequest(ctx: CommandContext, options: PlanOptions): Promise<RefreshRequest> {
  if (options.refresh === 'all') {
    if (options.base !== undefined) throw new InputError('base_needs_refresh_changed', '--base names what changed, for --refresh changed; with --refresh all everything is re-read');
    return { kind: 'all' };
  }
  if (options.base === undefined) {
    throw new InputError('refresh_changed_needs_base', '--refresh changed needs --base REF, the commit to compare with (a pull request\'s base, e.g. origin/main)');
  }
  const files = await readChangedFiles(repositoryDir(ctx.io, options), options.base, { env: ctx.io.env, signal: ctx.io.signal });
  return { kind: 'changed', files };
}

export function renderPlan(plan: Plan, format: PlanOptions['format']): string {
  return withNewline(format === 'json' ? renderPlanJson(plan) : format === 'markdown' ? renderPlanMarkdown(plan) : renderPlanText(plan));
}

async function runPlan(ctx: CommandContext, options: PlanOptions): Promise<number> {
  const { io } = ctx;
  const logger = createCliLogger(io, options.logLevel, logFormatFor(options.format));
  // A pull-request comment escapes names and terms its own way: the key is found in that form too.
  if (options.format === 'markdown') io.keys?.addEncoding(escapeMarkdown, escapeHtml);
  let multi = false;
  const refresh = await refreshRequest(ctx, options);
  // Where the plan goes is checked before anything is sent.
  const outPath = options.out === undefined ? undefined : resolve(io.cwd, options.out);
  if (outPath !== undefined) await checkOutputFile(outPath, '--out', io.cwd, repositoryDir(io, options));
  const keepIds = options.ids === undefined ? undefined : await readIdsFile(resolve(io.cwd, options.ids), { missingOk: false });
  const run = await reconcile(
    {
      dir: repositoryDir(io, options),
      ...configPathOf(io, options),
      mode: 'plan',
      refresh,
      // Entry hashes are for a plan that is saved or read by a program; text and markdown never show them.
      entryHashes: options.format === 'json' || options.out !== undefined,
      ...(options.target === undefined ? {} : { target: options.target }),
      ...(keepIds === undefined ? {} : { keepIds }),
      // A saved plan is meant to be applied: hold the lock so no other run changes the service meanwhile.
      lock: options.out !== undefined,
      checkTargets: (targets) => {
        multi = targets.length > 1;
        if (options.out !== undefined && multi) {
          return new InputError('out_needs_target', `--out saves the plan of one target; choose one with --target (${targets.map((t) => t.name).join(', ')})`);
        }
        return undefined;
      },
    },
    serviceContext(io, logger),
    {
      loaded: (diagnostics) => printDiagnostics(io, diagnostics, options.dir),
      planned: (target, plan) => {
        if (multi && options.format !== 'json') io.stdout(`Target "${displayText(target)}":\n`);
        io.stdout(renderPlan(plan, options.format));
      },
      finished: (outcome) => printTargetOutcome(io, outcome, { multi }),
    },
  );
  const problem = runProblem(run);
  if (problem !== undefined) io.stderr(problem);
  const plan = run.kind === 'done' && run.targets[0] !== undefined ? planOf(run.targets[0]) : undefined;
  const code = runExitCode(run, { detailedExitcode: options.detailedExitcode === true });
  if (outPath !== undefined && plan !== undefined) {
    try {
      await writeOutputFile(outPath, withNewline(renderPlanJson(plan)), repositoryDir(io, options));
    } catch (error) {
      io.stderr(errorLine(`the plan could not be saved to ${shownPath(outPath, io.cwd)} (${(error as Error).message}); nothing was changed on the service`));
      return Math.max(code, ExitCode.invalidInput);
    }
  }
  return code;
}

export function registerPlan(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(withHelpFooter(program.command('plan'), { service: true, env: [['GIT_*', "git's own variables (GIT_CONFIG_COUNT …) reach the git that --refresh changed runs"]], exits: [0, [2, 'with --detailed-exitcode: changes are present'], 3, 4, 7, 130] }).description('show what apply would change on the service, and why'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--out <file>', 'save the plan as JSON, for `apply FILE`')
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none')
    .addOption(
      new Option('--refresh <scope>', 'which entries to re-read: all, or changed (only the resources whose files differ from --base)').choices(['all', 'changed']).default('all'),
    )
    .option('--base <ref>', 'with --refresh changed: the commit to compare the working tree with (a pull request\'s base)')
    .option('--ids <file>', 'the ids file of the last `apply --ids-out`: among live duplicates of a declared name, the one it names is kept')
    .action(async (options: PlanOptions) => {
      ctx.setExitCode(await runPlan(ctx, options));
    });
}
