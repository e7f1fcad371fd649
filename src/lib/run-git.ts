import { execFile } from 'node:child_process';
import { TermsyncError } from './errors.js';

export type GitEnv = Readonly<Record<string, string>>;

/** The environment git runs with: the service key and URL variables are not passed on. */
export function gitEnv(env: Readonly<Record<string, string | undefined>>): GitEnv {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name.startsWith('TERMSYNC_')) continue;
    out[name] = value;
  }
  // Never wait for a password prompt: nobody is there to type it.
  out['GIT_TERMINAL_PROMPT'] = '0';
  return out;
}

/** Runs the system git in `dir`; its stdout, or a TermsyncError (`git_failed`, the cause attached) with git's last words. */
export function runGit(dir: string, args: readonly string[], env: GitEnv, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', ['-C', dir, ...args], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, ...(signal === undefined ? {} : { signal }) }, (error, stdout, stderr) => {
      if (error) {
        const detail = (stderr || error.message).trim().split('\n').slice(-3).join(' ');
        reject(new TermsyncError('git_failed', `git ${args[0] ?? ''} failed: ${detail}`, { cause: error }));
        return;
      }
      resolve(stdout);
    });
  });
}
