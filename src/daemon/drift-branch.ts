import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { TermsyncError } from '../lib/errors.js';
import { gitEnv, runGit, type GitEnv } from '../lib/run-git.js';
import { removeInside, writeInside } from '../lib/write-inside.js';

/** The branches drift goes to: never the one the daemon reads. */
export const DRIFT_BRANCH_PREFIX = 'termsync/drift-';

/** A commit message is an argument of git: a drift of many thousand terms is cut short (the files hold it all). */
const MAX_MESSAGE = 16_000;

interface GitOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** `2025-06-01-120000` (UTC): a branch name part that sorts by time. */
function stamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, '').replace('T', '-').replace(/:/g, '');
}

async function tryGit(dir: string, args: readonly string[], env: GitEnv, timeout: number): Promise<string | undefined> {
  try {
    return (await runGit(dir, args, env, timeout)).trim();
  } catch {
    return undefined;
  }
}

/** The environment for a commit: the repository's own identity, or termsync's when it has none. */
export async function commitEnv(dir: string, env: GitEnv, timeout: number): Promise<GitEnv> {
  const email = await tryGit(dir, ['config', 'user.email'], env, timeout);
  if (email !== undefined && email !== '') return env;
  return {
    GIT_AUTHOR_NAME: 'termsync',
    GIT_AUTHOR_EMAIL: 'termsync@localhost',
    GIT_COMMITTER_NAME: 'termsync',
    GIT_COMMITTER_EMAIL: 'termsync@localhost',
    ...env,
  };
}

export interface DriftCommit {
  readonly branch: string;
  readonly commit: string;
  readonly tree: string;
  readonly remote: string;
}

/**
 * Commits the files pull wrote (repository-relative to `dir`) on top of HEAD to a new branch
 * `termsync/drift-<date>` and pushes that branch to the upstream's remote, with the system git.
 * The checked-out branch, its index and its upstream are never touched: the commit is built with a
 * separate index, and the push names its destination explicitly. `skipTree`: a tree already pushed
 * (the same drift found again) is not pushed twice.
 */
export async function pushDriftBranch(
  dir: string,
  files: readonly string[],
  message: string,
  now: Date,
  options: GitOptions & { readonly skipTree?: string },
): Promise<DriftCommit | undefined> {
  const timeout = options.timeoutMs ?? 120_000;
  const base = gitEnv(options.env);
  const git = (args: readonly string[], env: GitEnv = base): Promise<string> => runGit(dir, args, env, timeout, options.signal).then((out) => out.trim());
  const head = await git(['symbolic-ref', '-q', 'HEAD']);
  const upstream = await git(['for-each-ref', '--format=%(upstream:remotename)%00%(upstream)', head]);
  const [remote = '', upstreamRef = ''] = upstream.split('\0');
  if (remote === '') throw new TermsyncError('git_failed', `the branch ${head.replace('refs/heads/', '')} has no upstream to push a drift branch to`);
  if (upstreamRef.includes(`/${DRIFT_BRANCH_PREFIX}`)) throw new TermsyncError('git_failed', `the daemon reads ${upstreamRef}, a drift branch: it never pushes to the branch it reads from`);
  // A separate index inside the git directory: the checked-out branch's index is never touched.
  const indexPath = path.resolve(dir, await git(['rev-parse', '--git-path', `termsync-drift-index-${process.pid}`]));
  const withIndex: GitEnv = { ...base, GIT_INDEX_FILE: indexPath };
  try {
    await git(['read-tree', 'HEAD'], withIndex);
    await git(['update-index', '--add', '--', ...files], withIndex);
    const tree = await git(['write-tree'], withIndex);
    if (tree === options.skipTree) return undefined;
    const commit = await git(['commit-tree', tree, '-p', 'HEAD', '-m', message.slice(0, MAX_MESSAGE)], await commitEnv(dir, base, timeout));
    const branch = `${DRIFT_BRANCH_PREFIX}${stamp(now)}`;
    await git(['push', '--quiet', remote, `${commit}:refs/heads/${branch}`]);
    return { branch, commit, tree, remote };
  } finally {
    await unlink(indexPath).catch(() => undefined);
  }
}

/** A file pull wrote that is not committed on the branch the daemon reads: its content and HEAD's blob of it then. */
export interface OverlayFile {
  readonly content: Buffer;
  /** HEAD's blob of the path when pull wrote it; undefined for a new file. */
  readonly base?: string;
}

export type Overlay = Map<string, OverlayFile>;

async function headBlob(dir: string, file: string, env: GitEnv, timeout: number): Promise<string | undefined> {
  return tryGit(dir, ['rev-parse', '--verify', '--quiet', `HEAD:./${file}`], env, timeout);
}

/** Records the files pull wrote, to keep them across git pulls until the branch holds them. */
export async function recordOverlay(dir: string, files: readonly string[], options: GitOptions, overlay: Overlay = new Map()): Promise<Overlay> {
  const env = gitEnv(options.env);
  const timeout = options.timeoutMs ?? 120_000;
  for (const file of files) {
    const known = overlay.get(file);
    const base = known === undefined ? await headBlob(dir, file, env, timeout) : known.base;
    overlay.set(file, { content: await readFile(path.join(dir, file)), ...(base === undefined ? {} : { base }) });
  }
  return overlay;
}

/** Puts the overlay's files back as HEAD has them, so a fast-forward is not refused for local changes. */
export async function setOverlayAside(dir: string, overlay: Overlay, options: GitOptions): Promise<void> {
  const env = gitEnv(options.env);
  const timeout = options.timeoutMs ?? 120_000;
  for (const [file, entry] of overlay) {
    if (entry.base === undefined) await removeInside(dir, file).catch(() => undefined);
    else await runGit(dir, ['checkout', 'HEAD', '--', file], env, timeout);
  }
}

/**
 * After a pull: the overlay's files whose HEAD version did not change are written again (the drift
 * is still only on its branch); those the pull changed are dropped from it (the branch was merged,
 * or the repository changed them: the next full run compares again).
 */
export async function restoreOverlay(dir: string, overlay: Overlay, options: GitOptions): Promise<void> {
  const env = gitEnv(options.env);
  const timeout = options.timeoutMs ?? 120_000;
  for (const [file, entry] of [...overlay]) {
    if ((await headBlob(dir, file, env, timeout)) === entry.base) await writeInside(dir, [{ path: file, content: entry.content, mode: 'replace' }]);
    else overlay.delete(file);
  }
}
