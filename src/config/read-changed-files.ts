import { InputError, isTermsyncError } from '../lib/errors.js';
import { gitEnv, runGit } from '../lib/run-git.js';

const TIMEOUT_MS = 60_000;

/**
 * The files of the repository at `dir` that differ between the commit `base` and the working tree
 * (committed, staged or not), and the untracked files git does not ignore: paths relative to `dir`,
 * through the system git. What a pull request changes, given its base commit.
 */
export async function readChangedFiles(
  dir: string,
  base: string,
  options: { readonly env: Readonly<Record<string, string | undefined>>; readonly signal?: AbortSignal },
): Promise<string[]> {
  const env = gitEnv(options.env);
  const git = (args: readonly string[]): Promise<string> => runGit(dir, args, env, TIMEOUT_MS, options.signal);
  try {
    await git(['rev-parse', '--is-inside-work-tree']);
  } catch (error) {
    throw failure(error, `--refresh changed needs a git checkout, and ${dir} is not one (or git is not installed)`);
  }
  if (base.startsWith('-')) throw new InputError('git_base_invalid', `expected --base to name a commit (a branch, tag or hash), got "${base}"`);
  try {
    await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`]);
  } catch (error) {
    throw failure(
      error,
      `--base ${base}: no such commit in this checkout; fetch it first (a shallow CI checkout has only the merge commit: fetch the base branch, or check out with full history)`,
    );
  }
  const changed = await git(['diff', '--name-only', '--relative', '--no-renames', '-z', base, '--']);
  const untracked = await git(['ls-files', '--others', '--exclude-standard', '-z']);
  return [...new Set([...changed.split('\0'), ...untracked.split('\0')].filter((f) => f !== ''))].sort();
}

function failure(error: unknown, message: string): InputError {
  if (!isTermsyncError(error)) throw error;
  return new InputError('git_changed_files', message, { cause: error });
}
