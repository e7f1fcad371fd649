import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon, DaemonOptions } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliCaptured } from '../cli/run-cli.js';
import type { Emulator } from '../e2e/harness.js';
import { copyExample, nextRun, startTestDaemon, whenStatus, type TestDaemon } from './daemon-harness.js';

/*
 * `suspend`: the daemon keeps reading the repository and the service and reporting what differs,
 * and writes nothing, while the config (project-wide or per target) or --suspend says so; a config
 * change that lifts it takes effect at the next run, without a restart. `apply` from the command
 * line is a person's act and still writes.
 */

const KEY = 'suspend-test-key-4b1d';
let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;
const CONFIG = (): string => join(dir, 'config/termsync.yaml');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-suspend-'));
  await copyExample(dir);
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function editConfig(edit: (text: string) => string): Promise<void> {
  await writeFile(CONFIG(), edit(await readFile(CONFIG(), 'utf8')));
}

async function start(options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const t = await startTestDaemon({ dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, listen: { host: '127.0.0.1', port: 0 }, verify: false, ...options });
  daemon = t.daemon;
  return t;
}

async function get(d: Daemon, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${d.url ?? ''}${path}`);
  return { status: res.status, text: await res.text() };
}

const writes = (): string[] =>
  emulator
    .requests()
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);

/** Each target's last run, once every one of them has ended a run and none is running. */
async function lastOfEach(d: Daemon, targets: readonly string[]): Promise<{ target: string; result: string }[]> {
  await whenStatus(d, 'every target to end a run', () => targets.every((name) => d.status.targets.report(name).last !== null && d.status.targets.report(name).running === null));
  return targets.map((name) => ({ target: name, result: d.status.targets.report(name).last?.result ?? '' }));
}

describe('suspend', () => {
  it('`suspend: true` in the config: plans and reports, writes nothing, stays ready; lifting it in the config applies without a restart', async () => {
    await editConfig((text) => text.replace('schedule: "*/15 * * * *"', 'schedule: "*/15 * * * *"\nsuspend: true'));
    const t = await start();
    const d = t.daemon;
    const first = await nextRun(d, 0);
    expect(first).toMatchObject({ trigger: 'startup', result: 'pending' });
    expect(first.targets[0]?.summary?.add).toBe(8);
    expect(writes()).toEqual([]);

    const ready = await get(d, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ ready: true, reason: 'the last reconcile ended pending; suspended: default (differences are reported, nothing is written)' });
    expect(JSON.parse((await get(d, '/status')).text)).toMatchObject({ suspended: [{ target: 'default', by: 'config' }] });
    let metrics = (await get(d, '/metrics')).text;
    expect(metrics).toContain('termsync_suspended{target="default"} 1');
    // What differs: the example's 6 glossaries and 2 style rule lists, none on the service yet.
    expect(metrics).toContain('termsync_drift_resources{target="default",kind="glossary"} 6');
    expect(metrics).toContain('termsync_drift_resources{target="default",kind="style_rules"} 2');
    expect(metrics).toContain('termsync_reconcile_runs_total{target="default",trigger="startup",result="pending"} 1');

    // An edit while suspended: planned, not written.
    await appendFile(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'suspended term\tAusgesetzter Begriff\n');
    await t.edited();
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'files', result: 'pending' });
    expect(writes()).toEqual([]);

    // The config lifts it: the run that follows the change applies everything, the edit too.
    await editConfig((text) => text.replace('suspend: true', 'suspend: false'));
    await t.edited();
    const resumed = await nextRun(d, 2);
    expect(resumed).toMatchObject({ trigger: 'files', result: 'changed' });
    expect(resumed.targets[0]?.applied).toBe(8);
    expect(writes()).toHaveLength(8);
    expect(d.status.suspended).toEqual([]);
    metrics = (await get(d, '/metrics')).text;
    expect(metrics).toContain('termsync_suspended{target="default"} 0');
    expect(metrics).toContain('termsync_drift_resources{target="default",kind="glossary"} 0');
    expect(JSON.parse((await get(d, '/readyz')).text)).toEqual({ ready: true, reason: 'the last reconcile ended changed' });
  });

  it('a suspended target among others: only that one is planned; --suspend suspends every target', async () => {
    await editConfig((text) => `${text}  - name: eu\n    base_url_env: TERMSYNC_EU_URL\n    api_key_env: TERMSYNC_EU_KEY\n    suspend: true\n`);
    const eu = await startEmulator({ port: 0, keys: ['eu-key'] });
    try {
      const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY, TERMSYNC_EU_URL: eu.url, TERMSYNC_EU_KEY: 'eu-key' };
      const t = await start({ env });
      // Targets run side by side, each its own run: their last results once both have run.
      const run = { targets: await lastOfEach(t.daemon, ['default', 'eu']) };
      expect(run.targets.map((r) => [r.target, r.result])).toEqual([
        ['default', 'changed'],
        ['eu', 'pending'],
      ]);
      expect(eu.requests().filter((r) => r.method !== 'GET')).toEqual([]);
      expect(t.daemon.status.suspended).toEqual([{ target: 'eu', by: 'target' }]);
      // Ready: the pending target is the suspended one.
      expect((await get(t.daemon, '/readyz')).status).toBe(200);
      const metrics = (await get(t.daemon, '/metrics')).text;
      expect(metrics).toContain('termsync_suspended{target="default"} 0');
      expect(metrics).toContain('termsync_suspended{target="eu"} 1');
      expect(metrics).toContain('termsync_drift_resources{target="eu",kind="glossary"} 6');
      expect(metrics).toContain('termsync_drift_resources{target="default",kind="glossary"} 0');
      await t.daemon.stop();

      const flagged = await start({ env, suspend: true });
      const all = { targets: await lastOfEach(flagged.daemon, ['default', 'eu']) };
      expect(all.targets.map((r) => [r.target, r.result])).toEqual([
        ['default', 'converged'],
        ['eu', 'pending'],
      ]);
      expect(flagged.daemon.status.suspended).toEqual([
        { target: 'default', by: 'flag' },
        { target: 'eu', by: 'flag' },
      ]);
    } finally {
      await eu.close();
    }
  });

  it('a run that is pending for a target that is not suspended is still not ready (--on-drift report)', async () => {
    const t = await start({ onDrift: 'report' });
    expect(await nextRun(t.daemon, 0)).toMatchObject({ result: 'pending' });
    expect(await get(t.daemon, '/readyz')).toMatchObject({ status: 503 });
  });

  it('`apply` from the command line writes to a suspended target, and says the daemon would not', async () => {
    await editConfig((text) => text.replace('schedule: "*/15 * * * *"', 'schedule: "*/15 * * * *"\nsuspend: true'));
    const run = await runCliCaptured(['apply', '--dir', dir], { cwd: dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Note: target "default" is suspended in the config (suspend: true): the daemon writes nothing there; this apply does.\n');
    expect(writes()).toHaveLength(8);
    // Not suspended: no note.
    await editConfig((text) => text.replace('suspend: true', ''));
    const plain = await runCliCaptured(['apply', '--dir', dir], { cwd: dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY } });
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toContain('suspended');
  });
});
