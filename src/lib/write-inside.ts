import { randomBytes } from 'node:crypto';
import { lstat, mkdir, realpath, rename, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { InputError } from './errors.js';

/**
 * The one way termsync writes files (`pull`, `import`, `init`, `plan --out`, `apply --ids-out`, the
 * daemon's drift files): every path is resolved to where the write would land, symbolic links
 * included, and refused when that is outside the root it is confined to, before anything is
 * written. What the service sends or the repository holds (a language code, a name, a link) can
 * therefore never steer a write out of the repository.
 */

export interface FileToWrite {
  /** Relative to the root, or absolute. */
  readonly path: string;
  readonly content: string | Uint8Array;
  /**
   * `create`: a new file, never over anything that exists (not even a link to nothing).
   * `replace`: written beside the file, then renamed over it (a reader sees the old or the new file whole).
   */
  readonly mode: 'create' | 'replace';
}

/** How many links one path may pass through (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isInside(root: string, absolute: string): boolean {
  const rel = path.relative(root, absolute);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function refuse(shown: string, why: string): never {
  throw new InputError('write_outside_root', `refused to write ${shown}: ${why}; nothing was written`);
}

/**
 * The real location of `absolute`: its nearest existing ancestor resolved through every link, and
 * the components that do not exist yet appended as they are (they cannot be links).
 */
async function realLocation(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      await lstat(current);
      break;
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT' && errnoOf(error) !== 'ENOTDIR') throw error;
      const parent = path.dirname(current);
      if (parent === current) break;
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
  return path.join(await realpath(current), ...missing);
}

/**
 * Where a write of `file` lands: its folder resolved through every link, and a link at its own name
 * followed (a write through a link changes what it points at). Throws an InputError
 * (`write_outside_root`, exit 3) when that place is outside `root` (also resolved), or when the
 * path leaves `root` as written (`..`, an absolute path elsewhere).
 */
export async function resolveInside(root: string, file: string, shown = file): Promise<string> {
  const rootAbsolute = path.resolve(root);
  const rootReal = await realLocation(rootAbsolute);
  const absolute = path.resolve(rootAbsolute, file);
  if (!isInside(rootAbsolute, absolute) && !isInside(rootReal, absolute)) refuse(shown, `the path leads outside ${rootAbsolute}`);
  let target = path.join(await realLocation(path.dirname(absolute)), path.basename(absolute));
  for (let links = 0; ; links++) {
    const stat = await lstat(target).catch((error: unknown) => {
      // Nothing there yet (ENOTDIR: a part of the path is a file; the write itself says so).
      if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return undefined;
      throw error;
    });
    if (stat === undefined || !stat.isSymbolicLink()) break;
    if (links >= MAX_LINKS) refuse(shown, 'it passes through too many symbolic links');
    const real = await realpath(target).catch(() => undefined);
    if (real === undefined) refuse(shown, 'it is a symbolic link to nothing, which could lead anywhere');
    target = real;
  }
  if (!isInside(rootReal, target)) refuse(shown, `a symbolic link leads it to ${target}, outside ${rootAbsolute}`);
  return target;
}

/** `mkdir -p` of a folder known to be inside the root, one level at a time; the folders made, outermost first. */
async function makeFolders(folder: string): Promise<string[]> {
  const missing: string[] = [];
  for (let current = folder; ; current = path.dirname(current)) {
    const exists = await lstat(current).then(
      () => true,
      (error: unknown) => {
        if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return false;
        throw error;
      },
    );
    if (exists || path.dirname(current) === current) break;
    missing.unshift(current);
  }
  const made: string[] = [];
  for (const f of missing) {
    try {
      await mkdir(f);
      made.push(f);
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw error;
    }
  }
  return made;
}

/**
 * Writes every file or none, each confined to `root` (see resolveInside): all paths are resolved
 * and checked first; missing folders are made (unless told not to); new files are created and replacements written
 * beside their files; only when all of that succeeded are the replacements renamed into place. On
 * a failure, what this call wrote and the folders it made are removed, and the error is thrown
 * again (an fs error keeps its `code`). Returns the real paths written, in the order given.
 */
export async function writeInside(
  root: string,
  files: readonly FileToWrite[],
  options: {
    /** How a path is named in a refusal (default: as given). */
    readonly shown?: (file: string) => string;
    /** Make the folders that do not exist (default true); false: a missing folder is an ENOENT. */
    readonly makeFolders?: boolean;
    /** Folders to make even when no file goes into them (relative to the root, or absolute), confined alike. */
    readonly folders?: readonly string[];
  } = {},
): Promise<string[]> {
  const targets: string[] = [];
  for (const file of files) targets.push(await resolveInside(root, file.path, options.shown?.(file.path) ?? file.path));
  const folders: string[] = [];
  for (const folder of options.folders ?? []) folders.push(await resolveInside(root, folder, options.shown?.(folder) ?? folder));
  const suffix = `.termsync-${randomBytes(4).toString('hex')}.tmp`;
  const written: string[] = [];
  const made: string[] = [];
  try {
    for (const folder of folders) made.push(...(await makeFolders(folder)));
    for (const [i, file] of files.entries()) {
      const target = targets[i] as string;
      if (options.makeFolders ?? true) made.push(...(await makeFolders(path.dirname(target))));
      const at = file.mode === 'create' ? target : `${target}${suffix}`;
      // `wx`: never over a file that appeared since the check, nor through a link made meanwhile.
      await writeFile(at, file.content, { flag: 'wx' });
      written.push(at);
    }
    for (const [i, file] of files.entries()) if (file.mode === 'replace') await rename(`${targets[i] as string}${suffix}`, targets[i] as string);
  } catch (error) {
    for (const at of written) await unlink(at).catch(() => undefined);
    for (const folder of made.reverse()) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  return targets;
}

/**
 * Removes `file` (relative to `root`) when its folder is confined to `root` (see resolveInside); a
 * link at its name is removed itself, never what it points at. A missing file is no error.
 */
export async function removeInside(root: string, file: string): Promise<void> {
  const folder = await resolveInside(root, path.dirname(path.resolve(root, file)), path.dirname(file));
  await unlink(path.join(folder, path.basename(file))).catch((error: unknown) => {
    if (errnoOf(error) !== 'ENOENT') throw error;
  });
}
