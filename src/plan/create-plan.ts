import { dictionaryKey } from '../lib/canonical.js';
import type { DesiredState, DuplicateGroup, Entries, Fingerprints, LiveCopy, LiveState, Operation, Plan, ResourceChange, ResourceKind } from '../model/index.js';
import { PLAN_FORMAT_VERSION } from '../model/index.js';
import { checkGuards } from './check-guards.js';
import { compareStrings } from './compare-strings.js';
import type { DraftChange, DraftOperation } from './draft.js';
import { Refs } from './draft.js';
import { fingerprintLive } from './fingerprint-live.js';
import { byAge, matchGlossaries, matchStyleRules, type KeepIds, type Match } from './match-live.js';
import { planGlossary, v2Equals, type LiveEntriesOf } from './plan-glossary.js';
import { planPrune } from './plan-prune.js';
import { planStyleRules, styleRulesEqual } from './plan-style-rules.js';
import { renameConflicts } from './rename-conflicts.js';
import { summarizePlan } from './summarize-plan.js';

export interface PlanInput {
  readonly target: string;
  readonly desired: DesiredState;
  readonly live: LiveState;
  /**
   * A plan of only some resources' entries (the daemon after a file change, a pull request's plan):
   * `assumed` holds the entries of live dictionaries that were not read, taken to equal the
   * repository's; `notRefreshed` counts the glossaries concerned, for the plan to say so.
   */
  readonly refresh?: { readonly assumed: ReadonlyMap<string, Entries>; readonly notRefreshed: number };
  /**
   * Hash the live entries into the fingerprints (default: true). False for a plan that is only shown
   * or applied at once, never saved: hashing sorts every entry read, the largest cost of a plan
   * without changes. Its fingerprints then hold no `entryHashes`.
   */
  readonly entryHashes?: boolean;
  /** The ids file of the last apply: among live duplicates of a declared name, the one it names is kept. */
  readonly keepIds?: KeepIds;
}

const ACTION_ORDER = { create: 0, update: 1, replace: 2, delete: 3 } as const;

/** Creates first (so replacements exist before anything is deleted), then edits, then deletes. */
function phaseOf(op: DraftOperation): number {
  const type = op.body.type;
  if (type === 'glossary.create' || type === 'glossary_v2.create' || type === 'style_rules.create') return 0;
  if (type === 'glossary.delete' || type === 'style_rules.delete') return 2;
  return 1;
}

function compareChanges(a: DraftChange, b: DraftChange): number {
  return (
    compareStrings(a.change.address.kind, b.change.address.kind) ||
    compareStrings(a.change.address.name, b.change.address.name) ||
    ACTION_ORDER[a.change.action] - ACTION_ORDER[b.change.action] ||
    compareStrings(a.change.liveId ?? '', b.change.liveId ?? '')
  );
}

/** Desired + live → the smallest set of operations that makes the service equal to the repository. */
export function createPlan(input: PlanInput): Plan {
  const { desired, live } = input;
  const refs = new Refs();
  const assumed = input.refresh?.assumed;
  const entriesOf: LiveEntriesOf = (g, dict) => {
    const key = dictionaryKey(g.id, dict.sourceLang, dict.targetLang);
    return live.entries.get(key) ?? live.compared?.get(key) ?? assumed?.get(key);
  };
  const notRefreshed = input.refresh?.notRefreshed ?? 0;

  const glossaryMatching = matchGlossaries(desired.glossaries, live.glossaries, (d, g) => v2Equals(d, g, entriesOf), input.keepIds?.glossaries);
  const styleMatching = matchStyleRules(desired.styleRules, live.styleRules, styleRulesEqual, input.keepIds?.styleRules);
  const duplicates = [...duplicateGroups('glossary', glossaryMatching.matches), ...duplicateGroups('style_rules', styleMatching.matches)];
  const deleteInstruction = desired.config.targets.find((t) => t.name === input.target)?.capabilities?.deleteCustomInstruction ?? 'auto';
  const drafts: DraftChange[] = [
    ...glossaryMatching.matches.flatMap((m) => planGlossary(m, entriesOf, refs)),
    ...styleMatching.matches.flatMap((m) => planStyleRules(m, refs, deleteInstruction)),
  ];
  const prune = planPrune(desired.config, glossaryMatching.unclaimed, styleMatching.unclaimed, refs);
  const glossaryConflicts = renameConflicts('glossary', glossaryMatching.matches, glossaryMatching.unclaimed, prune.changes, prune.notManaged);
  const styleConflicts = renameConflicts('style_rules', styleMatching.matches, styleMatching.unclaimed, prune.changes, prune.notManaged);
  const warnings = [...glossaryConflicts.warnings, ...styleConflicts.warnings];
  for (const draft of prune.changes) {
    const why = draft.change.liveId === undefined ? undefined : (glossaryConflicts.prunedReasons.get(draft.change.liveId) ?? styleConflicts.prunedReasons.get(draft.change.liveId));
    drafts.push(why === undefined ? draft : { ...draft, change: { ...draft.change, reasons: [...draft.change.reasons, why] } });
  }
  drafts.sort(compareChanges);

  // Number the operations in a safe execution order; dependencies point backwards only.
  const ordered = drafts
    .flatMap((d) => d.ops)
    .map((op, index) => ({ op, index }))
    .sort((a, b) => phaseOf(a.op) - phaseOf(b.op) || a.index - b.index)
    .map(({ op }) => op);
  const keyOf = new Map(ordered.map((op, i) => [op.ref, `op-${i + 1}`]));
  const key = (ref: string): string => keyOf.get(ref) ?? ref;
  const operations = ordered.map((op): Operation => ({ key: key(op.ref), dependsOn: op.after.map(key).sort(compareKeys), ...op.body }));
  const changes: ResourceChange[] = drafts.map((d) => ({ ...d.change, operations: d.ops.map((op) => key(op.ref)).sort(compareKeys) }));

  return {
    format_version: PLAN_FORMAT_VERSION,
    target: input.target,
    changes,
    operations,
    guards: checkGuards(desired, changes, operations),
    notManaged: prune.notManaged,
    ...(duplicates.length === 0 ? {} : { duplicates }),
    ...(warnings.length === 0 ? {} : { warnings }),
    ...(notRefreshed === 0 ? {} : { notRefreshed }),
    fingerprints: planFingerprints(input, drafts),
    summary: summarizePlan(changes, operations),
  };
}

function copyOf(l: { readonly id: string; readonly creationTime: string; readonly api?: 'v2' | 'v3' }): LiveCopy {
  return { id: l.id, ...(l.api === undefined ? {} : { api: l.api }), creationTime: l.creationTime };
}

/** The declared names that more than one live resource carries: which is kept, which go. */
function duplicateGroups<D extends { readonly name: string }, L extends { readonly id: string; readonly name: string; readonly creationTime: string; readonly api?: 'v2' | 'v3' }>(
  kind: ResourceKind,
  matches: readonly Match<D, L>[],
): DuplicateGroup[] {
  return matches.flatMap((m): DuplicateGroup[] => {
    if (m.current === undefined || m.leftovers.length === 0) return [];
    return [{ kind, name: m.desired.name, keep: copyOf(m.current), keptBecause: m.keptBecause ?? 'oldest', remove: [...m.leftovers].sort(byAge).map(copyOf) }];
  });
}

function compareKeys(a: string, b: string): number {
  return Number(a.slice(3)) - Number(b.slice(3));
}

/**
 * The part of the live state the plan depends on: every live resource it changes or keeps, and
 * every live resource of a declared name; not-managed resources may change freely meanwhile.
 */
function planFingerprints(input: PlanInput, drafts: readonly DraftChange[]): Fingerprints {
  const { desired, live } = input;
  const all = fingerprintLive(live, input.entryHashes ?? true);
  const glossaryNames = new Set(desired.glossaries.flatMap((g) => (g.renamedFrom === undefined ? [g.name] : [g.name, g.renamedFrom])));
  const styleNames = new Set(desired.styleRules.flatMap((s) => (s.renamedFrom === undefined ? [s.name] : [s.name, s.renamedFrom])));
  const touched = new Set(drafts.map((d) => d.change.liveId).filter((id) => id !== undefined));
  return {
    glossaries: all.glossaries.filter((g) => glossaryNames.has(g.name) || touched.has(g.id)),
    styleRules: all.styleRules.filter((s) => styleNames.has(s.name) || touched.has(s.id)),
    names: {
      glossaries: desired.glossaries.map((g) => g.name).sort(compareStrings),
      styleRules: desired.styleRules.map((s) => s.name).sort(compareStrings),
    },
  };
}

