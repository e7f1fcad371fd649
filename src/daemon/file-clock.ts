/*
 * The file system's clock, apart from the watcher (and chokidar): the daemon takes its start time on
 * it before it begins its first load (first-load.ts), and the watcher reports what changed since.
 */
import path from 'node:path';
import { closeSync, fstatSync, openSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Now, as the file system stamps a file written now: the ctime of a new temporary file. The kernel
 * stamps files with a clock that lags Date.now() by up to a tick (a few milliseconds): a file
 * written just after a Date.now() may read as older than it. Falls back to Date.now() where no
 * temporary file can be written.
 */
export function fileClockNow(): number {
  const probe = path.join(tmpdir(), `.termsync-clock-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const fd = openSync(probe, 'wx', 0o600);
    try {
      return fstatSync(fd).ctimeMs;
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch {
    return Date.now();
  }
}

/**
 * Resolves once the file clock has moved past `since` (a tick, a few milliseconds at most; given up
 * after a second). The daemon's first load waits for it, so that every file the load reads is read
 * in a later tick than the watcher's `changedSince`: an edit made after the load read a file is then
 * stamped after `changedSince`, never in the same tick as it, and the first scan reports it.
 */
export async function fileClockPast(since: number, now: () => number = fileClockNow): Promise<void> {
  for (let waited = 0; now() <= since && waited < 1000; waited++) await sleep(1);
}
