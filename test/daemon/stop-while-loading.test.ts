// A daemon stopped (SIGTERM) while a run reads the repository: the load hears the stop after the
// files in hand and the run ends there, quietly (an info line; no error, no failed run, no
// request). A load that does end anyway then follows the config it read, and that must not start
// the file watcher again: a watcher started after the stop keeps its handles open, and the stopped
// daemon's process never exits: it logs `stopped`, exits 0 only when killed (what an orchestrator
// does after its grace period).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Chokidar from 'chokidar';
import type { FSWatcher } from 'chokidar';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as ReadEntries from '../../src/config/read-entries.js';
import { fileClockNow } from '../../src/daemon/file-clock.js';
import { beginFirstLoad, type FirstLoad } from '../../src/daemon/first-load.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createLogger } from '../../src/lib/logger.js';
import { loadDesired, type LoadedRepository } from '../../src/reconcile/load-desired.js';
import type { Emulator } from '../e2e/harness.js';
import { copyExample, nextRun, startTestDaemon, whenStatus } from './daemon-harness.js';

/** Every chokidar watcher the daemon starts, to see whether each is closed once it has stopped. */
const started = vi.hoisted(() => [] as FSWatcher[]);
vi.mock('chokidar', async (importOriginal) => {
  const chokidar = await importOriginal<typeof Chokidar>();
  return {
    ...chokidar,
    watch: (...args: Parameters<typeof chokidar.watch>) => {
      const watcher = chokidar.watch(...args);
      started.push(watcher);
      return watcher;
    },
  };
});

/**
 * What the loader reads (on this thread: TERMSYNC_LOAD_THREADS=1 below): its batches of entries
 * files and the files in them, counted; each batch waits for `load.hold` when set (and says so
 * through `load.held`) before it reads: a load held in progress, mid-way.
 */
const load = vi.hoisted(() => ({ entriesFiles: 0, entriesBatches: 0, hold: undefined as Promise<void> | undefined, held: (): void => undefined }));
vi.mock('../../src/config/read-entries.js', async (importOriginal) => {
  const original = await importOriginal<typeof ReadEntries>();
  return {
    ...original,
    readEntriesBatch: async (...args: Parameters<typeof original.readEntriesBatch>) => {
      load.entriesBatches++;
      load.entriesFiles += args[0].length;
      if (load.hold !== undefined) {
        load.held();
        await load.hold;
      }
      return original.readEntriesBatch(...args);
    },
  };
});

/** Glossaries added to the example's, each with an entries file: a load reads them in several batches. */
const EXTRA_GLOSSARIES = 30;

const KEY = 'stop-while-loading-key-7d2a';
let dir: string;
let emulator: Emulator;

beforeEach(async () => {
  started.length = 0;
  vi.stubEnv('TERMSYNC_LOAD_THREADS', '1');
  Object.assign(load, { entriesFiles: 0, entriesBatches: 0, hold: undefined, held: () => undefined });
  dir = await mkdtemp(join(tmpdir(), 'termsync-stop-loading-'));
  await copyExample(dir);
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(started.map((w) => w.close()));
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the daemon stopped while a run reads the repository', () => {
  it('starts no file watcher after the stop: every watcher it started is closed once stop() resolves', async () => {
    // The first load, held in progress until the daemon is stopping.
    let finishLoad: (loaded: LoadedRepository) => void = () => undefined;
    const loaded = new Promise<LoadedRepository>((resolve) => (finishLoad = resolve));
    const firstLoad: FirstLoad = { startedAt: fileClockNow(), loaded, cancel: () => undefined };
    const { daemon } = await startTestDaemon({ dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, firstLoad });
    await whenStatus(daemon, 'the start-up run reading the repository', () => daemon.status.running?.trigger === 'startup');
    expect(started).toHaveLength(0);

    // SIGTERM now: the stop closes the watcher (none started yet), then waits for the run, whose load ends.
    const stopping = daemon.stop();
    finishLoad(await loadDesired(dir, undefined, undefined, { remember: true }));
    await stopping;

    expect(daemon.status.runs[0]).toMatchObject({ trigger: 'startup' });
    expect(started.map((w) => w.closed)).toEqual(started.map(() => true));
  });
});

/** The daemon's log, as JSON records. */
function recordingLogger(): { logger: ReturnType<typeof createLogger>; records: { level: number; msg: string }[] } {
  const records: { level: number; msg: string }[] = [];
  const logger = createLogger({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, records };
}

/** The example repository with EXTRA_GLOSSARIES more glossaries (after its own, by name); the entries files a whole load of it reads, and in how many batches. */
async function withExtraGlossaries(): Promise<{ entriesFiles: number; entriesBatches: number }> {
  for (let i = 0; i < EXTRA_GLOSSARIES; i++) {
    const n = String(i).padStart(2, '0');
    await writeFile(join(dir, `glossaries/zz-extra-${n}.yaml`), `kind: glossary\nname: Extra ${n}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: entries/zz-extra-${n}.en-de.tsv\n`);
    await writeFile(join(dir, `glossaries/entries/zz-extra-${n}.en-de.tsv`), `term ${n}\tBegriff ${n}\n`);
  }
  expect((await loadDesired(dir)).desired).toBeDefined();
  const whole = { entriesFiles: load.entriesFiles, entriesBatches: load.entriesBatches };
  Object.assign(load, { entriesFiles: 0, entriesBatches: 0 });
  return whole;
}

/** The next batch of entries files the loader takes waits until the returned `release`; `held` resolves once it waits. */
function holdNextEntriesBatch(): { held: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  load.hold = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((resolve) => (load.held = resolve));
  return { held, release };
}

describe('the daemon stopped while a run reads the repository: the load stops, the run ends quietly', () => {
  const env = (): Record<string, string> => ({ TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY });

  type Started = Awaited<ReturnType<typeof startTestDaemon>>['daemon'];
  /** What a run leaves: the runs recorded (status, metric) and the requests the service got. */
  async function traces(daemon: Started): Promise<{ runs: number; runMetrics: number; requests: number }> {
    const values = (await daemon.metrics.registry.getSingleMetric('termsync_reconcile_runs_total')?.get())?.values ?? [];
    return { runs: daemon.status.runs.length, runMetrics: values.reduce((sum, v) => sum + v.value, 0), requests: emulator.requests().length };
  }

  /** The stopped run's traces: logged at info as stopped, no error or warning, no run recorded, no request sent. */
  async function expectStoppedQuietly(daemon: Started, records: readonly { level: number; msg: string }[], before: Awaited<ReturnType<typeof traces>>): Promise<void> {
    expect(records.filter((r) => r.level >= 40).map((r) => r.msg)).toEqual([]);
    expect(records.filter((r) => r.msg.startsWith('stopped while reading the repository'))).toMatchObject([{ level: 30 }]);
    expect(daemon.status.lastError).toBeUndefined();
    expect(daemon.status.running).toBeUndefined();
    expect(await traces(daemon)).toEqual(before);
  }

  it('stops the first load (begun before the daemon started) after the files in hand', async () => {
    const whole = await withExtraGlossaries();
    expect(whole.entriesBatches).toBeGreaterThan(1);
    const { logger, records } = recordingLogger();
    const { held, release } = holdNextEntriesBatch();
    const first = beginFirstLoad(dir);
    const { daemon } = await startTestDaemon({ dir, env: env(), logger, firstLoad: first });
    await whenStatus(daemon, 'the start-up run reading the repository', () => daemon.status.running?.trigger === 'startup');
    await held;
    const before = await traces(daemon);
    expect(before).toEqual({ runs: 0, runMetrics: 0, requests: 0 });

    // SIGTERM now, while the first batch of entries files is in hand: the load ends after it.
    const stopping = daemon.stop();
    release();
    await stopping;

    await expect(first.loaded).rejects.toMatchObject({ code: 'interrupted' });
    // The batch in hand was read, none after it.
    expect(load.entriesBatches).toBe(1);
    expect(load.entriesFiles).toBeLessThan(whole.entriesFiles);
    await expectStoppedQuietly(daemon, records, before);
  });

  it('stops a later load (a scheduled run) after the files in hand', async () => {
    const whole = await withExtraGlossaries();
    expect(whole.entriesBatches).toBeGreaterThan(1);
    const { logger, records } = recordingLogger();
    const t = await startTestDaemon({ dir, env: env(), logger });
    const { daemon } = t;
    expect(await nextRun(daemon, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    await daemon.idle();
    records.length = 0;
    Object.assign(load, { entriesFiles: 0, entriesBatches: 0 });

    // A scheduled run reads every file again (their digests): held at its first batch of entries files.
    const { held, release } = holdNextEntriesBatch();
    t.tick();
    await whenStatus(daemon, 'the scheduled run reading the repository', () => daemon.status.running?.trigger === 'schedule');
    await held;
    const before = await traces(daemon);

    const stopping = daemon.stop();
    release();
    await stopping;

    // The batch in hand was read, none after it.
    expect(load.entriesBatches).toBe(1);
    expect(load.entriesFiles).toBeLessThan(whole.entriesFiles);
    await expectStoppedQuietly(daemon, records, before);
  });
});
