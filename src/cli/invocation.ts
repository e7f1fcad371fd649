import { basename, delimiter, dirname, isAbsolute, relative, sep } from 'node:path';

/**
 * The command a person types to run this termsync again from `cwd`, for the hints termsync prints
 * (`init`'s next steps, the help of a bare `termsync`): `termsync` is only on PATH when installed
 * globally, `npx termsync` where it is a dependency of the project, and from a clone it is
 * `node bin/termsync.js` (the path as seen from `cwd`).
 *
 * `script` is the path the process was started with (`process.argv[1]`: a link on PATH or in
 * `node_modules/.bin` keeps its own name); `env` is the process's environment (npm sets
 * `npm_command=exec` for `npx` and `npm exec`). Without a script (the CLI run in-process), `termsync`.
 */
export function invocationOf(script: string | undefined, cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  if (script === undefined || script === '') return 'termsync';
  if (env['npm_command'] === 'exec') return 'npx termsync';
  const folder = dirname(script);
  const onPath = (env['PATH'] ?? '').split(delimiter).some((entry) => entry !== '' && isAbsolute(entry) && relative(entry, folder) === '');
  if (basename(script) === 'termsync' && onPath) return 'termsync';
  if (basename(folder) === '.bin' && basename(dirname(folder)) === 'node_modules') return 'npx termsync';
  // A clone (or an installed package run by its path): node and the script's path from cwd.
  const fromCwd = relative(cwd, script);
  const shown = fromCwd !== '' && !fromCwd.startsWith(`..${sep}`) && fromCwd !== '..' && !isAbsolute(fromCwd) ? fromCwd : script;
  return `node ${quoted(shown)}`;
}

/** A path as a POSIX shell reads it: quoted only when it holds anything beyond the plain characters of a path. */
export function quoted(path: string): string {
  return /^[\w./@%+=:,-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}
