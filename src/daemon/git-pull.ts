import { execFile } from 'node:child_process';
import { TermsyncError } from '../lib/errors.js';

export interface PullResult {
  /** HEAD before and after (full hashes). */
  readonly before: string;
  readonly after: string;
  /** Repository-relative paths that differ between the two (empty when nothing came in). */
  readonly files: readonly string[];
}

/** The environment git runs with: the service key and URL variables are not passed on. */
function gitEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith('TERMSYNC_')) continue;
    out[name] = value;
  }
  // Never wait for a password prompt: a daemon has nobody to type it.
  out['GIT_TERMINAL_PROMPT'] = '0';
  return out;
}

function git(dir: string, args: readonly string[], env: Record<string, string>, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', dir, ...args], { env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, ...(signal === undefined ? {} : { signal }) }, (error, stdout, stderr) => {
      if (error) {
        const detail = (stderr || error.message).trim().split('\n').slice(-3).join(' ');
        reject(new TermsyncError('git_failed', `git ${args[0] ?? ''} failed: ${detail}`, { cause: error }));
        return;
      }
      resolve(stdout);
    });
  });
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
