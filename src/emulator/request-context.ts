import type { IncomingHttpHeaders } from 'node:http';
import type { EmulatorBehaviour } from './emulator-types.js';
import type { ParsedBody } from './parse-body.js';
import type { Account } from './store.js';

/** What a route handler sees of one authenticated, accepted request. */
export interface RequestContext {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly account: Account;
  /** How this server differs from the spec (all off by default). */
  readonly behaviour: EmulatorBehaviour;
  /** ISO 8601 with milliseconds and `Z`, from the injected clock. */
  readonly nowIso: string;
  newId(): string;
  newTraceId(): string;
  /** Parses the body on demand (415/400/413 are thrown as ServiceError). */
  body(): ParsedBody;
}

export interface ServiceResponse {
  readonly status: number;
  /** Serialised as JSON unless `text` is given. */
  readonly json?: unknown;
  readonly text?: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export function jsonResponse(status: number, json: unknown, headers?: Record<string, string>): ServiceResponse {
  return headers === undefined ? { status, json } : { status, json, headers };
}

export const NO_CONTENT: ServiceResponse = { status: 204 };
