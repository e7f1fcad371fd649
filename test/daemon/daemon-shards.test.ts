import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownerOf } from '../../src/daemon/shard.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../e2e/harness.js';
import { startTestDaemon, whenStatus, type TestDaemon } from './daemon-harness.js';

/*
 * Replicas of a StatefulSet, each with its own checkout of one config of 30 targets (one key each)
 * and its shard: every target is reconciled by exactly one of them, and a change of the replica
 * count moves only the targets it must.
 */

const TARGETS = Array.from({ length: 30 }, (_, i) => `account-${String(i).padStart(2, '0')}`);
const keyOf = (target: string): string => `key-${target}`;
const variable = (target: string): string => `TERMSYNC_KEY_${target.replace('-', '_').toUpperCase()}`;

let root: string;
let emulator: Emulator;
let running: TestDaemon[] = [];

/** A checkout of the repository for one replica (a pod's own clone). */
async function checkout(name: string): Promise<string> {
  const dir = join(root, name);
  await cp(join(root, 'origin'), dir, { recursive: true });
  return dir;
}

async function startReplica(index: number, count: number): Promise<TestDaemon> {
  const env = { TERMSYNC_BASE_URL: emulator.url, ...Object.fromEntries(TARGETS.map((t) => [variable(t), keyOf(t)])) };
  const t = await startTestDaemon({ dir: await checkout(`replica-${index}-of-${count}`), env, shard: { index, count }, parallelTargets: 4 });
  running.push(t);
  return t;
}

async function stopReplica(t: TestDaemon): Promise<void> {
  await t.daemon.stop();
  running = running.filter((r) => r !== t);
}

/** Waits until every target the replica owns has ended a run and none is running. */
async function settled(t: TestDaemon): Promise<readonly string[]> {
  const { status } = t.daemon;
  await whenStatus(t.daemon, 'the replica to settle', () => status.targets.owned.length > 0 && status.targets.owned.every((n) => status.targets.report(n).last !== null && status.targets.report(n).running === null), 30_000);
  return status.targets.owned;
}

/** The glossaries each target's account holds, by name. */
async function glossariesOf(target: string): Promise<string[]> {
  const res = await fetch(`${emulator.url}/v3/glossaries`, { headers: { authorization: `Service-Auth-Key ${keyOf(target)}` } });
  return ((await res.json()) as { glossaries: { name: string }[] }).glossaries.map((g) => g.name);
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'termsync-shards-'));
  const origin = join(root, 'origin');
  await mkdir(join(origin, 'config'), { recursive: true });
  await mkdir(join(origin, 'glossaries'), { recursive: true });
  await writeFile(
    join(origin, 'config/termsync.yaml'),
    'version: 1\nrate_limit: { requests_per_second: 500 }\ntargets:\n' +
      TARGETS.map((t) => `  - name: ${t}\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: ${variable(t)}\n`).join(''),
  );
  await writeFile(join(origin, 'glossaries/shop.yaml'), 'kind: glossary\nname: Shop\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: shop.en-de.tsv\n');
  await writeFile(join(origin, 'glossaries/shop.en-de.tsv'), 'cart\tWarenkorb\ncheckout\tKasse\n');
  emulator = await startEmulator({ port: 0, keys: TARGETS.map(keyOf) });
});

afterEach(async () => {
  for (const t of running) await t.daemon.stop();
  running = [];
  await emulator.close();
  await rm(root, { recursive: true, force: true });
});

describe('replicas sharing out the targets (--shard i/N)', () => {
  it('reconciles every target by exactly one of 3 replicas; going to 2 replicas moves only the third one\'s targets', async () => {
    const replicas = [await startReplica(0, 3), await startReplica(1, 3), await startReplica(2, 3)];
    const owned = await Promise.all(replicas.map(settled));

    // Every target has exactly one owner, the one rendezvous hashing names; each replica ran only its own.
    expect(owned.flat().sort()).toEqual(TARGETS);
    owned.forEach((targets, i) => expect(targets).toEqual(TARGETS.filter((t) => ownerOf(t, 3) === i)));
    for (const [i, r] of replicas.entries()) {
      const ran = new Set(r.daemon.status.runs.flatMap((run) => run.targets.map((target) => target.target)));
      expect([...ran].sort()).toEqual([...owned[i]!].sort());
      expect(r.daemon.status.targets.owned.map((t) => r.daemon.status.targets.report(t).last?.result)).toEqual(owned[i]!.map(() => 'changed'));
      expect((JSON.parse(JSON.stringify(r.daemon.status)) as { shard: unknown }).shard).toEqual({ index: i, count: 3, owned: owned[i]!.length, declared: 30 });
      const metrics = await r.daemon.metrics.registry.metrics();
      expect(metrics).toContain(`termsync_shard_info{index="${i}",count="3"} 1`);
      expect(metrics).toContain(`termsync_targets_owned ${owned[i]!.length}`);
      for (const t of TARGETS) expect(metrics.includes(`termsync_target_owned{target="${t}"} 1`)).toBe(owned[i]!.includes(t));
    }
    // Each account was written once: one glossary each, never a duplicate from two replicas.
    const writes = emulator.requests().filter((r) => r.method === 'POST');
    expect(writes).toHaveLength(30);
    expect(new Set(writes.map((w) => w.account)).size).toBe(30);
    for (const t of TARGETS) expect(await glossariesOf(t)).toEqual(['Shop']);

    // Down to 2 replicas: replica 2 stops, 0 and 1 start again with the new count.
    for (const r of replicas) await stopReplica(r);
    const mark = emulator.requests().length;
    const two = [await startReplica(0, 2), await startReplica(1, 2)];
    const ownedAfter = await Promise.all(two.map(settled));
    expect(ownedAfter.flat().sort()).toEqual(TARGETS);
    // Replicas 0 and 1 keep every target they had; only replica 2's targets moved.
    const moved = TARGETS.filter((t) => ownedAfter.findIndex((o) => o.includes(t)) !== owned.findIndex((o) => o.includes(t)));
    expect(moved.sort()).toEqual([...owned[2]!].sort());
    expect(moved.length).toBeGreaterThan(0);
    for (const r of two) expect(r.daemon.status.targets.owned.map((t) => r.daemon.status.targets.report(t).last?.result).every((result) => result === 'converged')).toBe(true);
    expect(emulator.requests().slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
