/**
 * The one error family: a stable machine-readable `code`, a literal `name` and the original in
 * `cause`. Which exit code an error ends a run with is the CLI's to say, from its class and code
 * (cli/exit-code-of.ts); nothing here chooses one. Messages never contain the API key.
 */
export class TermsyncError extends Error {
  override readonly name: string = 'TermsyncError';
  readonly code: string;

  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** Invalid configuration or input; nothing was sent to the service. */
export class InputError extends TermsyncError {
  override readonly name = 'InputError';
}

/** Authentication, permission or destination problem: the key or URL is missing, refused or not allowed. */
export class AuthError extends TermsyncError {
  override readonly name = 'AuthError';
}

export function isTermsyncError(value: unknown): value is TermsyncError {
  return value instanceof TermsyncError;
}
