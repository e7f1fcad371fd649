import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { displayText } from '../../lib/display.js';
import { InputError, isTermsyncError } from '../../lib/errors.js';
import { ExitCode } from '../../lib/exit-codes.js';
import type { DesiredState } from '../../model/desired.js';
import type { Plan } from '../../model/plan.js';
import { isSuccess, reconcile, resultOf, type TargetOutcome } from '../../reconcile/index.js';
import { guardLines, parsePlanJson, renderPlanText, stableJson } from '../../report/index.js';
import { addCommonOptions } from '../common-options.js';
import { runVerifyTargets, type VerifyOptions } from '../print-verify.js';
import { addVerifyOptions } from './verify.js';
import { readIdsFile } from '../read-ids-file.js';
import { runExitCode } from '../exit-code-of.js';
import type { CliIo, CommandContext, CommonOptions } from '../io.js';
import { checkOutputFile, shownPath, writeOutputFile } from '../output-files.js';
import {
  configPathOf,
  createCliLogger,
  printDiagnostics,
  jsonValueOf,
  printTargetOutcome,
  repositoryDir,
  runProblem,
  serviceContext,
  withNewline,
  type JsonParts,
} from '../print-outcome.js';
import { withHelpFooter } from '../help-text.js';
import { errorLine } from '../report-error.js';

interface ApplyOptions extends CommonOptions, VerifyOptions {
  readonly format: 'text' | 'json';
  readonly idsOut?: string;
  readonly ids?: string;
  readonly verify?: boolean;
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
/**
 * `suspend: true` (the config's or a target's) stops the daemon's writes only, as Flux's `suspend`
 * stops the controller's reconciles of an object, not a person's `kubectl apply`: `apply` writes,
 * and says that the daemon would not.
 */
function suspendedNote(desired: DesiredState, target: string | undefined): string {
  const suspended = desired.config.targets.filter((t) => (target === undefined || t.name === target) && (desired.config.suspend === true || t.suspend === true)).map((t) => `"${displayText(t.name)}"`);
  if (suspended.length === 0) return '';
  const which = suspended.length === 1 ? `target ${suspended[0] ?? ''} is` : `targets ${suspended.join(', ')} are`;
  return `Note: ${which} suspended in the config (suspend: true): the daemon writes nothing there; this apply does.\n`;
}

function guardList(plan: Plan): string {
  return `Guard violations (nothing will be applied):\n${guardLines(plan).join('\n')}\n`;
}

function printBlocked(io: CliIo, outcome: Extract<TargetOutcome, { kind: 'blocked' }>, planShown: boolean): void {
  if (!planShown) io.stderr(guardList(outcome.plan));
  const n = outcome.plan.guards.length;
  // The violations themselves are listed with the plan; this line only points at them.
  io.stderr(`Error: apply refused: blocked by ${n === 1 ? 'a safety guard' : `${n} safety guards`} (listed above)\n`);
}

async function runApply(ctx: CommandContext, file: string | undefined, options: ApplyOptions): Promise<number> {
  const { io } = ctx;
  const logger = createCliLogger(io, options.logLevel);
  const savedPlan = file === undefined ? undefined : await readSavedPlan(resolve(io.cwd, file));
  // Where the ids go is checked before anything is sent.
  const idsPath = options.idsOut === undefined ? undefined : resolve(io.cwd, options.idsOut);
  if (idsPath !== undefined) await checkOutputFile(idsPath, '--ids-out', io.cwd, repositoryDir(io, options));
  // Among live duplicates of a declared name, keep the one the last ids file names: `--ids`, or the
  // file `--ids-out` is about to overwrite (absent on the first run).
  const keepPath = options.ids === undefined ? idsPath : resolve(io.cwd, options.ids);
  const keepIds = keepPath === undefined ? undefined : await readIdsFile(keepPath, { missingOk: options.ids === undefined });
  // The plan is shown before it is applied, as text; a saved plan was shown when it was made.
  const showPlan = savedPlan === undefined && options.format === 'text';
  let multi = false;
  // stdout carries one JSON document: the apply results (one target: its object; several: an
  // array), or with --verify `{apply, verify}` (verify null when it did not run).
  const applyJson: JsonParts = [];
  // Once writes go out, an interruption lets those in flight be answered: say so, and how to end at once.
  let writing = false;
  const sayStopping = (): void => {
    if (writing) io.stderr('Interrupted: no further request is sent; the writes in flight are answered first (interrupt again to end at once, leaving their outcome unknown).\n');
  };
  io.signal.addEventListener('abort', sayStopping, { once: true });
  const run = await reconcile(
    {
      dir: repositoryDir(io, options),
      ...configPathOf(io, options),
      mode: 'apply',
      // The plan is applied at once, never saved: its fingerprints need no entry hashes.
      entryHashes: false,
      ...(options.target === undefined ? {} : { target: options.target }),
      ...(savedPlan === undefined ? {} : { savedPlan }),
      ...(keepIds === undefined ? {} : { keepIds }),
      checkTargets: (targets) => {
        multi = targets.length > 1;
        if (options.idsOut !== undefined && multi) {
          return new InputError('ids_out_needs_target', `--ids-out writes the ids of one target; choose one with --target (${targets.map((t) => t.name).join(', ')})`);
        }
        return undefined;
      },
    },
    serviceContext(io, logger),
    {
      loaded: (diagnostics, desired) => {
        printDiagnostics(io, diagnostics, options.dir);
        const note = desired === undefined ? '' : suspendedNote(desired, options.target);
        if (note !== '') io.stderr(note);
      },
      planned: (_target, plan) => {
        if (showPlan) io.stdout(withNewline(renderPlanText(plan)));
        writing = plan.operations.length > 0 && plan.guards.length === 0;
      },
      finished: (outcome) => {
        if (outcome.kind === 'blocked') printBlocked(io, outcome, showPlan);
        else printTargetOutcome(io, outcome, { multi, format: options.format, json: applyJson });
      },
    },
  );
  io.signal.removeEventListener('abort', sayStopping);
  const problem = runProblem(run);
  if (problem !== undefined) io.stderr(problem);
  const result = run.kind === 'done' && run.targets[0] !== undefined ? resultOf(run.targets[0]) : undefined;
  let code: number = runExitCode(run);
  if (idsPath !== undefined && result !== undefined) {
    try {
      await writeOutputFile(idsPath, `${JSON.stringify(result.ids, null, 2)}\n`, repositoryDir(io, options));
    } catch (error) {
      // The service was written (or already matched): the exit code must not say otherwise.
      const shown = shownPath(idsPath, io.cwd);
      io.stderr(errorLine(`the apply ran (see the result above), but the ids could not be written to ${shown} (${(error as Error).message}); run \`apply --ids-out ${shown}\` again to write them`));
      code = Math.max(code, ExitCode.applyIncomplete);
    }
  }
  const verifyJson: JsonParts | undefined = options.format === 'json' ? [] : undefined;
  let verified = false;
  if (options.verify === true && run.kind === 'done') {
    if (run.targets.every(isSuccess)) {
      const names = new Set(run.targets.map((t) => t.target));
      const targets = run.desired.config.targets.filter((t) => names.has(t.name));
      code = Math.max(code, await runVerifyTargets(io, logger, run.desired, targets, options, verifyJson));
      verified = true;
    } else {
      io.stderr('Verify skipped: the apply did not succeed on every target.\n');
    }
  }
  if (options.format === 'json') {
    if (options.verify === true) {
      io.stdout(stableJson({ apply: applyJson.length === 0 ? null : jsonValueOf(applyJson), verify: verified && verifyJson !== undefined && verifyJson.length > 0 ? jsonValueOf(verifyJson) : null }));
    } else if (applyJson.length > 0) {
      io.stdout(stableJson(jsonValueOf(applyJson)));
    }
  }
  return code;
}

export function registerApply(program: Command, ctx: CommandContext): Command {
  return addVerifyOptions(addCommonOptions(withHelpFooter(program.command('apply'), { service: true, exits: [0, 3, 4, 5, 6, 7, [8, 'with --verify: a glossary test or sampled entry failed'], 130] }).description('make the service equal to the repository (or apply a saved plan exactly)')))
    .option('--verify', 'after a successful apply, run `verify` (exit 8 when a glossary test fails)')
    .argument('[file]', 'a plan saved by `plan --out`: applied exactly, or refused if the service changed since')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
    .option('--ids-out <file>', 'write the ids of the managed resources as JSON {glossaries: {name: id}, style_rules: {name: id}}; an existing one is read first, as --ids')
    .option('--ids <file>', 'the ids file of the last `apply --ids-out`: among live duplicates of a declared name, the one it names is kept')
    .action(async (file: string | undefined, options: ApplyOptions) => {
      ctx.setExitCode(await runApply(ctx, file, options));
    });
}
