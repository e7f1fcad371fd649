import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, LOCK_FILE } from '../../src/apply/lock.js';
import { ExitCode } from '../../src/lib/exit-codes.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acquireLock', () => {
  it('writes pid, host and start time, and removes the file on release', async () => {
    const lock = await acquireLock(dir, { pid: 4242, host: 'build-1', now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toEqual({ pid: 4242, host: 'build-1', startedAt: '2026-01-02T03:04:05.000Z' });
    await lock.release();
    await expect(readFile(join(dir, LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a lock held by a live process with exit 5, naming pid, host and start time', async () => {
    const held = await acquireLock(dir, { pid: 111, host: 'ci', isAlive: () => true, now: () => 0 });
    const error = await acquireLock(dir, { pid: 222, host: 'ci', isAlive: () => true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: ExitCode.staleOrLocked });
    expect((error as Error).message).toContain('pid 111 on host ci, started 1970-01-01T00:00:00.000Z');
    await held.release();
  });

  it('takes over the lock of a dead process on this host', async () => {
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 111, host: 'ci', startedAt: '2026-01-01T00:00:00.000Z' }));
    const lock = await acquireLock(dir, { pid: 222, host: 'ci', isAlive: (pid) => pid !== 111 });
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 222 });
    await lock.release();
  });

  it('treats the real check: this process is alive, a long-gone pid is not', async () => {
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, host: 'here', startedAt: 'x' }));
    await expect(acquireLock(dir, { host: 'here' })).rejects.toMatchObject({ exitCode: ExitCode.staleOrLocked });
    // 2^22 + 1 is above the largest pid_max Linux allows: no process can have it.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 4_194_305, host: 'here', startedAt: 'x' }));
    const lock = await acquireLock(dir, { host: 'here' });
    await lock.release();
  });

  it('never takes over a lock of another host, nor an unreadable lock', async () => {
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 111, host: 'other', startedAt: 'x' }));
    await expect(acquireLock(dir, { host: 'ci', isAlive: () => false })).rejects.toMatchObject({ exitCode: ExitCode.staleOrLocked });
    await writeFile(join(dir, LOCK_FILE), '{');
    await expect(acquireLock(dir, { host: 'ci', isAlive: () => false })).rejects.toThrow(/unreadable lock/);
  });

  it('release leaves a lock that is no longer ours alone', async () => {
    const lock = await acquireLock(dir, { pid: 1, host: 'ci' });
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 2, host: 'ci', startedAt: 'x' }));
    await lock.release();
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 2 });
  });
});
