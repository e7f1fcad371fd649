import type { Operation, PlanSummary, ResourceChange } from '../model/index.js';
import { entriesTsvBytes } from './entries-tsv.js';

export type HttpMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function methodOf(op: Operation): HttpMethod {
  switch (op.type) {
    case 'glossary.create':
    case 'glossary_v2.create':
    case 'style_rules.create':
    case 'style_rules.create_instruction':
      return 'POST';
    case 'glossary.put_dictionary':
    case 'style_rules.put_configured_rules':
    case 'style_rules.update_instruction':
      return 'PUT';
    case 'glossary.patch':
    case 'style_rules.rename':
      return 'PATCH';
    case 'glossary.delete_dictionary':
    case 'glossary.delete':
    case 'style_rules.delete':
      return 'DELETE';
  }
}

/** Bytes of entries (TSV) an operation uploads. */
export function uploadBytesOf(op: Operation): number {
  switch (op.type) {
    case 'glossary.create':
      return op.dictionaries.reduce((sum, d) => sum + entriesTsvBytes(d.entries), 0);
    case 'glossary_v2.create':
    case 'glossary.put_dictionary':
      return entriesTsvBytes(op.dictionary.entries);
    case 'glossary.patch':
      return op.dictionary === undefined ? 0 : entriesTsvBytes(op.dictionary.entries);
    default:
      return 0;
  }
}

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
