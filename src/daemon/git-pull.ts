import { gitEnv, runGit as git } from '../lib/run-git.js';

export interface PullResult {
  /** HEAD before and after (full hashes). */
  readonly before: string;
  readonly after: string;
  /** Repository-relative paths that differ between the two (empty when nothing came in). */
  readonly files: readonly string[];
}

/**
 * Fetches the branch's upstream and fast-forwards to it with the system git. A merge that is not a
 * fast-forward (local commits, a rewritten remote) is refused by git and leaves the tree as it was,
 * so the daemon never reconciles a half-updated tree; the error says why.
 */
export async function pullRepository(
  dir: string,
  options: { readonly env: Readonly<Record<string, string | undefined>>; readonly timeoutMs?: number; readonly signal?: AbortSignal },
): Promise<PullResult> {
  const env = gitEnv(options.env);
  const timeout = options.timeoutMs ?? 120_000;
  const before = (await git(dir, ['rev-parse', 'HEAD'], env, timeout, options.signal)).trim();
  await git(dir, ['fetch', '--quiet', '--no-tags'], env, timeout, options.signal);
  await git(dir, ['merge', '--ff-only', '--quiet', '@{upstream}'], env, timeout, options.signal);
  const after = (await git(dir, ['rev-parse', 'HEAD'], env, timeout, options.signal)).trim();
  if (after === before) return { before, after, files: [] };
  const changed = await git(dir, ['diff', '--name-only', '--relative', '-z', before, after], env, timeout, options.signal);
  return { before, after, files: changed.split('\0').filter((f) => f !== '') };
}

/** The commit checked out at `dir`. */
export async function headOf(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<string> {
  return (await git(dir, ['rev-parse', 'HEAD'], gitEnv(env), 10_000)).trim();
}

/** Repository-relative paths that differ between `before` and the checkout at `dir` (which must know both commits). */
export async function changedBetween(dir: string, before: string, env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const changed = await git(dir, ['diff', '--name-only', '--relative', '-z', before, 'HEAD'], gitEnv(env), 30_000);
  return changed.split('\0').filter((f) => f !== '');
}

/**
 * The ref pushes go to for the checkout at `dir` to see them: the upstream branch of its branch
 * (`refs/heads/main` of `origin/main`), else the branch itself; undefined on a detached HEAD (a
 * git-sync worktree) or outside git.
 */
export async function watchedRef(dir: string, env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> {
  try {
    const head = (await git(dir, ['symbolic-ref', '--quiet', 'HEAD'], gitEnv(env), 10_000)).trim();
    if (head === '') return undefined;
    const upstream = (await git(dir, ['for-each-ref', '--format=%(upstream:remoteref)', head], gitEnv(env), 10_000)).trim();
    return upstream === '' ? head : upstream;
  } catch {
    return undefined;
  }
}
