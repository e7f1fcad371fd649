// A daemon stopped (SIGTERM) while a run reads the repository: the run, once its load ends, follows
// the config it read, and that must not start the file watcher again. A watcher started after the
// stop keeps its handles open, and the stopped daemon's process never exits: it logs `stopped`,
// exits 0 only when killed (what an orchestrator does after its grace period).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Chokidar from 'chokidar';
import type { FSWatcher } from 'chokidar';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fileClockNow } from '../../src/daemon/file-clock.js';
import type { FirstLoad } from '../../src/daemon/first-load.js';
import { startEmulator } from '../../src/emulator/index.js';
import { loadDesired, type LoadedRepository } from '../../src/reconcile/load-desired.js';
import type { Emulator } from '../e2e/harness.js';
import { copyExample, startTestDaemon, whenStatus } from './daemon-harness.js';

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

const KEY = 'stop-while-loading-key-7d2a';
let dir: string;
let emulator: Emulator;

beforeEach(async () => {
  started.length = 0;
  dir = await mkdtemp(join(tmpdir(), 'termsync-stop-loading-'));
  await copyExample(dir);
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
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
