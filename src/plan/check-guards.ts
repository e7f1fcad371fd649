import { pairKey } from '../lib/canonical.js';
import type { DesiredState, GuardViolation, Operation, ResourceChange } from '../model/index.js';
import { compareStrings } from './compare-strings.js';

function describe(change: ResourceChange): string {
  return `${change.address.kind === 'glossary' ? 'glossary' : 'style rule list'} "${change.address.name}"`;
}

/** Safety guards: any violation blocks the whole apply (exit 4). */
export function checkGuards(desired: DesiredState, changes: readonly ResourceChange[], operations: readonly Operation[]): GuardViolation[] {
  const violations: GuardViolation[] = [];
  const { guards } = desired.config;

  const protectedNames = new Set([
    ...desired.glossaries.filter((g) => g.preventDestroy).map((g) => `glossary/${g.name}`),
    ...desired.styleRules.filter((s) => s.preventDestroy).map((s) => `style_rules/${s.name}`),
  ]);
  for (const change of changes) {
    // A declared resource is created, updated or replaced, never deleted: a `delete` under a declared
    // name removes a leftover duplicate, not the resource itself.
    if (change.action !== 'replace' || !protectedNames.has(`${change.address.kind}/${change.address.name}`)) continue;
    violations.push({
      guard: 'prevent_destroy',
      resource: change.address,
      message: `${describe(change)} declares prevent_destroy, but the plan replaces it (${change.reasons[0] ?? 'replace'}); a replace deletes the old one`,
    });
  }

  const deletes = operations.filter((op) => op.type === 'glossary.delete' || op.type === 'style_rules.delete').length;
  if (deletes > guards.maxDeletes) {
    violations.push({ guard: 'max_deletes', message: `the plan deletes ${deletes} resources, more than max_deletes (${guards.maxDeletes})` });
  }

  for (const change of changes) {
    for (const dict of change.dictionaries) {
      // A dictionary deleted from a glossary that stays (dropped from the repository, or a live extra
      // pair) loses all its entries; whole-glossary deletes are max_deletes' and prevent_destroy's.
      const counted = dict.action === 'update' || (dict.action === 'delete' && change.action === 'update');
      if (!counted || dict.entriesBefore === 0) continue;
      const percent = (dict.removed / dict.entriesBefore) * 100;
      if (percent > guards.maxRemovedEntriesPercent) {
        violations.push({
          guard: 'max_removed_entries_percent',
          resource: change.address,
          message: `${describe(change)} ${pairKey(dict)} ${dict.action === 'delete' ? 'is deleted and ' : ''}loses ${dict.removed} of ${dict.entriesBefore} ${dict.entriesBefore === 1 ? 'entry' : 'entries'} (${formatPercent(percent)}%), more than max_removed_entries_percent (${guards.maxRemovedEntriesPercent}%)`,
        });
      }
    }
  }

  const declaresNothing = desired.glossaries.length === 0 && desired.styleRules.length === 0;
  if (declaresNothing && deletes > 0 && !guards.allowEmpty) {
    violations.push({
      guard: 'allow_empty',
      message: `the repository declares no resources, and the plan would delete ${deletes}; set guards.allow_empty: true if that is meant`,
    });
  }

  return violations.sort(
    (a, b) =>
      compareStrings(a.guard, b.guard) ||
      compareStrings(a.resource?.kind ?? '', b.resource?.kind ?? '') ||
      compareStrings(a.resource?.name ?? '', b.resource?.name ?? '') ||
      compareStrings(a.message, b.message),
  );
}

function formatPercent(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
