import { LOCK_FILE } from '../apply/lock.js';
import { gitEnv, runGit } from '../lib/run-git.js';
import { commitEnv } from './drift-branch.js';

/** Local edits the daemon set aside: the files, and the stash commit that keeps them. */
export interface SetAside {
  /** Repository-relative (to the daemon's folder), as `git status` lists them. */
  readonly files: readonly string[];
  /** The stash commit (`git stash list` shows it; `git stash apply <commit>` brings the edits back). */
  readonly stash: string;
}

/**
 * The paths `git status --porcelain -z` lists (a rename's source as well as its destination), with
 * the repository-relative prefix of the daemon's folder taken off.
 */
function statusPaths(output: string, prefix: string): string[] {
  const fields = output.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? '';
    if (field.length < 4) continue;
    paths.push(field.slice(3));
    // A rename or copy (R/C in either column) is followed by its source path.
    if (/[RC]/.test(field.slice(0, 2))) paths.push(fields[++i] ?? '');
  }
  return paths.filter((p) => p !== '').map((p) => (prefix !== '' && p.startsWith(prefix) ? p.slice(prefix.length) : p));
}

/** The newest stash commit, if any. */
async function stashRef(dir: string, env: Readonly<Record<string, string>>, timeout: number, signal?: AbortSignal): Promise<string | undefined> {
  try {
    return (await runGit(dir, ['rev-parse', '--verify', '--quiet', 'refs/stash'], env, timeout, signal)).trim();
  } catch {
    return undefined;
  }
}

/**
 * With `--git-pull` the daemon applies what is committed, never the working tree's own edits: a
 * changed, added or deleted file that is not committed (tracked or not ignored) is set aside in a
 * stash before the repository is read, so the tree is the committed revision again, and nothing
 * of the edit is lost (`git stash list`). Left alone: the files `keep` names (the daemon's own drift
 * files, see drift-branch.ts) and the lock file. Undefined when there was nothing to set aside.
 */
export async function setLocalEditsAside(
  dir: string,
  keep: ReadonlySet<string>,
  now: Date,
  options: { readonly env: Readonly<Record<string, string | undefined>>; readonly signal?: AbortSignal; readonly timeoutMs?: number },
): Promise<SetAside | undefined> {
  // No optional locks: `git status` would otherwise write the index, and a git command the operator
  // runs in the clone at that moment would find it locked.
  const env = { ...gitEnv(options.env), GIT_OPTIONAL_LOCKS: '0' };
  const timeout = options.timeoutMs ?? 120_000;
  const git = (args: readonly string[], withEnv: Readonly<Record<string, string>> = env): Promise<string> => runGit(dir, args, withEnv, timeout, options.signal);
  const prefix = (await git(['rev-parse', '--show-prefix'])).trim();
  const listed = statusPaths(await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.']), prefix);
  const left = (f: string): boolean => keep.has(f) || f.startsWith(LOCK_FILE);
  const all = [...new Set(listed)];
  const files = all.filter((f) => !left(f)).sort();
  if (files.length === 0) return undefined;
  const message = `termsync: local edits set aside at ${now.toISOString()} (the daemon applies only what is committed)`;
  // The daemon's folder but what is left alone, each path as it is from the repository's top (a
  // pathspec per file would not match the source of a rename, which is in neither tree nor index).
  const pathspecs = [prefix === '' ? ':(top)' : `:(top,literal)${prefix.replace(/\/$/, '')}`, ...all.filter(left).map((f) => `:(exclude,top,literal)${prefix}${f}`)];
  const before = await stashRef(dir, env, timeout, options.signal);
  await git(['stash', 'push', '--include-untracked', '--quiet', '--message', message, '--', ...pathspecs], await commitEnv(dir, env, timeout));
  const stash = await stashRef(dir, env, timeout, options.signal);
  // No new stash: the edits were committed or undone meanwhile (git says "no local changes to save").
  return stash === undefined || stash === before ? undefined : { files, stash };
}

/**
 * Commits of the checkout that its upstream does not have (made in the clone, not fetched): with
 * `--git-pull` they are not applied either. Undefined when git cannot tell (no upstream: the pull
 * says so itself).
 */
export async function commitsNotUpstream(dir: string, options: { readonly env: Readonly<Record<string, string | undefined>>; readonly signal?: AbortSignal }): Promise<number | undefined> {
  try {
    return Number((await runGit(dir, ['rev-list', '--count', '@{upstream}..HEAD'], gitEnv(options.env), 30_000, options.signal)).trim());
  } catch {
    return undefined;
  }
}
