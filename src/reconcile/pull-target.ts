import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireLock, type HeldLock } from '../apply/lock.js';
import { writtenConceptsErrors, writtenTextErrors, type WrittenDictionary } from '../config/check-written-text.js';
import { InputError, isTermsyncError, type TermsyncError } from '../lib/errors.js';
import { writeInside, type FileToWrite } from '../lib/write-inside.js';
import { declaredV2Names, fetchLive } from '../live/fetch-live.js';
import type { DesiredState, TargetConfig } from '../model/desired.js';
import { hasDrift, type Drift, type DriftNote } from '../model/drift.js';
import type { LiveState } from '../model/live.js';
import { createDrift, dictionariesToPull, ENTRIES_WRITERS, planFileEdits, rewriteResourceYaml, unwritableMessage, type EntriesWriter, type FileEdit } from '../pull/index.js';
import type { ServiceContext } from './open-client.js';
import type { TargetFailure } from './outcome.js';
import { withTargetClient } from './reconcile-target.js';
import { loadDesired } from './load-desired.js';

/** What `pull` did for one target: values, no exit codes. */
export type PullOutcome =
  /** `--check`: the drift, nothing written. */
  | { readonly kind: 'checked'; readonly target: string; readonly drift: Drift }
  /**
   * The files were rewritten (`written`, repository-relative; empty when nothing differed).
   * `notes`: differences left alone, and why. `remaining`: resources a plan would still change
   * (empty unless pull could not express something).
   */
  | {
      readonly kind: 'pulled';
      readonly target: string;
      readonly drift: Drift;
      readonly written: readonly string[];
      readonly notes: readonly DriftNote[];
      readonly remaining: readonly string[];
      /** Errors validate reports in the repository as written (none unless a check before writing missed one). */
      readonly errorsAfter?: number;
    }
  /** Another run holds the repository's lock: nothing was written. */
  | { readonly kind: 'locked'; readonly target: string; readonly error: TermsyncError }
  /**
   * What pull would write cannot be written: values of the service the files cannot hold, files
   * validate would refuse, a path that leads out of the repository, a write that failed. Nothing
   * was written; `problems` lists each (located on the service, or in the file as it would be).
   */
  | { readonly kind: 'unwritable'; readonly target: string; readonly error: TermsyncError; readonly problems?: readonly string[] }
  | TargetFailure;

export interface PullRequest {
  readonly desired: DesiredState;
  readonly target: TargetConfig;
  /** Only report the drift. */
  readonly check?: boolean;
  /** Default: TSV and CSV. */
  readonly writers?: readonly EntriesWriter[];
  /** Hold the repository's lock while writing (default true; the daemon holds its own run). */
  readonly lock?: boolean;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** A file as pull would write it: its content, the pairs of the entries it feeds, and what it leaves alone. */
interface NewContent {
  readonly write: FileToWrite;
  readonly dictionaries: readonly WrittenDictionary[];
  /** A multilingual file: how the loader reads it (checked that way before it is written). */
  readonly concepts?: Extract<FileEdit, { kind: 'concepts' }>;
}

/**
 * The new content of each file an edit touches, with the pairs of the entries it feeds; files that
 * would not change are left out. A new entries file is created, never written over one. `notes`
 * receives the entries a multilingual file's writer leaves as they are.
 */
async function newContents(root: string, edits: readonly FileEdit[], notes: DriftNote[]): Promise<NewContent[]> {
  const out: NewContent[] = [];
  for (const edit of edits) {
    const absolute = path.join(root, edit.file);
    if (edit.kind === 'new_entries') {
      out.push({ write: { path: edit.file, content: await edit.writer.create(edit.dictionaries), mode: 'create' }, dictionaries: edit.dictionaries });
      continue;
    }
    const old = await readFile(absolute);
    if (edit.kind === 'concepts') {
      const writer = await (edit.format.conceptsWriter as NonNullable<typeof edit.format.conceptsWriter>).load();
      const { bytes, refused } = await writer.rewrite(old, edit.request);
      for (const reason of refused) notes.push({ kind: 'glossary', name: edit.glossary, file: edit.resourceFile, reason });
      if (!sameBytes(old, bytes)) out.push({ write: { path: edit.file, content: bytes, mode: 'replace' }, dictionaries: [], concepts: edit });
      continue;
    }
    const bytes = edit.kind === 'entries' ? await edit.writer.rewrite(old, edit.dictionaries) : Buffer.from(rewriteResourceYaml(old.toString('utf8'), edit.edit), 'utf8');
    if (!sameBytes(old, bytes)) out.push({ write: { path: edit.file, content: bytes, mode: 'replace' }, dictionaries: edit.kind === 'entries' ? edit.dictionaries : [] });
  }
  return out;
}

/** The errors validate would report in the files as pull would write them, each located in its file (`file:line:col: [code] message`). */
async function invalidContents(contents: readonly NewContent[]): Promise<string[]> {
  const found = await Promise.all(
    contents.map(async ({ write, dictionaries, concepts }) =>
      concepts === undefined ? writtenTextErrors(write.path, Buffer.from(write.content).toString('utf8'), dictionaries) : await writtenConceptsErrors(write.path, write.content as Uint8Array, concepts.request.source),
    ),
  );
  return found.flat().map((d) => `${d.file}:${d.cell ?? `${d.line}:${d.column}`}: [${d.code}] ${d.message}`);
}

/**
 * Writes every file or none, inside the repository (writeInside): a path that leads out of it is
 * refused before anything is written, and a write that fails removes what was written.
 */
async function writeAll(root: string, contents: readonly FileToWrite[]): Promise<TermsyncError | undefined> {
  try {
    await writeInside(root, contents);
    return undefined;
  } catch (error) {
    if (isTermsyncError(error)) return error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') throw error;
    return new InputError('pull_write_failed', `pull could not write the repository's files (${code}); nothing was written`);
  }
}

function remainingOf(drift: Drift): string[] {
  return [...drift.glossaries.map((g) => `glossary "${g.declared.name}"`), ...drift.styleRules.map((s) => `style rule list "${s.declared.name}"`)];
}

/**
 * Adopts what changed on the service: reads every dictionary of the declared glossaries and every
 * style rule list, and rewrites the repository's files so the next plan shows no changes (pure
 * edits from `pull/`, written all at once). Resources only on the service are left to `import`.
 * The written repository is read again and compared with the same live state, so a difference pull
 * could not express is reported, never hidden.
 */
export async function pullTarget(request: PullRequest, ctx: ServiceContext): Promise<PullOutcome> {
  const { desired, target } = request;
  const stop = ctx.stop ?? ctx.signal;
  if (stop.aborted) return { kind: 'interrupted', target: target.name };
  const read = await withTargetClient(ctx, desired, target, async (client): Promise<{ live: LiveState }> => ({
    live: await fetchLive(client, (glossaries) => dictionariesToPull(desired, glossaries), declaredV2Names(desired)),
  }));
  if ('kind' in read) return read;
  const { live } = read;
  const drift = createDrift(target.name, desired, live);
  if (request.check === true) return { kind: 'checked', target: target.name, drift };
  const planned = planFileEdits(drift, (file) => existsSync(path.join(desired.root, file)), request.writers ?? ENTRIES_WRITERS, desired.config.pull);
  const { edits, unwritable } = planned;
  const notes = [...planned.notes];
  // Nothing to write: in sync, or every difference is one pull leaves alone (each has its note).
  if (!hasDrift(drift) || edits.length === 0) return { kind: 'pulled', target: target.name, drift, written: [], notes, remaining: [] };
  // Values the files cannot hold: refused before anything is written, each named on the service.
  if (unwritable.length > 0) {
    return { kind: 'unwritable', target: target.name, error: new InputError('pull_unwritable', unwritableMessage('pull', unwritable.length)), problems: unwritable };
  }

  let lock: HeldLock | undefined;
  if (request.lock ?? true) {
    try {
      lock = await acquireLock(desired.root);
    } catch (error) {
      if (isTermsyncError(error) && error.code === 'locked') return { kind: 'locked', target: target.name, error };
      throw error;
    }
  }
  let written: string[];
  try {
    const contents = await newContents(desired.root, edits, notes);
    // The files as they would be written, by validate's rules for each: never a repository it refuses.
    const invalid = await invalidContents(contents);
    if (invalid.length > 0) {
      return { kind: 'unwritable', target: target.name, error: new InputError('pull_unwritable', unwritableMessage('pull', invalid.length, 'files')), problems: invalid };
    }
    const failed = await writeAll(desired.root, contents.map((c) => c.write));
    if (failed !== undefined) return { kind: 'unwritable', target: target.name, error: failed };
    written = contents.map((c) => c.write.path);
  } finally {
    await lock?.release();
  }
  const reread = await loadDesired(desired.root, path.join(desired.root, desired.configFile));
  const errorsAfter = reread.diagnostics.filter((d) => d.severity === 'error').length;
  const remaining = reread.desired === undefined ? [`the repository has errors after pull (${errorsAfter}): run validate`] : remainingOf(createDrift(target.name, reread.desired, live));
  return { kind: 'pulled', target: target.name, drift, written, notes, remaining, ...(errorsAfter > 0 ? { errorsAfter } : {}) };
}
