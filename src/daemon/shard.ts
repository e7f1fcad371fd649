import { createHash } from 'node:crypto';
import { InputError } from '../lib/errors.js';

/**
 * Which share of the config's targets one replica reconciles: replica `index` of `count` (a
 * StatefulSet's ordinal and its replicas). Targets are shared out by rendezvous hashing
 * (highest random weight): each target goes to the replica whose weight for it is highest, so a
 * replica that comes or goes moves only the targets it wins or held, and every replica works it out
 * alone from the target's name (no coordination, no shared state).
 */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The weight of `replica` for `target`: the first 48 bits of a SHA-256 of both, so every replica computes the same. */
function weight(target: string, replica: number): number {
  return createHash('sha256').update(`${replica}\u0000${target}`).digest().readUIntBE(0, 6);
}

/** The replica (0 … count-1) that reconciles `target` among `count`. */
export function ownerOf(target: string, count: number): number {
  let best = 0;
  let bestWeight = -1;
  for (let replica = 0; replica < count; replica++) {
    const w = weight(target, replica);
    // Equal weights (a 1 in 2^48 chance) go to the lower replica, on every replica alike.
    if (w > bestWeight) {
      best = replica;
      bestWeight = w;
    }
  }
  return best;
}

/** Whether this replica reconciles `target` (every target, without a shard). */
export function owns(shard: Shard | undefined, target: string): boolean {
  return shard === undefined || ownerOf(target, shard.count) === shard.index;
}

const MAX_SHARDS = 1000;

function wholeNumber(text: string): number | undefined {
  return /^\d{1,4}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

function checkCount(count: number | undefined, what: string, raw: string): number {
  if (count === undefined || count < 1 || count > MAX_SHARDS) throw new InputError('invalid_shard', `expected ${what} to be a whole number from 1 to ${MAX_SHARDS}, got "${raw}"`);
  return count;
}

/** `i/N` (`--shard 2/5`, TERMSYNC_SHARD): replica i (from 0) of N. */
export function parseShard(text: string, what = '--shard'): Shard {
  const match = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  if (match === null) throw new InputError('invalid_shard', `expected ${what} as INDEX/COUNT with INDEX from 0 (e.g. "2/5"), got "${text}"`);
  const index = Number(match[1]);
  const count = checkCount(Number(match[2]), `the COUNT of ${what}`, text);
  if (index >= count) throw new InputError('invalid_shard', `expected the INDEX of ${what} to be from 0 to ${count - 1} (replicas count from 0), got "${text}"`);
  return { index, count };
}

/**
 * The shard of a StatefulSet's pod: its ordinal is the number its name ends with (`termsync-2` is
 * replica 2), the count is given (`--shards N`, TERMSYNC_SHARDS).
 */
export function shardOfPod(podName: string, countText: string, what = '--shards'): Shard {
  const count = checkCount(wholeNumber(countText), what, countText);
  const match = /-(\d{1,4})$/.exec(podName.trim());
  if (match === null) {
    throw new InputError('invalid_shard', `expected the pod name "${podName}" to end with its StatefulSet ordinal (e.g. "termsync-2") to take its shard of ${what} ${count}; or give --shard INDEX/COUNT`);
  }
  const index = Number(match[1]);
  if (index >= count) throw new InputError('invalid_shard', `the pod "${podName}" is replica ${index}, but ${what} says there are ${count} (from 0 to ${count - 1}): set the count to the StatefulSet's replicas`);
  return { index, count };
}

/** Where a daemon's shard comes from: the options first, then the environment. */
export interface ShardSources {
  /** `--shard i/N`. */
  readonly shard?: string;
  /** `--shards N`: the count, the index taken from the pod name. */
  readonly shards?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The host name (a StatefulSet pod's is its name). */
  readonly hostname: string;
}

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/**
 * The shard a daemon takes, or undefined (every target): `--shard`, else `--shards` with the pod
 * name (TERMSYNC_POD_NAME, else the host name), else TERMSYNC_SHARD, else TERMSYNC_SHARDS likewise.
 */
export function resolveShard(sources: ShardSources): Shard | undefined {
  const { env } = sources;
  const pod = set(env['TERMSYNC_POD_NAME']) ? env['TERMSYNC_POD_NAME'] : sources.hostname;
  if (set(sources.shard) && set(sources.shards)) throw new InputError('invalid_shard', 'expected --shard INDEX/COUNT or --shards COUNT, not both');
  if (set(sources.shard)) return parseShard(sources.shard);
  if (set(sources.shards)) return shardOfPod(pod, sources.shards);
  if (set(env['TERMSYNC_SHARD'])) return parseShard(env['TERMSYNC_SHARD'], 'TERMSYNC_SHARD');
  if (set(env['TERMSYNC_SHARDS'])) return shardOfPod(pod, env['TERMSYNC_SHARDS'], 'TERMSYNC_SHARDS');
  return undefined;
}
