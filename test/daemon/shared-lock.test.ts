import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/apply/lock.js';
import { createSharedLock } from '../../src/daemon/shared-lock.js';

let dir: string;
const lockFile = (): string => join(dir, LOCK_FILE);
const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-shared-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the daemon\'s shared hold of the repository lock', () => {
  it('takes the lock file once for target runs side by side, and releases it when the last one ends', async () => {
    const lock = createSharedLock();
    const [a, b] = await Promise.all([lock.hold(dir), lock.hold(dir)]);
    const text = await readFile(lockFile(), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ pid: process.pid, host: hostname() });
    const c = await lock.hold(dir);
    await a();
    await a(); // giving a share back twice counts once
    await c();
    expect(await readFile(lockFile(), 'utf8')).toBe(text);
    await b();
    expect(await exists(lockFile())).toBe(false);
    // A new run takes it anew, also while the last release is still under way.
    const release = lock.hold(dir).then((r) => r());
    const again = await lock.hold(dir);
    await release;
    expect(await exists(lockFile())).toBe(true);
    await again();
    expect(await exists(lockFile())).toBe(false);
  });

  it('gives every waiting run the `locked` error when another process holds the lock, and tries again on the next run', async () => {
    await writeFile(lockFile(), `${JSON.stringify({ pid: 1, host: 'another-machine', startedAt: '2026-01-01T00:00:00.000Z' })}\n`);
    const lock = createSharedLock();
    const results = await Promise.allSettled([lock.hold(dir), lock.hold(dir)]);
    for (const result of results) expect(result).toMatchObject({ status: 'rejected', reason: { code: 'locked' } });
    await rm(lockFile());
    const release = await lock.hold(dir);
    expect(await exists(lockFile())).toBe(true);
    await release();
    expect(await exists(lockFile())).toBe(false);
  });

  it('keeps a second daemon (another holder) out while the first holds it', async () => {
    const first = createSharedLock();
    const second = createSharedLock(async (root) => {
      const { acquireLock } = await import('../../src/apply/lock.js');
      return acquireLock(root, { pid: process.pid + 1, isAlive: () => true });
    });
    const release = await first.hold(dir);
    await expect(second.hold(dir)).rejects.toMatchObject({ code: 'locked' });
    await release();
    await (await second.hold(dir))();
  });
});
