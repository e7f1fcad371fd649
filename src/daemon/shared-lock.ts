import { acquireLock, type HeldLock } from '../apply/lock.js';

/**
 * The repository's lock (`.termsync.lock`), held by the daemon as one holder for all its target
 * runs: taken when the first run starts, released when the last one ends. Runs of different targets
 * side by side then share it (the work queue never runs one target twice at once), while a CLI
 * `apply` or another daemon on the same checkout still finds it held. A run that cannot take it
 * gets the `locked` error, as the CLI would.
 */
export interface SharedLock {
  /** Takes a share of the lock of `root`; the function it resolves to gives the share back. */
  hold(root: string): Promise<() => Promise<void>>;
}

export function createSharedLock(acquire: (root: string) => Promise<HeldLock> = (root) => acquireLock(root)): SharedLock {
  /** The lock being taken or held, per repository root (a swapped checkout is another root). */
  const held = new Map<string, { lock: Promise<HeldLock>; holders: number }>();
  /** Releases in progress, per root: the next hold waits for them, so two files never race. */
  const releasing = new Map<string, Promise<void>>();

  return {
    async hold(root) {
      for (let release = releasing.get(root); release !== undefined; release = releasing.get(root)) await release;
      let entry = held.get(root);
      if (entry === undefined) {
        entry = { lock: acquire(root), holders: 0 };
        held.set(root, entry);
      }
      entry.holders += 1;
      const mine = entry;
      let lock: HeldLock;
      try {
        lock = await mine.lock;
      } catch (error) {
        // Not taken: every holder waiting on it gets the error; the next hold tries again.
        mine.holders -= 1;
        if (held.get(root) === mine) held.delete(root);
        throw error;
      }
      let given = false;
      return async () => {
        if (given) return;
        given = true;
        mine.holders -= 1;
        if (mine.holders > 0) return;
        if (held.get(root) === mine) held.delete(root);
        const release = lock.release();
        releasing.set(root, release);
        try {
          await release;
        } finally {
          if (releasing.get(root) === release) releasing.delete(root);
        }
      };
    },
  };
}
