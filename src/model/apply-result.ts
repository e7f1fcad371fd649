import type { OperationType, ResourceAddress } from './plan.js';

export interface OperationOutcome {
  readonly key: string;
  readonly type: OperationType;
  readonly resource: ResourceAddress;
  /** `POST /v3/glossaries`: for people reading the result. */
  readonly request: string;
  readonly status: 'applied' | 'failed' | 'skipped';
  /** Id of the resource created by this operation (creates, and a delete of an instruction that fell back to a replace). */
  readonly createdId?: string;
  /** What happened besides the request itself (e.g. a fallback), for people. */
  readonly note?: string;
  /** Why it failed (error code and message, never a key) or why it was skipped. */
  readonly error?: { readonly code: string; readonly message: string; readonly traceId?: string };
  readonly skippedBecause?: string;
}

/** Why an operation did not start: SIGINT/SIGTERM arrived before its turn. */
export const NOT_STARTED_INTERRUPTED = 'not started: the run was interrupted';

/**
 * Whether running apply again may succeed where this error failed: throttling, quota, network,
 * 5xx, deadlines, lost answers and interruptions pass; a 4xx answer (bad request, refused key,
 * conflict …) or an answer the client cannot use comes back the same.
 */
export function failureMayPass(code: string): boolean {
  if (/^http_5\d\d$/.test(code)) return true;
  return ['throttled', 'glossary_quota', 'network', 'unreachable', 'deadline', 'aborted', 'ambiguous_create'].includes(code);
}

export interface ApplyResult {
  readonly target: string;
  readonly outcomes: readonly OperationOutcome[];
  readonly applied: number;
  readonly failed: number;
  readonly skipped: number;
  /**
   * SIGINT/SIGTERM stopped the run before every operation was done: operations not started are
   * skipped (NOT_STARTED_INTERRUPTED), those whose request was in flight say what the service answered.
   */
  readonly interrupted?: true;
  /** Duplicates of declared names (see `Plan.duplicates`) this apply deleted; present when some were. */
  readonly duplicatesDeleted?: number;
  /** Ids of all managed resources after apply: what `--ids-out` writes. */
  readonly ids: { readonly glossaries: Readonly<Record<string, string>>; readonly style_rules: Readonly<Record<string, string>> };
}
