import { createHash } from 'node:crypto';
import type { Entries } from '../model/entries.js';

/** The rank of an entry in the sample: a hash of the seed, where it lives, and its source phrase. */
function rank(seed: number, scope: string, source: string): string {
  return createHash('sha256').update(`${seed}\0${scope}\0${source}`).digest('hex');
}

/**
 * `count` entries of a dictionary, chosen by the seed alone: the same seed, scope and entries give
 * the same sample whatever the order of the file, and an added entry changes the sample by at most
 * one entry. Returned in the order of their rank.
 */
export function sampleEntries(entries: Entries, count: number, seed: number, scope: string): [string, string][] {
  if (count <= 0 || entries.size === 0) return [];
  const ranked = [...entries].map(([source, target]) => ({ source, target, rank: rank(seed, scope, source) }));
  ranked.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0));
  return ranked.slice(0, count).map((e) => [e.source, e.target]);
}
