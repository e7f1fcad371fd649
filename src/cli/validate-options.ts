import { parseArgs } from 'node:util';
import type { CommonOptions } from './io.js';

/** `--log-level` of every command (common-options.ts). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/** `validate --format`. */
export const VALIDATE_FORMATS = ['text', 'json', 'github'] as const;

/**
 * The options of `termsync validate <args>` when `args` holds nothing but validate's own options
 * (common-options.ts and `--format`), each with a value and every value one commander accepts (of
 * a repeated option, every occurrence's, as commander checks each; the last one wins):
 * then they are what commander would give the command's action, defaults included, and the CLI
 * runs validate without loading commander (about a tenth of a short validate's start-up).
 * Anything else (help, an unknown or misspelt option, a missing value, a value commander refuses,
 * an argument, `--`) is undefined: commander reads that command line and answers as always.
 */
export function plainValidateOptions(args: readonly string[]): CommonOptions | undefined {
  if (args.includes('--')) return undefined;
  let values: Record<string, (string | boolean)[] | undefined>;
  try {
    // Every occurrence is kept: commander checks the choices of each (`--format xml --format json`
    // is a usage error there), and the last one given wins.
    ({ values } = parseArgs({
      args: [...args],
      options: {
        dir: { type: 'string', multiple: true },
        config: { type: 'string', multiple: true },
        target: { type: 'string', multiple: true },
        'log-level': { type: 'string', multiple: true },
        format: { type: 'string', multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch {
    return undefined;
  }
  // The last value given; null when one is not a string or not a choice.
  const last = (name: string, choices?: readonly string[]): string | null | undefined => {
    const all = values[name];
    if (all === undefined || all.length === 0) return undefined;
    if (all.some((value) => typeof value !== 'string' || (choices !== undefined && !choices.includes(value)))) return null;
    return all.at(-1) as string;
  };
  const dir = last('dir');
  const config = last('config');
  const target = last('target');
  const logLevel = last('log-level', LOG_LEVELS);
  const format = last('format', VALIDATE_FORMATS);
  if (dir === null || config === null || target === null || logLevel === null || format === null) return undefined;
  return { dir: dir ?? '.', ...(config === undefined ? {} : { config }), ...(target === undefined ? {} : { target }), logLevel: logLevel ?? 'warn', format: format ?? 'text' };
}
