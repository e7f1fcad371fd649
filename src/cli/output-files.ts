import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import { InputError, isTermsyncError } from '../lib/errors.js';
import { resolveInside, writeInside } from '../lib/write-inside.js';

/**
 * Files the CLI writes besides the repository (`plan --out`, `apply --ids-out`) and the folder
 * `import` writes into: checked before anything is sent, written whole or not at all, through
 * writeInside like every file termsync writes.
 */

function errnoOf(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown error';
}

/** A path as the user may recognise it: relative to the working folder when it is inside it. */
export function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? path : rel.split(sep).join('/');
}

async function kindOf(path: string): Promise<'file' | 'folder' | 'other' | 'missing'> {
  try {
    const s = await stat(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'folder' : 'other';
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return 'missing';
    // ENOTDIR: a part of the path is a file.
    if (errnoOf(error) === 'ENOTDIR') return 'missing';
    throw new InputError('output_unusable', `cannot use ${path}: ${errnoOf(error)}`);
  }
}

async function writable(path: string): Promise<string | undefined> {
  try {
    await access(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return errnoOf(error);
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The folder a file the user names on the command line (`--out`, `--ids-out`, absolute) is confined
 * to. Inside the repository (as `--dir` names it, or its real path): the repository, so that no
 * symbolic link of the repository carries the write out of it. Elsewhere (`$RUNNER_TEMP/plan.json`
 * in CI): the folder the user named, so that a link at the file's own name cannot carry it further.
 */
export async function outputRoot(path: string, repository: string): Promise<string> {
  const real = await realpath(repository).catch(() => repository);
  return isInside(repository, path) || isInside(real, path) ? repository : dirname(path);
}

/**
 * `option` names the flag (`--out`): its file must be writable — its folder exists and may be
 * written, and the file, if it exists, is a file that may be replaced — and it must stay within
 * its root (see outputRoot). Exit 3 otherwise.
 */
export async function checkOutputFile(path: string, option: string, cwd: string, repository: string): Promise<void> {
  const shown = shownPath(path, cwd);
  const folder = dirname(path);
  const folderKind = await kindOf(folder);
  if (folderKind !== 'folder') {
    throw new InputError(
      'output_folder_missing',
      `${option} ${shown}: ${folderKind === 'missing' ? `the folder ${shownPath(folder, cwd)} does not exist (create it first)` : `${shownPath(folder, cwd)} is not a folder`}; nothing was sent to the service`,
    );
  }
  const kind = await kindOf(path);
  if (kind === 'folder' || kind === 'other') {
    throw new InputError('output_not_a_file', `${option} ${shown}: ${kind === 'folder' ? 'is a folder' : 'is not a regular file'}, expected a file name; nothing was sent to the service`);
  }
  const denied = await writable(kind === 'file' ? path : folder);
  if (denied !== undefined) {
    throw new InputError(
      'output_not_writable',
      `${option} ${shown}: ${kind === 'file' ? 'the file' : `the folder ${shownPath(folder, cwd)}`} is not writable (${denied}); nothing was sent to the service`,
    );
  }
  try {
    await resolveInside(await outputRoot(path, repository), path, `${option} ${shown}`);
  } catch (error) {
    if (!isTermsyncError(error)) throw new InputError('output_unusable', `cannot use ${option} ${shown}: ${errnoOf(error)}`);
    throw new InputError(error.code, `${error.message.replace(/; nothing was written$/, '')}; nothing was sent to the service`);
  }
}

/**
 * The folder `import` writes into may not exist yet (it is created), but then its nearest existing
 * parent must be a writable folder; an existing one must be a writable folder.
 */
export async function checkOutputFolder(path: string, option: string, cwd: string): Promise<void> {
  const shown = shownPath(path, cwd);
  let current = path;
  for (;;) {
    const kind = await kindOf(current);
    if (kind === 'folder') break;
    if (kind !== 'missing') {
      throw new InputError('output_not_a_folder', `${option} ${shown}: ${shownPath(current, cwd)} is not a folder; nothing was sent to the service`);
    }
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  const denied = await writable(current);
  if (denied !== undefined) {
    throw new InputError('output_not_writable', `${option} ${shown}: the folder ${shownPath(current, cwd)} is not writable (${denied}); nothing was sent to the service`);
  }
}

/**
 * Writes `content` to `path` whole or not at all (writeInside, confined to its root: see
 * outputRoot). Throws the errno code (`EACCES`, `ENOSPC` …), or why the path was refused, as an
 * InputError; the caller says what it means for the run.
 */
export async function writeOutputFile(path: string, content: string, repository: string): Promise<void> {
  try {
    // The folder was checked before anything was sent; one removed since is not made again.
    await writeInside(await outputRoot(path, repository), [{ path, content, mode: 'replace' }], { makeFolders: false });
  } catch (error) {
    throw new InputError('output_write_failed', isTermsyncError(error) ? error.message : errnoOf(error));
  }
}
