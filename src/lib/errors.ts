import { ExitCode } from './exit-codes.js';

/**
 * The one error family: a stable machine-readable `code`, a literal `name`, the exit code the CLI
 * maps it to, and the original in `cause`. Messages never contain the API key.
 */
export class TermsyncError extends Error {
  override readonly name: string = 'TermsyncError';
  readonly code: string;
  readonly exitCode: ExitCode;

  constructor(code: string, message: string, options: { exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? ExitCode.internal;
  }
}

/** Invalid configuration or input; nothing was sent to the service (exit 3). */
export class InputError extends TermsyncError {
  override readonly name = 'InputError';
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { ...options, exitCode: ExitCode.invalidInput });
  }
}

/** Authentication, permission or destination problem (exit 7). */
export class AuthError extends TermsyncError {
  override readonly name = 'AuthError';
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { ...options, exitCode: ExitCode.authOrDestination });
  }
}

export function isTermsyncError(value: unknown): value is TermsyncError {
  return value instanceof TermsyncError;
}
