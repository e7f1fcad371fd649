import type { Operation, PlanSummary, ResourceChange } from '../model/index.js';
import { methodOf, uploadBytesOf } from '../lib/operation-request.js';

/** Terraform's counting: a replace is one add and one destroy. */
export function summarizePlan(changes: readonly ResourceChange[], operations: readonly Operation[]): PlanSummary {
  let add = 0;
  let change = 0;
  let destroy = 0;
  let dictionaries = 0;
  let entriesAdded = 0;
  let entriesChanged = 0;
  let entriesRemoved = 0;
  for (const c of changes) {
    if (c.action === 'create' || c.action === 'replace') add++;
    if (c.action === 'delete' || c.action === 'replace') destroy++;
    if (c.action === 'update') change++;
    for (const d of c.dictionaries) {
      dictionaries++;
      entriesAdded += d.added;
      entriesChanged += d.changed;
      entriesRemoved += d.removed;
    }
  }
  const calls = { POST: 0, PUT: 0, PATCH: 0, DELETE: 0 };
  let uploadBytes = 0;
  for (const op of operations) {
    calls[methodOf(op)]++;
    uploadBytes += uploadBytesOf(op);
  }
  return { add, change, destroy, dictionaries, entriesAdded, entriesChanged, entriesRemoved, calls, uploadBytes };
}
