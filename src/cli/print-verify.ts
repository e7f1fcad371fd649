import { InputError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import type { Logger } from '../lib/logger.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { verifyTarget, type VerifyOutcome } from '../reconcile/index.js';
import { renderVerifyBudget, renderVerifyJson, renderVerifyOverCap, renderVerifyText, stableJson } from '../report/index.js';
import { verifyExitCode } from './exit-code-of.js';
import type { CliIo } from './io.js';
import { jsonValueOf, printTargetOutcome, serviceContext, type JsonParts } from './print-outcome.js';

/** `verify`'s own options (also those of `apply --verify`). */
export interface VerifyOptions {
  readonly sample?: number;
  readonly seed?: number;
  readonly maxCharacters?: number;
}

/** A commander parser for a whole-number option, with the house's "expected …, got …" message. */
export function wholeNumber(option: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new InputError('invalid_option', `expected ${option} to be a whole number from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/**
 * Runs verify on each target and prints, per target, the characters it will send (before sending),
 * then each check's result. Returns the exit code (the most severe of the targets). With `json`, the
 * JSON results are collected there for the caller to print as part of its own document.
 */
export async function runVerifyTargets(
  io: CliIo,
  logger: Logger,
  desired: DesiredState,
  targets: readonly TargetConfig[],
  options: VerifyOptions & { readonly format: 'text' | 'json' },
  collect?: JsonParts,
): Promise<number> {
  let code: number = ExitCode.ok;
  const json: JsonParts = collect ?? [];
  for (const target of targets) {
    const outcome: VerifyOutcome = await verifyTarget(
      {
        desired,
        target,
        ...(options.sample === undefined ? {} : { sample: options.sample }),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.maxCharacters === undefined ? {} : { maxCharacters: options.maxCharacters }),
      },
      serviceContext(io, logger),
      {
        // Before anything is sent: what it will cost (on stderr for JSON, which stdout carries).
        counted: (name, budget) => (options.format === 'json' ? io.stderr : io.stdout)(renderVerifyBudget(name, budget)),
      },
    );
    switch (outcome.kind) {
      case 'verified':
        if (options.format === 'json') json.push(renderVerifyJson(outcome.target, outcome.results, outcome.budget).trimEnd());
        else io.stdout(renderVerifyText(outcome.target, outcome.results, outcome.budget));
        break;
      case 'over_cap':
        io.stderr(`Error: ${renderVerifyOverCap(outcome.target, outcome.budget)}`);
        break;
      case 'no_checks':
        io.stderr(
          `Target "${outcome.target}": nothing to verify: no glossary declares \`tests:\` and no sample was asked for (--sample N or verify.sample).\n`,
        );
        break;
      default:
        printTargetOutcome(io, outcome, { multi: targets.length > 1 });
    }
    code = Math.max(code, verifyExitCode(outcome));
  }
  if (collect === undefined && json.length > 0) io.stdout(stableJson(jsonValueOf(json)));
  return code;
}
