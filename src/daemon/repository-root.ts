import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../lib/logger.js';
import type { Env } from '../reconcile/index.js';
import { changedBetween, headOf } from './git-pull.js';

/**
 * Where the repository root resolves. A git-sync sidecar swaps a symbolic link to each new
 * checkout; file events of the old checkout say nothing of it, so the root is checked now and then
 * and a move reconciles what differs between the two checkouts.
 */
export interface RepositoryRoot {
  /** The root's real path at the last run (the given folder before the first). */
  real(): string;
  /** Records where the root resolves now (and, for a linked root, its HEAD, to diff the next swap against). */
  note(): Promise<void>;
  /** A root that now resolves elsewhere calls `moved` with the files that differ (undefined: git cannot tell, read all). */
  check(): Promise<void>;
}

export function trackRepositoryRoot(options: {
  readonly dir: string;
  readonly env: Env;
  readonly logger: Logger;
  readonly moved: (files: readonly string[] | undefined) => void;
}): RepositoryRoot {
  const { dir, env } = options;
  let root: { real: string; head?: string } | undefined;
  return {
    real: () => root?.real ?? dir,
    async note() {
      const real = await realpath(dir).catch(() => undefined);
      if (real === undefined) return;
      const linked = real !== path.resolve(dir);
      const head = linked ? await headOf(real, env).catch(() => undefined) : undefined;
      root = head === undefined ? { real } : { real, head };
    },
    async check() {
      if (root === undefined) return;
      const real = await realpath(dir).catch(() => undefined);
      if (real === undefined || real === root.real) return;
      const before = root.head;
      const files = before === undefined ? undefined : await changedBetween(real, before, env).catch(() => undefined);
      options.logger.info({ files: files?.length ?? 'all' }, 'the repository root moved to a new checkout');
      root = { real };
      options.moved(files);
    },
  };
}
