import { parseArgs } from 'node:util';
import type { CommonOptions } from './io.js';

/** `--log-level` of every command (common-options.ts). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** `validate --format`. */
export const VALIDATE_FORMATS = ['text', 'json', 'github'] as const;

/**
 * The options of `termsync validate <args>` when `args` holds nothing but validate's own options
 * (common-options.ts and `--format`), each with a value and every value one commander accepts:
 * then they are what commander would give the command's action, defaults included, and the CLI
 * runs validate without loading commander (about a tenth of a short validate's start-up).
 * Anything else (help, an unknown or misspelt option, a missing value, a value commander refuses,
 * an argument, `--`) is undefined: commander reads that command line and answers as always.
 */
export function plainValidateOptions(args: readonly string[]): CommonOptions | undefined {
  if (args.includes('--')) return undefined;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { dir: { type: 'string' }, config: { type: 'string' }, target: { type: 'string' }, 'log-level': { type: 'string' }, format: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch {
    return undefined;
  }
  const { dir = '.', config, target, 'log-level': logLevel = 'warn', format = 'text' } = values;
  if (typeof dir !== 'string' || typeof logLevel !== 'string' || typeof format !== 'string') return undefined;
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel) || !(VALIDATE_FORMATS as readonly string[]).includes(format)) return undefined;
  if ((config !== undefined && typeof config !== 'string') || (target !== undefined && typeof target !== 'string')) return undefined;
  return { dir, ...(config === undefined ? {} : { config }), ...(target === undefined ? {} : { target }), logLevel, format };
}
