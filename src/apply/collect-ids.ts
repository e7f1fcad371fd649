import type { OperationOutcome } from '../model/apply-result.js';
import type { LiveState } from '../model/live.js';
import type { Operation } from '../model/plan.js';

/** What the repository declares, by kind: the names `--ids-out` maps to ids. */
export interface ManagedNames {
  readonly glossaries: readonly { readonly name: string; readonly renamedFrom?: string }[];
  readonly styleRules: readonly { readonly name: string; readonly renamedFrom?: string }[];
}

export function managedNamesOf(desired: {
  readonly glossaries: readonly { readonly name: string; readonly renamedFrom?: string }[];
  readonly styleRules: readonly { readonly name: string; readonly renamedFrom?: string }[];
}): ManagedNames {
  const pick = (r: { readonly name: string; readonly renamedFrom?: string }): { name: string; renamedFrom?: string } =>
    r.renamedFrom === undefined ? { name: r.name } : { name: r.name, renamedFrom: r.renamedFrom };
  return { glossaries: desired.glossaries.map(pick), styleRules: desired.styleRules.map(pick) };
}

/**
 * The ids of the managed resources after apply: a resource created by this apply has its new id
 * (a replaced v2 glossary or style rule list too); otherwise the live resource of that name (or of
 * its old name, when renamed) that this apply did not delete. A resource whose create failed is absent.
 */
export function collectManagedIds(
  managed: ManagedNames,
  live: LiveState,
  operations: readonly Operation[],
  outcomes: readonly OperationOutcome[],
): { glossaries: Record<string, string>; style_rules: Record<string, string> } {
  const byKey = new Map(operations.map((op) => [op.key, op] as const));
  const createdGlossaries = new Map<string, string>();
  const createdStyleRules = new Map<string, string>();
  const deleted = new Set<string>();
  for (const outcome of outcomes) {
    const op = byKey.get(outcome.key);
    if (!op || outcome.status !== 'applied') continue;
    if ((op.type === 'glossary.create' || op.type === 'glossary_v2.create') && outcome.createdId) createdGlossaries.set(op.name, outcome.createdId);
    if (op.type === 'style_rules.create' && outcome.createdId) createdStyleRules.set(op.name, outcome.createdId);
    if (op.type === 'glossary.delete') deleted.add(op.glossaryId);
    if (op.type === 'style_rules.delete') deleted.add(op.styleId);
    // A delete of one instruction that fell back to replacing the whole list.
    if (op.type === 'style_rules.delete_instruction' && op.fallback !== undefined && outcome.createdId) {
      createdStyleRules.set(op.fallback.name, outcome.createdId);
      deleted.add(op.styleId);
    }
  }
  const resolve = (
    names: ManagedNames['glossaries'],
    created: ReadonlyMap<string, string>,
    existing: readonly { readonly id: string; readonly name: string; readonly creationTime: string }[],
  ): Record<string, string> => {
    // Oldest first, as the planner picks among live resources of one name.
    const candidates = [...existing].sort((a, b) => (a.creationTime < b.creationTime ? -1 : a.creationTime > b.creationTime ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const ids: Record<string, string> = {};
    for (const { name, renamedFrom } of names) {
      const found =
        created.get(name) ??
        candidates.find((r) => r.name === name && !deleted.has(r.id))?.id ??
        (renamedFrom === undefined ? undefined : candidates.find((r) => r.name === renamedFrom && !deleted.has(r.id))?.id);
      if (found !== undefined) ids[name] = found;
    }
    return Object.fromEntries(Object.entries(ids).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  };
  return {
    glossaries: resolve(managed.glossaries, createdGlossaries, live.glossaries),
    style_rules: resolve(managed.styleRules, createdStyleRules, live.styleRules),
  };
}
