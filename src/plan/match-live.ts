import type { DesiredGlossary, DesiredStyleRules, LiveGlossary, LiveStyleRules } from '../model/index.js';
import { compareStrings } from './compare-strings.js';

/**
 * Identity is the name. A declared resource takes over the live resources of its name:
 * - `current` is the one it becomes (edited in place, or replaced when it cannot be edited);
 * - `leftovers` are the other live resources of that name, which the plan deletes: duplicates made
 *   by two runners creating at once or left by an interrupted replace (v3 and v2 glossaries, style
 *   rule lists), and glossaries of the other api left by an api change. Whatever the prune setting:
 *   two resources of one declared name leave consumers to pick one at random.
 * Among several of the declared name (and api), the one kept is the one the ids file of the last
 * apply names (consumers were given that id), else a v2 glossary or style rule list that already
 * equals the repository (no write), else the oldest.
 * A `renamed_from` name is looked up only when no live resource carries the declared name.
 */
export interface Match<D, L> {
  readonly desired: D;
  readonly current?: L;
  readonly leftovers: readonly L[];
  /** Why `current` was chosen among several (absent when there was no choice). */
  readonly keptBecause?: 'ids_file' | 'matches' | 'oldest';
}

/** The ids of the last apply (what `--ids-out` wrote), by name. */
export interface KeepIds {
  readonly glossaries: Readonly<Record<string, string>>;
  readonly styleRules: Readonly<Record<string, string>>;
}

/** Why the kept one was chosen, in a plan's words. */
export function keptReason(current: { readonly id: string }, keptBecause: Match<unknown, unknown>['keptBecause'], replaced = false): string {
  const why = keptBecause === 'ids_file' ? 'the ids file names it' : keptBecause === 'matches' ? 'it already matches the repository' : 'the oldest';
  return `${replaced ? 'keeps the replacement of' : 'keeps'} id ${current.id}, ${why}`;
}

/** The one to keep among live resources of one name (sorted oldest first), and why. */
function choose<L extends Named>(
  candidates: readonly L[],
  keepId: string | undefined,
  isEqual: (l: L) => boolean,
): { current: L; keptBecause?: 'ids_file' | 'matches' | 'oldest' } | undefined {
  const oldest = candidates[0];
  if (oldest === undefined) return undefined;
  if (candidates.length === 1) return { current: oldest };
  const named = keepId === undefined ? undefined : candidates.find((c) => c.id === keepId);
  if (named !== undefined) return { current: named, keptBecause: 'ids_file' };
  const equal = candidates.find(isEqual);
  if (equal !== undefined) return { current: equal, keptBecause: 'matches' };
  return { current: oldest, keptBecause: 'oldest' };
}

export interface Matching<D, L> {
  readonly matches: readonly Match<D, L>[];
  /** Live resources no declared resource takes: prune decides about them. */
  readonly unclaimed: readonly L[];
}

interface Named {
  readonly id: string;
  readonly name: string;
  readonly creationTime: string;
}

/** Oldest first, then by id: a stable choice among live resources of one name. */
export function byAge(a: Named, b: Named): number {
  return compareStrings(a.creationTime, b.creationTime) || compareStrings(a.id, b.id);
}

function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return compareStrings(a.name, b.name);
}

/**
 * The live resources of a name not claimed yet, oldest first: looked up by name (a listing of a
 * thousand glossaries matched against a thousand declared ones is a thousand lookups, not a million
 * comparisons).
 */
function unclaimedByName<L extends Named>(sortedLive: readonly L[], claimed: ReadonlySet<string>): (name: string) => L[] {
  const named = new Map<string, L[]>();
  for (const l of sortedLive) {
    const list = named.get(l.name);
    if (list === undefined) named.set(l.name, [l]);
    else list.push(l);
  }
  return (name) => (named.get(name) ?? []).filter((l) => !claimed.has(l.id));
}

/**
 * `isEqual` tells, for v2, which of several live duplicates already equals the declared glossary
 * (that one is kept). Without it the oldest is kept.
 */
export function matchGlossaries(
  desired: readonly DesiredGlossary[],
  live: readonly LiveGlossary[],
  isEqual: (d: DesiredGlossary, l: LiveGlossary) => boolean = () => false,
  keepIds: Readonly<Record<string, string>> = {},
): Matching<DesiredGlossary, LiveGlossary> {
  const claimed = new Set<string>();
  const sortedLive = [...live].sort(byAge);
  const unclaimedNamed = unclaimedByName(sortedLive, claimed);
  const claim = (gs: readonly LiveGlossary[]): void => gs.forEach((g) => claimed.add(g.id));

  const found = new Map<DesiredGlossary, Omit<Match<DesiredGlossary, LiveGlossary>, 'desired'>>();
  const pending: DesiredGlossary[] = [];
  const sortedDesired = [...desired].sort(byName);

  // Pass 1: live resources of the declared name and api.
  for (const d of sortedDesired) {
    const sameName = unclaimedNamed(d.name);
    const sameApi = sameName.filter((g) => g.api === d.api);
    const otherApi = sameName.filter((g) => g.api !== d.api);
    // A v3 glossary is edited in place: whichever is kept becomes equal, so none is preferred for
    // already being equal (the oldest is the one consumers most likely hold).
    const chosen = choose(sameApi, keepIds[d.name], (g) => d.api === 'v2' && isEqual(d, g));
    if (chosen === undefined) {
      pending.push(d);
      continue;
    }
    const leftovers = [...sameApi.filter((g) => g !== chosen.current), ...otherApi];
    found.set(d, { current: chosen.current, leftovers, ...(chosen.keptBecause === undefined ? {} : { keptBecause: chosen.keptBecause }) });
    claim([chosen.current, ...leftovers]);
  }
  // Pass 2: renamed_from, then a live resource of the declared name with the other api.
  for (const d of pending) {
    const otherApi = unclaimedNamed(d.name);
    const renamed = d.renamedFrom === undefined ? [] : unclaimedNamed(d.renamedFrom).sort((a, b) => Number(a.api !== d.api) - Number(b.api !== d.api));
    const current = renamed[0] ?? otherApi[0];
    const leftovers = otherApi.filter((g) => g !== current);
    found.set(d, current === undefined ? { leftovers } : { current, leftovers });
    claim(current === undefined ? leftovers : [current, ...leftovers]);
  }
  const matches = sortedDesired.map((d) => ({ desired: d, ...(found.get(d) ?? { leftovers: [] }) }));
  return { matches, unclaimed: sortedLive.filter((g) => !claimed.has(g.id)) };
}

export function matchStyleRules(
  desired: readonly DesiredStyleRules[],
  live: readonly LiveStyleRules[],
  isEqual: (d: DesiredStyleRules, l: LiveStyleRules) => boolean,
  keepIds: Readonly<Record<string, string>> = {},
): Matching<DesiredStyleRules, LiveStyleRules> {
  const claimed = new Set<string>();
  const sortedLive = [...live].sort(byAge);
  const unclaimedNamed = unclaimedByName(sortedLive, claimed);
  const found = new Map<DesiredStyleRules, Omit<Match<DesiredStyleRules, LiveStyleRules>, 'desired'>>();
  const sortedDesired = [...desired].sort(byName);
  const pending: DesiredStyleRules[] = [];
  for (const d of sortedDesired) {
    const sameName = unclaimedNamed(d.name);
    const chosen = choose(sameName, keepIds[d.name], (s) => isEqual(d, s));
    if (chosen === undefined) {
      pending.push(d);
      continue;
    }
    const leftovers = sameName.filter((s) => s !== chosen.current);
    found.set(d, { current: chosen.current, leftovers, ...(chosen.keptBecause === undefined ? {} : { keptBecause: chosen.keptBecause }) });
    for (const s of sameName) claimed.add(s.id);
  }
  for (const d of pending) {
    const current = d.renamedFrom === undefined ? undefined : unclaimedNamed(d.renamedFrom)[0];
    if (current !== undefined) {
      found.set(d, { current, leftovers: [] });
      claimed.add(current.id);
    }
  }
  const matches = sortedDesired.map((d) => ({ desired: d, ...(found.get(d) ?? { leftovers: [] }) }));
  return { matches, unclaimed: sortedLive.filter((s) => !claimed.has(s.id)) };
}
