import { AuthError, TermsyncError } from '../lib/errors.js';

/**
 * What a failed call tells: never headers, never the key. `path` is the request path without the
 * base URL (ids in it are the service's, not secrets).
 */
export interface ServiceFailure {
  readonly method: string;
  readonly path: string;
  /** HTTP status, absent for network failures, deadlines and aborts. */
  readonly status?: number;
  /** The service's error body: `message`, `code`, `detail`. */
  readonly serviceMessage?: string;
  readonly serviceCode?: string;
  readonly detail?: string;
  /** `X-Trace-ID` of the answer, for support reports. */
  readonly traceId?: string;
  /** Attempts made for this operation. */
  readonly attempts?: number;
}

/**
 * Stable codes: `http_<status>` (a final 4xx/5xx), `throttled` (429/529 beyond the deadline),
 * `glossary_quota` (456 beyond the cool-down budget), `network`, `unreachable` (the connection was
 * never made: refused, unknown host), `deadline`, `aborted`,
 * `invalid_response`, `ambiguous_create`, `too_large` (an answer over the size limit), `redirect`
 * (a 3xx, never followed).
 */
export type ServiceErrorCode =
  | `http_${number}`
  | 'throttled'
  | 'glossary_quota'
  | 'network'
  | 'unreachable'
  | 'deadline'
  | 'aborted'
  | 'invalid_response'
  | 'ambiguous_create'
  | 'too_large'
  | 'redirect';

/**
 * Codes that say the destination is not the service termsync can work with: nobody listens there,
 * or it answers with a redirect or with more than any real answer holds.
 */
const DESTINATION_CODES: ReadonlySet<string> = new Set<ServiceErrorCode>(['unreachable', 'too_large', 'redirect']);

function describe(failure: ServiceFailure, summary: string): string {
  let text = `${failure.method} ${failure.path}: ${summary}`;
  if (failure.serviceMessage !== undefined) text += ` — ${failure.serviceMessage}`;
  if (failure.detail !== undefined) text += ` (${failure.detail})`;
  if (failure.serviceCode !== undefined) text += ` [${failure.serviceCode}]`;
  if (failure.traceId !== undefined) text += ` (trace id ${failure.traceId})`;
  return text;
}

/** A call to the service that did not succeed (after the retries it was allowed). */
export class ServiceError extends TermsyncError implements ServiceFailure {
  override readonly name = 'ServiceError';
  declare readonly code: ServiceErrorCode;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly serviceMessage?: string;
  readonly serviceCode?: string;
  readonly detail?: string;
  readonly traceId?: string;
  readonly attempts?: number;

  constructor(code: ServiceErrorCode, failure: ServiceFailure, summary: string, options: { cause?: unknown } = {}) {
    super(code, describe(failure, summary), options);
    this.method = failure.method;
    this.path = failure.path;
    assignFailure(this as unknown as Record<string, unknown>, failure);
  }
}

/** 401 or 403: the key was rejected or lacks the permission. */
export class ServiceAuthError extends AuthError implements ServiceFailure {
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly serviceMessage?: string;
  readonly serviceCode?: string;
  readonly detail?: string;
  readonly traceId?: string;
  readonly attempts?: number;

  constructor(failure: ServiceFailure & { status: 401 | 403 }, summary: string) {
    super(`http_${failure.status}`, describe(failure, summary));
    this.method = failure.method;
    this.path = failure.path;
    assignFailure(this as unknown as Record<string, unknown>, failure);
  }
}

function assignFailure(target: Record<string, unknown>, failure: ServiceFailure): void {
  // Optional fields are set only when present (exactOptionalPropertyTypes; tidy JSON).
  for (const key of ['status', 'serviceMessage', 'serviceCode', 'detail', 'traceId', 'attempts'] as const) {
    const value = failure[key];
    if (value !== undefined) target[key] = value;
  }
}

export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}

/** A service error that says the destination is not the service (see DESTINATION_CODES), not that one call failed. */
export function isDestinationError(value: unknown): value is ServiceError {
  return value instanceof ServiceError && DESTINATION_CODES.has(value.code);
}

/**
 * Whether every further request to this target would fail alike: the key was refused (401/403) or
 * the destination is not the service. Apply stops writing on the first such error.
 */
export function isRefusal(value: unknown): boolean {
  return isAuthError(value) || isDestinationError(value);
}

export function isServiceAuthError(value: unknown): value is ServiceAuthError {
  return value instanceof ServiceAuthError;
}

export function isAuthError(value: unknown): value is AuthError {
  return value instanceof AuthError;
}

/** Either kind of failed call: both carry method, path and the service's answer. */
export function isServiceFailure(value: unknown): value is (ServiceError | ServiceAuthError) & ServiceFailure {
  return value instanceof ServiceError || value instanceof ServiceAuthError;
}
