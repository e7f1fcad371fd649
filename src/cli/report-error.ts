import { isTermsyncError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';
import { displayText } from '../lib/display.js';
import { exitCodeOfError } from './exit-code-of.js';
import type { CliIo } from './io.js';

/** `Error: MESSAGE` as the CLI prints it: one line, whatever the message holds (displayText). */
export function errorLine(message: string): string {
  return `Error: ${displayText(message)}\n`;
}

/**
 * An error a command threw, said on stderr, and its exit code (exitCodeOfError): a TermsyncError
 * in one line; anything else is a bug (exit 1, said plainly, no stack trace unless TERMSYNC_DEBUG
 * is set). Used by main.ts, and by plain-validate.ts, which the bundle runs as a file of its own
 * with its own copy of the error classes.
 */
export function reportError(error: unknown, io: CliIo): number {
  if (isTermsyncError(error)) {
    io.stderr(errorLine(error.message));
    return exitCodeOfError(error);
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`Internal error (a bug in termsync, please report it): ${displayText(message)}\n`);
  if (io.env['TERMSYNC_DEBUG'] && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return ExitCode.internal;
}
