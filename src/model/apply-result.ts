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

export interface ApplyResult {
  readonly target: string;
  readonly outcomes: readonly OperationOutcome[];
  readonly applied: number;
  readonly failed: number;
  readonly skipped: number;
  /** Ids of all managed resources after apply: what `--ids-out` writes. */
  readonly ids: { readonly glossaries: Readonly<Record<string, string>>; readonly style_rules: Readonly<Record<string, string>> };
}
