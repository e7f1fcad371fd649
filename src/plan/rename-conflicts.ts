import type { NotManaged, PlanWarning, ResourceAddress, ResourceKind } from '../model/index.js';
import type { DraftChange } from './draft.js';
import type { Match } from './match-live.js';

interface Named {
  readonly id: string;
  readonly name: string;
}

interface Declared {
  readonly name: string;
  readonly renamedFrom?: string;
}

/**
 * A declared resource whose `renamed_from` name AND new name both exist live: the rename is not done
 * (the resource of the new name is kept), and the old one is pruned or left alone like any other
 * undeclared resource. Says so, on the resource and on the pruned one, instead of doing it silently.
 */
export function renameConflicts<D extends Declared, L extends Named>(
  kind: ResourceKind,
  matches: readonly Match<D, L>[],
  unclaimed: readonly L[],
  pruned: readonly DraftChange[],
  notManaged: readonly NotManaged[],
): { warnings: PlanWarning[]; prunedReasons: Map<string, string> } {
  const warnings: PlanWarning[] = [];
  const prunedReasons = new Map<string, string>();
  for (const { desired: d, current } of matches) {
    if (d.renamedFrom === undefined || d.renamedFrom === d.name || current === undefined || current.name !== d.name) continue;
    for (const old of unclaimed.filter((l) => l.name === d.renamedFrom)) {
      const isPruned = pruned.some((c) => c.change.address.kind === kind && c.change.liveId === old.id);
      const leftAlone = notManaged.some((n) => n.kind === kind && n.id === old.id);
      const fate = isPruned ? 'it is deleted by prune' : leftAlone ? 'it is left alone (not managed; prune is off or the name is not owned)' : 'it is handled separately';
      const resource: ResourceAddress = { kind, name: d.name };
      warnings.push({
        resource,
        message: `renamed_from "${old.name}" not done: both "${old.name}" (id ${old.id}) and "${d.name}" (id ${current.id}) exist on the service, so "${d.name}" is kept as it is and "${old.name}" is not renamed; ${fate}`,
      });
      if (isPruned) prunedReasons.set(old.id, `named in renamed_from of "${d.name}", but "${d.name}" exists too, so it was not renamed`);
    }
  }
  return { warnings, prunedReasons };
}
