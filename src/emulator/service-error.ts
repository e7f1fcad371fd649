import { TermsyncError } from '../lib/errors.js';

/**
 * An error answer of the emulated service: HTTP status plus the spec's error body
 * `{message, code?, detail?}`. Handlers throw it; the server turns it into the response.
 */
export class ServiceError extends TermsyncError {
  override readonly name = 'ServiceError';
  readonly status: number;
  readonly detail: string | undefined;
  /** The body's optional machine-readable `code` (e.g. `invalid_content_type`). */
  readonly bodyCode: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    message: string,
    options: { code?: string; detail?: string; headers?: Record<string, string> } = {},
  ) {
    super(`emulator_http_${status}`, message);
    this.status = status;
    this.detail = options.detail;
    this.bodyCode = options.code;
    this.headers = options.headers ?? {};
  }

  toBody(): { message: string; code?: string; detail?: string } {
    return {
      message: this.message,
      ...(this.bodyCode === undefined ? {} : { code: this.bodyCode }),
      ...(this.detail === undefined ? {} : { detail: this.detail }),
    };
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

export function badRequest(message: string, detail?: string): ServiceError {
  return new ServiceError(400, message, detail === undefined ? {} : { detail });
}

export function notFound(message: string): ServiceError {
  return new ServiceError(404, message);
}

/** JSON type names for "expected X, got Y" messages. */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}
