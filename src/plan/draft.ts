import type { Operation, ResourceChange } from '../model/index.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An operation before the plan numbers it: `ref` and `after` are plan-local references. */
export type OperationBody = DistributiveOmit<Operation, 'key' | 'dependsOn'>;

export interface DraftOperation {
  readonly ref: string;
  readonly after: readonly string[];
  readonly body: OperationBody;
}

export interface DraftChange {
  readonly change: Omit<ResourceChange, 'operations'>;
  readonly ops: readonly DraftOperation[];
}

/** Hands out plan-local operation references; keys are assigned once the plan is sorted. */
export class Refs {
  #next = 0;
  next(): string {
    this.#next += 1;
    return `ref-${this.#next}`;
  }

  op(body: OperationBody, after: readonly string[] = []): DraftOperation {
    return { ref: this.next(), after, body };
  }
}
