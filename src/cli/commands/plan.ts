import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { acquireLock } from '../../apply/lock.js';
import { InputError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { Plan } from '../../model/plan.js';
import { renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../report/index.js';
import { addCommonOptions } from '../common-options.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { createCliLogger, loadDesiredOrFail, repositoryDir, selectTargets } from '../load-target.js';
import { fetchAndPlan, forEachTarget, withNewline } from '../plan-target.js';

interface PlanOptions extends CommonOptions {
  readonly format: 'text' | 'markdown' | 'json';
  readonly out?: string;
  readonly detailedExitcode?: boolean;
}

export function renderPlan(plan: Plan, format: PlanOptions['format']): string {
  return withNewline(format === 'json' ? renderPlanJson(plan) : format === 'markdown' ? renderPlanMarkdown(plan) : renderPlanText(plan));
}

/** Exit code of a plan: 4 when a guard blocks it, 2 (when asked) when it changes anything. */
export function planExitCode(plan: Plan, detailed: boolean): number {
  if (plan.guards.length > 0) return ExitCode.guardBlocked;
  return detailed && plan.operations.length > 0 ? ExitCode.changesPresent : ExitCode.ok;
}

async function runPlan(ctx: CommandContext, options: PlanOptions): Promise<number> {
  const { io } = ctx;
  const desired = await loadDesiredOrFail(io, options);
  const targets = selectTargets(desired, options.target);
  if (options.out !== undefined && targets.length > 1) {
    throw new InputError('out_needs_target', `--out saves the plan of one target; choose one with --target (${targets.map((t) => t.name).join(', ')})`);
  }
  const logger = createCliLogger(io, options.logLevel);
  // A saved plan is meant to be applied: hold the lock so no other run changes the service meanwhile.
  const lock = options.out === undefined ? undefined : await acquireLock(repositoryDir(io, options));
  try {
    return await forEachTarget(io, desired, targets, logger, async (client, target) => {
      const { plan } = await fetchAndPlan(client, desired, target);
      if (targets.length > 1 && options.format !== 'json') io.stdout(`Target "${target.name}":\n`);
      io.stdout(renderPlan(plan, options.format));
      if (options.out !== undefined) await writeFile(resolve(io.cwd, options.out), withNewline(renderPlanJson(plan)));
      return planExitCode(plan, options.detailedExitcode === true);
    });
  } finally {
    await lock?.release();
  }
}

export function registerPlan(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(program.command('plan').description('show what apply would change on the service, and why'))
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--out <file>', 'save the plan as JSON, for `apply FILE`')
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none')
    .action(async (options: PlanOptions) => {
      ctx.setExitCode(await runPlan(ctx, options));
    });
}
