import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireLock, LOCK_FILE } from '../../src/apply/lock.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';

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
    const { nonce, ...owner } = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')) as Record<string, unknown>;
    expect(owner).toEqual({ pid: 4242, host: 'build-1', startedAt: '2026-01-02T03:04:05.000Z' });
    expect(nonce).toMatch(/^[0-9a-f]{16}$/);
    await lock.release();
    await expect(readFile(join(dir, LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a lock held by a live process with exit 5, naming pid, host and start time', async () => {
    const held = await acquireLock(dir, { pid: 111, host: 'ci', isAlive: () => true, now: () => 0 });
    const error = await acquireLock(dir, { pid: 222, host: 'ci', isAlive: () => true }).catch((e: unknown) => e);
    expect(exitCodeOfError(error)).toBe(ExitCode.staleOrLocked);
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
    expect(exitCodeOfError(await acquireLock(dir, { host: 'here' }).catch((e: unknown) => e))).toBe(ExitCode.staleOrLocked);
    // 2^22 + 1 is above the largest pid_max Linux allows: no process can have it.
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 4_194_305, host: 'here', startedAt: 'x' }));
    const lock = await acquireLock(dir, { host: 'here' });
    await lock.release();
  });

  it('never takes over a lock of another host, nor an unreadable lock', async () => {
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 111, host: 'other', startedAt: 'x' }));
    expect(exitCodeOfError(await acquireLock(dir, { host: 'ci', isAlive: () => false }).catch((e: unknown) => e))).toBe(ExitCode.staleOrLocked);
    await writeFile(join(dir, LOCK_FILE), '{');
    await expect(acquireLock(dir, { host: 'ci', isAlive: () => false })).rejects.toThrow(/unreadable lock/);
  });

  it('release leaves a lock that is no longer ours alone', async () => {
    const lock = await acquireLock(dir, { pid: 1, host: 'ci' });
    await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 2, host: 'ci', startedAt: 'x' }));
    await lock.release();
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 2 });
  });

  it('never follows a symbolic link at the lock path, dangling or not: exit 5, the target untouched', async () => {
    // A repository can commit `.termsync.lock` as a link: dangling, it made apply spin forever.
    await symlink(join(dir, 'nowhere', 'x'), join(dir, LOCK_FILE));
    const dangling = await acquireLock(dir, { host: 'ci', isAlive: () => false }).catch((e: unknown) => e);
    expect(dangling).toMatchObject({ code: 'lock_unexpected' });
    expect(exitCodeOfError(dangling)).toBe(ExitCode.staleOrLocked);
    expect((dangling as Error).message).toContain('is a symbolic link, not a lock file termsync wrote');
    await rm(join(dir, LOCK_FILE));
    // A link to a stale-looking lock elsewhere: neither read as a lock nor replaced.
    const target = join(dir, 'elsewhere.json');
    const stale = JSON.stringify({ pid: 111, host: 'ci', startedAt: 'x' });
    await writeFile(target, stale);
    await symlink(target, join(dir, LOCK_FILE));
    await expect(acquireLock(dir, { host: 'ci', isAlive: () => false })).rejects.toMatchObject({ code: 'lock_unexpected' });
    expect(await readFile(target, 'utf8')).toBe(stale);
  });

  it('anything else that is not a regular file at the lock path is exit 5 too (a folder, a named pipe)', async () => {
    await mkdir(join(dir, LOCK_FILE));
    const refused = await acquireLock(dir).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'lock_unexpected' });
    expect(exitCodeOfError(refused)).toBe(ExitCode.staleOrLocked);
    await expect(acquireLock(dir)).rejects.toThrow(/is a folder/);
    await rm(join(dir, LOCK_FILE), { recursive: true });
    execFileSync('mkfifo', [join(dir, LOCK_FILE)]);
    await expect(acquireLock(dir)).rejects.toThrow(/is a named pipe/);
    await rm(join(dir, LOCK_FILE));
    await writeFile(join(dir, LOCK_FILE), Buffer.alloc(100_000, 'x'));
    await expect(acquireLock(dir)).rejects.toThrow(/is a file of 100000 bytes/);
  });

  // Bounded by its work (300 trials), not by time: 10 s at a load of 10 on two cores, over 20 s at 25;
  // the timeout only catches a hang.
  it('a stale lock is taken over by exactly one of several runs racing for it (300 trials)', async () => {
    const stale = 9_999_999;
    let doubles = 0;
    let nobody = 0;
    for (let trial = 0; trial < 300; trial++) {
      await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: stale, host: 'ci', startedAt: `2026-01-01T00:00:00.${String(trial % 1000).padStart(3, '0')}Z` }));
      const takers = 2 + (trial % 5);
      const results = await Promise.allSettled(Array.from({ length: takers }, (_, k) => acquireLock(dir, { pid: 1000 + k, host: 'ci', isAlive: (pid) => pid !== stale })));
      const won = results.filter((r) => r.status === 'fulfilled');
      if (won.length > 1) doubles++;
      if (won.length === 0) nobody++;
      for (const r of results) if (r.status === 'rejected') expect(exitCodeOfError(r.reason)).toBe(ExitCode.staleOrLocked);
      const holder = won[0]?.status === 'fulfilled' ? won[0].value : undefined;
      if (holder !== undefined) expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: holder.owner.pid });
      for (const r of won) if (r.status === 'fulfilled') await r.value.release();
      await rm(join(dir, LOCK_FILE), { force: true });
    }
    expect({ doubles, nobody }).toEqual({ doubles: 0, nobody: 0 });
    // No take-over slot or temporary file is left behind.
    expect(await readdir(dir)).toEqual([]);
  }, 120_000);
});
