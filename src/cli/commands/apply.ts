import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { managedNamesOf } from '../../apply/collect-ids.js';
import { executePlan, type ExecutedPlan } from '../../apply/execute-plan.js';
import { reconcileTarget } from '../../apply/reconcile-target.js';
import { acquireLock } from '../../apply/lock.js';
import { InputError, TermsyncError, isTermsyncError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import { declaredV2Names, fetchLive } from '../../live/fetch-live.js';
import { dictionariesOfFingerprints } from '../../live/select-dictionaries.js';
import type { Plan } from '../../model/plan.js';
import { compareFingerprints, fingerprintLive } from '../../plan/index.js';
import { guardLines, parsePlanJson, renderApplyResultJson, renderApplyResultText, renderPlanText } from '../../report/index.js';
import { addCommonOptions } from '../common-options.js';
import type { CommandContext, CommonOptions } from '../io.js';
import { createCliLogger, loadDesiredOrFail, repositoryDir, selectTargets } from '../load-target.js';
import { forEachTarget, withNewline } from '../plan-target.js';

interface ApplyOptions extends CommonOptions {
  readonly format: 'text' | 'json';
  readonly idsOut?: string;
}

async function readSavedPlan(path: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError('plan_unreadable', `cannot read the saved plan ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  try {
    return parsePlanJson(text);
  } catch (error) {
    if (isTermsyncError(error)) throw error;
    throw new InputError('plan_invalid', `${path} is not a saved plan: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The guard violations, when no plan text shows them. */
function guardList(plan: Plan): string {
  return `Guard violations (nothing will be applied):\n${guardLines(plan).join('\n')}\n`;
}

async function runApply(ctx: CommandContext, file: string | undefined, options: ApplyOptions): Promise<number> {
  const { io } = ctx;
  const desired = await loadDesiredOrFail(io, options);
  const saved = file === undefined ? undefined : await readSavedPlan(resolve(io.cwd, file));
  if (saved !== undefined && options.target !== undefined && options.target !== saved.target) {
    throw new InputError('target_mismatch', `the saved plan is for target "${saved.target}", not "${options.target}"`);
  }
  if (saved !== undefined && !desired.config.targets.some((t) => t.name === saved.target)) {
    throw new InputError('unknown_target', `the saved plan is for target "${saved.target}", which the project config does not declare`);
  }
  const targets = selectTargets(desired, saved?.target ?? options.target);
  if (options.idsOut !== undefined && targets.length > 1) {
    throw new InputError('ids_out_needs_target', `--ids-out writes the ids of one target; choose one with --target (${targets.map((t) => t.name).join(', ')})`);
  }
  const logger = createCliLogger(io, options.logLevel);
  const lock = await acquireLock(repositoryDir(io, options));
  try {
    return await forEachTarget(io, desired, targets, logger, async (client, target) => {
      let executed: ExecutedPlan;
      if (saved !== undefined) {
        const live = await fetchLive(client, (glossaries) => dictionariesOfFingerprints(saved.fingerprints, glossaries), declaredV2Names(desired));
        const differences = compareFingerprints(saved.fingerprints, fingerprintLive(live));
        if (differences.length > 0) {
          throw new TermsyncError('stale_plan', `Saved plan is stale: the service changed since the plan was made (${differences.join('; ')}). Run plan again.`, {
            exitCode: ExitCode.staleOrLocked,
          });
        }
        if (saved.guards.length > 0) io.stderr(guardList(saved));
        executed = await executePlan({ plan: saved, client, live, managed: managedNamesOf(desired), signal: io.signal, logger });
      } else {
        ({ executed } = await reconcileTarget({
          client,
          desired,
          target: target.name,
          signal: io.signal,
          logger,
          onPlan: (plan) => {
            if (options.format === 'text') io.stdout(withNewline(renderPlanText(plan)));
            else if (plan.guards.length > 0) io.stderr(guardList(plan));
          },
        }));
      }
      const { result, exitCode } = executed;
      io.stdout(withNewline(options.format === 'json' ? renderApplyResultJson(result) : renderApplyResultText(result)));
      if (exitCode === ExitCode.authOrDestination) {
        io.stderr(
          `Error: the service refused the writes for target "${target.name}" (see the failed operations above): the key may read but not write (a read-scoped key?), or it was rejected. Use a key with write access.\n`,
        );
      }
      if (options.idsOut !== undefined) await writeFile(resolve(io.cwd, options.idsOut), `${JSON.stringify(result.ids, null, 2)}\n`);
      return exitCode;
    });
  } finally {
    await lock.release();
  }
}

export function registerApply(program: Command, ctx: CommandContext): Command {
  return addCommonOptions(program.command('apply').description('make the service equal to the repository (or apply a saved plan exactly)'))
    .argument('[file]', 'a plan saved by `plan --out`: applied exactly, or refused if the service changed since')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--ids-out <file>', 'write the ids of the managed resources as JSON {glossaries: {name: id}, style_rules: {name: id}}')
    .action(async (file: string | undefined, options: ApplyOptions) => {
      ctx.setExitCode(await runApply(ctx, file, options));
    });
}
