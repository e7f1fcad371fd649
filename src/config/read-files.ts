import { isUtf8 } from 'node:buffer';
import type * as Crypto from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Diagnostic, error, show, warning } from '../lib/diagnostics.js';
import type { SourceRef } from '../model/desired.js';
import { invalidUtf8, type TextEncodingName } from '../formats/common/text-encoding.js';
import type { EntriesFormat } from '../formats/entries-format.js';
import { extensionOf, formatOfFile, unknownExtensionMessage } from '../formats/registry.js';
import type { BatchArena } from './decode-batch.js';


/** node:crypto, loaded on the first digest: a load that remembers nothing never loads it. */
let crypto: typeof Crypto | undefined;

/** sha256 (hex) of a file's repository-relative path and its bytes (or its text, strictly decoded UTF-8: the same thing). */
export function fileDigest(file: string, content: Buffer | string): string {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto.createHash('sha256').update(file).update('\0').update(content).digest('hex');
}

/** A file's result as the reader hands it back when asked to remember: with the digest of what it read, or only that it was unchanged. */
export interface Digested {
  /** Of the file read (absent when it could not be read). */
  readonly digest?: string;
  /** The digest was the one given: the file was not parsed, the previous result stands. */
  readonly unchanged?: true;
}

/**
 * What a load knows of a file before it reads it (see load-memo.ts): nothing (null), the digest the
 * kept result was made from (the file is read and digested, and not parsed when its digest is that
 * one), or that digest `unread`: the caller vouches the file is unchanged since that result was
 * made (the daemon's watcher reported no change of it), and it is not read at all.
 */
export type Known = string | null | { readonly unread: string };

/** The digest a file is vouched unchanged by (`Known`'s `unread`), if it is. */
export function unreadDigest(known: Known | undefined): string | undefined {
  return typeof known === 'object' && known !== null ? known.unread : undefined;
}

/** Repository-relative path with forward slashes. */
export function relativePath(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}

/** Where an `entries_file` leads: `declared` resolved from the folder of the resource file that declares it. */
export function entriesFilePath(root: string, resourceFile: string, declared: string): string {
  return path.resolve(path.dirname(path.join(root, resourceFile)), declared);
}

function isInside(root: string, absolute: string): boolean {
  const rel = path.relative(root, absolute);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Decodes UTF-8 strictly: invalid bytes are a located error (line, byte column), never U+FFFD. */
function decodeUtf8(bytes: Buffer, file: string, code: string): { text?: string; diagnostic?: Diagnostic } {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8') };
  return { diagnostic: invalidUtf8(bytes, file, code) };
}

function readDescriptor(fd: number, size: number, arena?: BatchArena): Buffer {
  const bytes = arena === undefined ? Buffer.allocUnsafe(size) : arena.take(size);
  let offset = 0;
  while (offset < size) {
    const n = readSync(fd, bytes, offset, size - offset, offset);
    if (n === 0) break;
    offset += n;
  }
  return offset < size ? bytes.subarray(0, offset) : bytes;
}

/**
 * O_NONBLOCK: opening a FIFO for reading would otherwise block the main thread until a writer
 * appears (no signal handler could run). It changes nothing for regular files, and anything that
 * is not a regular file is refused before a byte is read.
 */
const OPEN_READ = constants.O_RDONLY | ((constants.O_NONBLOCK as number | undefined) ?? 0);

/** A file larger than `maxBytes` is refused before it is read, with this rule and message. */
export interface SizeLimit {
  readonly maxBytes: number;
  readonly code: string;
  readonly message: (size: number) => string;
}

export function readTextFile(absolute: string, file: string, code: string, limit?: SizeLimit): { text?: string; diagnostic?: Diagnostic } {
  try {
    // stat first: a FIFO, socket or device named *.yaml is refused without opening it.
    const info = statSync(absolute);
    if (info.isDirectory()) return { diagnostic: error('file/not-a-file', 'a folder, not a file', file, 1, 1) };
    if (!info.isFile()) {
      return { diagnostic: error('file/not-a-file', 'not a regular file (a pipe, socket or device?): only regular files are read', file, 1, 1) };
    }
    const fd = openSync(absolute, OPEN_READ);
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return { diagnostic: error('file/not-a-file', 'not a regular file (a pipe, socket or device?): only regular files are read', file, 1, 1) };
      if (limit !== undefined && info.size > limit.maxBytes) return { diagnostic: error(limit.code, limit.message(info.size), file, 1, 1) };
      return decodeUtf8(readDescriptor(fd, info.size), file, code);
    } finally {
      closeSync(fd);
    }
  } catch (caught) {
    return { diagnostic: error('file/unreadable', `cannot read the file (${(caught as NodeJS.ErrnoException).code ?? 'error'})`, file, 1, 1) };
  }
}

export interface EntriesFileBytes {
  /** The file's bytes, checked to be valid UTF-8 (decoded by the caller, many files at a time). */
  readonly bytes?: Buffer;
  readonly format?: EntriesFormat;
  /** Repository-relative path, when it resolved inside the repository. */
  readonly file?: string;
  readonly diagnostics: Diagnostic[];
}

type Opened = { readonly problem: 'none'; readonly fd: number } | { readonly problem: 'missing' | 'broken-link' | 'link-loop' | 'outside' };

/**
 * Opens a file only if its real location is inside the repository. The folder's real path is
 * cached (one lookup per folder, not per file) and the file itself is opened with O_NOFOLLOW, so
 * the common case costs no extra system call; a symbolic link is resolved and checked.
 */
function openInside(rootReal: string, absolute: string, dirCache: Map<string, string | null>): Opened {
  const dir = path.dirname(absolute);
  let dirReal = dirCache.get(dir);
  if (dirReal === undefined) {
    try {
      dirReal = realpathSync.native(dir);
    } catch {
      dirReal = null;
    }
    dirCache.set(dir, dirReal);
  }
  if (dirReal === null) return { problem: 'missing' };
  const candidate = path.join(dirReal, path.basename(absolute));
  if (!isInside(rootReal, candidate)) return { problem: 'outside' };
  const noFollow = constants.O_NOFOLLOW as number | undefined;
  if (noFollow !== undefined) {
    try {
      return { problem: 'none', fd: openSync(candidate, OPEN_READ | noFollow) };
    } catch (caught) {
      const code = (caught as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { problem: 'missing' };
      if (code !== 'ELOOP') throw caught;
    }
  }
  let real: string;
  try {
    real = realpathSync.native(candidate);
  } catch (caught) {
    // a → b → a: the link exists and is not broken, it never ends.
    if ((caught as NodeJS.ErrnoException).code === 'ELOOP') return { problem: 'link-loop' };
    let link = false;
    try {
      link = lstatSync(candidate).isSymbolicLink();
    } catch {
      // missing altogether
    }
    return { problem: link ? 'broken-link' : 'missing' };
  }
  if (!isInside(rootReal, real)) return { problem: 'outside' };
  return { problem: 'none', fd: openSync(real, OPEN_READ) };
}

/**
 * Resolves and reads an `entries_file`: it must stay inside the repository (no `..` escape, no
 * absolute path, no symlink out), be a .tsv/.csv file of at most 10 MiB (checked with `fstat`
 * before reading) and be valid UTF-8 (unless it declares another `encoding`). Problems point at the
 * `entries_file` line of the resource.
 */
export function readEntriesFile(
  root: string,
  rootReal: string,
  resourceFile: string,
  declared: string,
  at: SourceRef,
  dirCache: Map<string, string | null> = new Map(),
  /** Where a TSV or CSV file's bytes go (see BatchArena); workbooks and TBX files get their own. */
  arena?: BatchArena,
  /** A TSV or CSV file's declared encoding (`encoding`): other than UTF-8, its bytes are decoded by the caller (decodeDeclared). */
  encoding: TextEncodingName = 'utf-8',
): EntriesFileBytes {
  const fail = (code: string, message: string): EntriesFileBytes => ({ diagnostics: [error(code, message, at.file, at.line, at.column)] });
  if (path.isAbsolute(declared) || path.win32.isAbsolute(declared)) {
    return fail('entries-file/outside-repo', `\`entries_file\` ${show(declared)} is an absolute path; give a path relative to the resource file, inside the repository`);
  }
  const absolute = entriesFilePath(root, resourceFile, declared);
  if (!isInside(root, absolute)) return fail('entries-file/outside-repo', `\`entries_file\` ${show(declared)} leaves the repository`);
  const format = formatOfFile(absolute);
  if (format === undefined) return fail('entries-file/extension', unknownExtensionMessage(show(declared), extensionOf(absolute)));
  const file = relativePath(root, absolute);
  const unreadable = (caught: unknown): EntriesFileBytes =>
    fail('entries-file/unreadable', `\`entries_file\` ${show(declared)} cannot be read (${(caught as NodeJS.ErrnoException).code ?? 'error'})`);
  let opened: Opened;
  try {
    opened = openInside(rootReal, absolute, dirCache);
  } catch (caught) {
    return unreadable(caught);
  }
  if (opened.problem === 'missing') return fail('entries-file/missing', `\`entries_file\` ${show(declared)} does not exist (looked for ${file})`);
  if (opened.problem === 'broken-link') return fail('entries-file/missing', `\`entries_file\` ${show(declared)} is a broken symbolic link`);
  if (opened.problem === 'link-loop') return fail('entries-file/unreadable', `\`entries_file\` ${show(declared)} is a symbolic link loop (ELOOP): the link leads back to itself`);
  if (opened.problem !== 'none') return fail('entries-file/outside-repo', `\`entries_file\` ${show(declared)} is a symbolic link that points outside the repository`);
  let bytes: Buffer;
  try {
    const info = fstatSync(opened.fd);
    if (!info.isFile()) return fail('entries-file/not-a-file', `\`entries_file\` ${show(declared)} is not a regular file`);
    if (info.size > format.maxBytes) return fail('entries-file/too-large', format.tooLarge(show(declared), info.size));
    bytes = readDescriptor(opened.fd, info.size, format.content === 'text' ? arena : undefined);
  } catch (caught) {
    return unreadable(caught);
  } finally {
    closeSync(opened.fd);
  }
  // A workbook is binary; a TBX file declares its own encoding (decoded as it is parsed).
  if (format.content === 'bytes') return { bytes, format, file, diagnostics: [] };
  if (encoding !== 'utf-8') return { bytes, format, file, diagnostics: [] };
  if (!isUtf8(bytes)) return { file, diagnostics: [invalidUtf8(bytes, file, 'entries-file/invalid-utf8', true)] };
  return { bytes, format, file, diagnostics: [] };
}

/** Only asked of symbolic links (rare), so the extra system call costs nothing in the usual repository. */
function isLinkLoop(absolute: string): boolean {
  try {
    realpathSync.native(absolute);
    return false;
  } catch (caught) {
    return (caught as NodeJS.ErrnoException).code === 'ELOOP';
  }
}

/**
 * Every `*.yaml`/`*.yml` under the resource folders, repository-relative and sorted. Hidden
 * entries are skipped; symbolic links to folders are not followed (no loops, no escape).
 */
export async function findResourceFiles(root: string, folders: readonly string[], at: SourceRef, exclude: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const found = new Set<string>();
  for (const folder of folders) {
    const absolute = path.resolve(root, folder);
    if (!isInside(root, absolute)) {
      diagnostics.push(error('config/resource-folder-outside', `resource folder ${show(folder)} is outside the repository`, at.file, at.line, at.column));
      continue;
    }
    let entries;
    try {
      entries = await readdir(absolute, { recursive: true, withFileTypes: true });
    } catch {
      diagnostics.push(warning('config/resource-folder-missing', `resource folder ${show(folder)} does not exist: nothing is read from it`, at.file, at.line, at.column));
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (!/\.ya?ml$/i.test(entry.name)) continue;
      const full = path.join(entry.parentPath, entry.name);
      const rel = relativePath(root, full);
      if (rel.split('/').some((part) => part.startsWith('.'))) continue;
      if (rel === exclude) continue;
      if (entry.isSymbolicLink() && isLinkLoop(full)) {
        diagnostics.push(error('file/unreadable', 'cannot read the file: it is a symbolic link loop (ELOOP), the link leads back to itself', rel, 1, 1));
        continue;
      }
      found.add(rel);
    }
  }
  return { files: [...found].sort(), diagnostics };
}
