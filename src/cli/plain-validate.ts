import { ExitCode } from '../lib/exit-codes.js';
import { runValidate } from './commands/run-validate.js';
import type { CliIo, CommonOptions } from './io.js';
import { reportError } from './report-error.js';

/**
 * `termsync validate` with only its own options (validate-options.ts), from start to exit code.
 * The bundle builds this module and everything it imports as one CommonJS file of its own
 * (dist/bundle/plain-validate.cjs, run with its code cache by plain-validate.js, see
 * scripts/bundle.js): the run CI jobs make most loads one file instead of a score of shared chunks. Errors are mapped here, by that file's own copy of
 * the error classes.
 */
export async function runPlainValidate(options: CommonOptions, io: CliIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  try {
    await runValidate(options, {
      io,
      setExitCode: (code) => {
        exitCode = code;
      },
    });
    return exitCode;
  } catch (error) {
    return reportError(error, io);
  }
}
