import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { TermsyncError } from '../lib/errors.js';

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

/** A lock file is a few dozen bytes; anything larger is not one of ours (and is not read whole). */
const MAX_LOCK_BYTES = 4096;

const NO_FOLLOW = (constants.O_NOFOLLOW as number | undefined) ?? 0;
const NON_BLOCK = (constants.O_NONBLOCK as number | undefined) ?? 0;

function unexpected(path: string, what: string): TermsyncError {
  return new TermsyncError(
    'lock_unexpected',
    `the lock path ${path} is ${what}, not a lock file termsync wrote: termsync never follows or replaces it. Remove it if no termsync run is active (and keep ${LOCK_FILE} out of git)`,
  );
}

function describeEntry(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Creates `path` with `content` if nothing is there (O_EXCL: never through a symbolic link). */
async function tryCreate(path: string, content: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new TermsyncError('lock_failed', `cannot create the lock file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * What is at the lock path: its text when it is a regular file (opened without following a
 * symbolic link, size checked first), `undefined` when nothing is there. Anything else is an
 * error (exit 5): a symbolic link committed as `.termsync.lock` (dangling or not), a folder, a pipe.
 */
async function readExisting(path: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | NO_FOLLOW | NON_BLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) return undefined;
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR' || !info.isFile()) throw unexpected(path, describeEntry(info));
    throw new TermsyncError('lock_unreadable', `cannot read the lock file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw unexpected(path, describeEntry(info));
    if (info.size > MAX_LOCK_BYTES) throw unexpected(path, `a file of ${info.size} bytes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The name of the one file that may be created to take over the lock whose text is `stale`. */
function takeoverSlot(path: string, stale: string): string {
  return `${path}.takeover-${createHash('sha256').update(stale).digest('hex').slice(0, 16)}`;
}

/**
 * Replaces the stale lock whose text is `stale` with ours, atomically with respect to every other
 * run: only the run that creates the take-over slot of that lock (O_EXCL, so one run per stale
 * lock) may replace it, and it does so with a rename over the path (never a moment without a
 * lock file, so no plain create can slip in). The winner checks that the stale lock is still in
 * place first (lock texts carry a nonce: a text never comes back). False when another run won.
 */
async function takeOver(path: string, stale: string, content: string): Promise<boolean> {
  const slot = takeoverSlot(path, stale);
  if (!(await tryCreate(slot, content))) return false;
  try {
    if ((await readExisting(path)) !== stale) return false;
    const fresh = `${path}.${randomBytes(8).toString('hex')}.tmp`;
    if (!(await tryCreate(fresh, content))) return false;
    try {
      await rename(fresh, path);
    } catch (error) {
      await unlink(fresh).catch(() => undefined);
      throw new TermsyncError('lock_failed', `cannot replace the stale lock file ${path}: ${(error as Error).message}`, { cause: error });
    }
    return true;
  } finally {
    await unlink(slot).catch(() => undefined);
  }
}

function lockedError(path: string, owner: LockOwner | undefined): TermsyncError {
  const who = owner
    ? `pid ${owner.pid} on host ${owner.host}, started ${owner.startedAt}`
    : 'an unreadable lock file (remove it if no termsync run is active)';
  return new TermsyncError('locked', `another termsync run holds the lock ${path}: ${who}`);
}

/** Attempts before giving up on a lock that keeps appearing and disappearing (released and taken in between). */
const MAX_ATTEMPTS = 50;

/**
 * Takes the repository's lock: a file created atomically (O_EXCL, never through a symbolic link)
 * holding pid, host, start time and a nonce. A lock left by a dead process of this host is taken
 * over (see takeOver: two runs never both get it); any other held lock is exit 5, and so is
 * anything at the path that is not a regular file.
 */
export async function acquireLock(dir: string, options: LockOptions = {}): Promise<HeldLock> {
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    startedAt: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const content = `${JSON.stringify({ ...owner, nonce: randomBytes(8).toString('hex') })}\n`;
  const isAlive = options.isAlive ?? processIsAlive;
  let acquired = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && !acquired; attempt++) {
    if (await tryCreate(path, content)) {
      acquired = true;
      break;
    }
    const text = await readExisting(path);
    // Released between our attempt and the read: try again.
    if (text === undefined) continue;
    const existing = parseOwner(text);
    const stale = existing !== undefined && existing.host === owner.host && !isAlive(existing.pid);
    if (!stale) throw lockedError(path, existing);
    if (await takeOver(path, text, content)) acquired = true;
    // Otherwise another run took it over (or it changed): look again; a live lock ends the loop.
  }
  if (!acquired) throw lockedError(path, undefined);
  return {
    path,
    owner,
    release: async () => {
      // Only remove the lock if it is still ours (read without following a link).
      const current = await readExisting(path).catch(() => undefined);
      if (current === content) await unlink(path).catch(() => undefined);
    },
  };
}
