import type { DesiredGlossary, DesiredStyleRules, LiveGlossary, LiveStyleRules } from '../model/index.js';
import { compareStrings } from './compare-strings.js';

/**
 * Identity is the name. A declared resource takes over the live resources of its name:
 * - `current` is the one it becomes (edited in place, or replaced when it cannot be edited);
 * - `leftovers` are other live resources of that name the plan deletes: duplicate v2 glossaries or
 *   style rule lists left by an interrupted replace, and glossaries of the other api left by an api
 *   change. Extra v3 glossaries of the declared name are not taken: consumers may hold their ids, so
 *   only prune may delete them.
 * A `renamed_from` name is looked up only when no live resource carries the declared name.
 */
export interface Match<D, L> {
  readonly desired: D;
  readonly current?: L;
  readonly leftovers: readonly L[];
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
 * `isEqual` tells, for v2, which of several live duplicates already equals the declared glossary
 * (that one is kept). Without it the oldest is kept.
 */
export function matchGlossaries(
  desired: readonly DesiredGlossary[],
  live: readonly LiveGlossary[],
  isEqual: (d: DesiredGlossary, l: LiveGlossary) => boolean = () => false,
): Matching<DesiredGlossary, LiveGlossary> {
  const claimed = new Set<string>();
  const sortedLive = [...live].sort(byAge);
  const unclaimedNamed = (name: string): LiveGlossary[] => sortedLive.filter((g) => g.name === name && !claimed.has(g.id));
  const claim = (gs: readonly LiveGlossary[]): void => gs.forEach((g) => claimed.add(g.id));

  const found = new Map<DesiredGlossary, { current?: LiveGlossary; leftovers: LiveGlossary[] }>();
  const pending: DesiredGlossary[] = [];
  const sortedDesired = [...desired].sort(byName);

  // Pass 1: live resources of the declared name and api.
  for (const d of sortedDesired) {
    const sameName = unclaimedNamed(d.name);
    const sameApi = sameName.filter((g) => g.api === d.api);
    const otherApi = sameName.filter((g) => g.api !== d.api);
    if (sameApi.length === 0) {
      pending.push(d);
      continue;
    }
    if (d.api === 'v3') {
      const current = sameApi[0];
      if (current === undefined) continue;
      found.set(d, { current, leftovers: otherApi });
      claim([current, ...otherApi]);
    } else {
      const current = sameApi.find((g) => isEqual(d, g)) ?? sameApi[0];
      if (current === undefined) continue;
      const leftovers = [...sameApi.filter((g) => g !== current), ...otherApi];
      found.set(d, { current, leftovers });
      claim([current, ...leftovers]);
    }
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
): Matching<DesiredStyleRules, LiveStyleRules> {
  const claimed = new Set<string>();
  const sortedLive = [...live].sort(byAge);
  const unclaimedNamed = (name: string): LiveStyleRules[] => sortedLive.filter((s) => s.name === name && !claimed.has(s.id));
  const found = new Map<DesiredStyleRules, { current?: LiveStyleRules; leftovers: LiveStyleRules[] }>();
  const sortedDesired = [...desired].sort(byName);
  const pending: DesiredStyleRules[] = [];
  for (const d of sortedDesired) {
    const sameName = unclaimedNamed(d.name);
    const current = sameName.find((s) => isEqual(d, s)) ?? sameName[0];
    if (current === undefined) {
      pending.push(d);
      continue;
    }
    const leftovers = sameName.filter((s) => s !== current);
    found.set(d, { current, leftovers });
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
