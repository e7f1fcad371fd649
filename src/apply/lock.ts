import { open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TermsyncError } from '../lib/errors.js';
import { ExitCode } from '../lib/exit-codes.js';

export const LOCK_FILE = '.termsync.lock';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** ISO 8601. */
  readonly startedAt: string;
}

export interface HeldLock {
  readonly path: string;
  readonly owner: LockOwner;
  release(): Promise<void>;
}

export interface LockOptions {
  readonly now?: () => number;
  readonly pid?: number;
  readonly host?: string;
  /** Whether a process of this host is alive; injected for tests. */
  readonly isAlive?: (pid: number) => boolean;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.startedAt === 'string') {
      return { pid: value.pid, host: value.host, startedAt: value.startedAt };
    }
  } catch {
    // fall through: not a lock we can read
  }
  return undefined;
}

async function tryCreate(path: string, content: string): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new TermsyncError('lock_failed', `cannot create the lock file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function lockedError(path: string, owner: LockOwner | undefined): TermsyncError {
  const who = owner
    ? `pid ${owner.pid} on host ${owner.host}, started ${owner.startedAt}`
    : 'an unreadable lock file (remove it if no termsync run is active)';
  return new TermsyncError('locked', `another termsync run holds the lock ${path}: ${who}`, { exitCode: ExitCode.staleOrLocked });
}

/**
 * Takes the repository's lock: a file created atomically (`wx`) holding pid, host and start time.
 * A lock left by a dead process of this host is taken over; any other held lock is exit 5.
 */
export async function acquireLock(dir: string, options: LockOptions = {}): Promise<HeldLock> {
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    startedAt: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const content = `${JSON.stringify(owner)}\n`;
  const isAlive = options.isAlive ?? processIsAlive;
  let tookOver = false;
  for (;;) {
    if (await tryCreate(path, content)) break;
    let existing: LockOwner | undefined;
    try {
      existing = parseOwner(await readFile(path, 'utf8'));
    } catch (error) {
      // Released between our attempt and the read: try again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const stale = existing !== undefined && existing.host === owner.host && !isAlive(existing.pid);
    if (!stale || tookOver) throw lockedError(path, existing);
    // Only one take-over attempt: if another run wins the race, its lock is a live one.
    tookOver = true;
    await unlink(path).catch(() => undefined);
  }
  return {
    path,
    owner,
    release: async () => {
      // Only remove the lock if it is still ours.
      const current = await readFile(path, 'utf8').catch(() => undefined);
      if (current === content) await unlink(path).catch(() => undefined);
    },
  };
}
