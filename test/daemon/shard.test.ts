import { describe, expect, it } from 'vitest';
import { ownerOf, owns, parseShard, resolveShard, shardOfPod } from '../../src/daemon/shard.js';

const names = Array.from({ length: 300 }, (_, i) => `account-${i}`);
const owners = (count: number): Map<string, number> => new Map(names.map((n) => [n, ownerOf(n, count)]));

describe('sharing targets out between replicas (rendezvous hashing)', () => {
  it('gives every target to exactly one replica, each replica a fair share', () => {
    const three = owners(3);
    for (let i = 0; i < 3; i++) {
      const mine = names.filter((n) => owns({ index: i, count: 3 }, n));
      expect(mine).toEqual(names.filter((n) => three.get(n) === i));
      // 100 expected each; a hash that sent everything to one replica would fail this.
      expect(mine.length).toBeGreaterThan(70);
      expect(mine.length).toBeLessThan(130);
    }
    expect(names.every((n) => owns(undefined, n))).toBe(true);
    expect(names.every((n) => ownerOf(n, 1) === 0)).toBe(true);
  });

  it('moves only the targets of a replica that goes, and only the targets a new replica wins', () => {
    for (const count of [2, 3, 5, 8]) {
      const before = owners(count);
      const after = owners(count + 1);
      // Scaling up: a target changes hands only to the new replica.
      const moved = names.filter((n) => before.get(n) !== after.get(n));
      expect(moved.every((n) => after.get(n) === count)).toBe(true);
      expect(moved.length).toBeGreaterThan(0);
      // Scaling down (the reverse): only the targets of the replica that went move.
      expect(moved).toEqual(names.filter((n) => after.get(n) === count));
    }
  });

  it('reads INDEX/COUNT and the ordinal of a StatefulSet pod name, and says what is wrong with anything else', () => {
    expect(parseShard('2/5')).toEqual({ index: 2, count: 5 });
    expect(parseShard(' 0 / 1 ')).toEqual({ index: 0, count: 1 });
    expect(() => parseShard('5/5')).toThrow('expected the INDEX of --shard to be from 0 to 4 (replicas count from 0), got "5/5"');
    expect(() => parseShard('1/0')).toThrow('expected the COUNT of --shard to be a whole number from 1 to 1000, got "1/0"');
    expect(() => parseShard('two/five')).toThrow('expected --shard as INDEX/COUNT with INDEX from 0 (e.g. "2/5"), got "two/five"');
    expect(shardOfPod('termsync-2', '3')).toEqual({ index: 2, count: 3 });
    expect(() => shardOfPod('termsync', '3')).toThrow('expected the pod name "termsync" to end with its StatefulSet ordinal (e.g. "termsync-2") to take its shard of --shards 3; or give --shard INDEX/COUNT');
    expect(() => shardOfPod('termsync-3', '3')).toThrow('the pod "termsync-3" is replica 3, but --shards says there are 3 (from 0 to 2): set the count to the StatefulSet\'s replicas');
    expect(() => shardOfPod('termsync-0', 'x')).toThrow('expected --shards to be a whole number from 1 to 1000, got "x"');
  });

  it('takes the shard from the options first, then the environment; the pod name from TERMSYNC_POD_NAME, else the host name', () => {
    expect(resolveShard({ env: {}, hostname: 'termsync-1' })).toBeUndefined();
    expect(resolveShard({ shards: '3', env: {}, hostname: 'termsync-1' })).toEqual({ index: 1, count: 3 });
    expect(resolveShard({ shards: '3', env: { TERMSYNC_POD_NAME: 'termsync-2' }, hostname: 'node-7' })).toEqual({ index: 2, count: 3 });
    expect(resolveShard({ env: { TERMSYNC_SHARDS: '4' }, hostname: 'termsync-3' })).toEqual({ index: 3, count: 4 });
    expect(resolveShard({ env: { TERMSYNC_SHARD: '0/2', TERMSYNC_SHARDS: '4' }, hostname: 'termsync-3' })).toEqual({ index: 0, count: 2 });
    expect(resolveShard({ shard: '1/2', env: { TERMSYNC_SHARD: '0/2' }, hostname: 'x' })).toEqual({ index: 1, count: 2 });
    expect(() => resolveShard({ shard: '1/2', shards: '2', env: {}, hostname: 'x' })).toThrow('expected --shard INDEX/COUNT or --shards COUNT, not both');
    expect(() => resolveShard({ env: { TERMSYNC_SHARD: '3/3' }, hostname: 'x' })).toThrow('expected the INDEX of TERMSYNC_SHARD to be from 0 to 2');
  });
});
