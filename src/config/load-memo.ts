import { PackedEntries } from '../model/packed-entries.js';
import type { LoadedResource, RepositoryRoot } from './load-resources.js';
import { packBatch, unpackBatch, type WireEntries } from './entries-wire.js';
import type { EntriesJob, EntriesOutcome } from './read-entries.js';
import { entriesFilePath, relativePath, type Digested, type Known } from './read-files.js';

/*
 * Incremental reload (the daemon reads the repository again after every change, which usually
 * touches one file): a load may be given what the previous load of the same repository produced,
 * and then parses again only the files whose bytes changed. This module is the one owner of what
 * may be reused; the readers only compute a file's digest and compare it with the one they are
 * given (on either thread), and the loader asks here what to give them.
 *
 * Why reusing a file's result is sound, and what is compared:
 *
 * - A resource file's result (LoadedResource: its draft, its diagnostics, the entries jobs derived
 *   from the draft) is a function of the repository's root (as given and as resolved), of its
 *   repository-relative path, and of its bytes: validateResource reads nothing but the parsed YAML,
 *   and never the project config (nor does any reader of a file read the environment or the clock). The root is compared once per load (LoadMemo.usableFor); the
 *   path is the memo's key, and the digest covers the path and the bytes, computed on the bytes
 *   that are parsed when they are parsed (never mtime or size: an edit within the same second is
 *   seen). The check that the file does not lead outside the repository runs before it is read,
 *   on every load.
 * - An entries file's result (EntriesOutcome) is a function of its job (resource file, declared
 *   path, the `entries_file` position, language pair(s), languages, glossary level, reading
 *   options: everything the resource says about it, and the root), of the file it resolved to, of
 *   its bytes, and of whether entries are deferred. The whole job is the memo's key (a resource
 *   that now declares another pair, format or option makes another job, so nothing is reused);
 *   the digest covers the resolved path and the bytes; deferral is compared once per load.
 * - Only results without any diagnostic are kept: a file with an error or a warning is always
 *   read again, so every diagnostic of a load comes from a fresh read and the order is the same.
 * - What spans files is never kept: the project config is read and validated on every load, the
 *   resource folders are listed again, and the repository-wide checks (names, references) and the
 *   assembly of each glossary from its entries run again on reused and fresh results alike.
 * - Reused results are handed out as new objects for what has state of its own (PackedEntries
 *   build indexes on use; deferred entries are bound to this load's job): their texts, and the
 *   rest of a draft (read-only data), are shared, never copied. A memo holds one copy of the
 *   repository's entries, the one the load's desired state holds: the daemon replaces it after
 *   each load, so a changed file's old entries live only until the load that read it again ends.
 *   Entries files are then decoded in small groups, not joined per batch (see ReadEntriesOptions.known,
 *   MEMO_GROUP_BYTES): a kept text holds on to at most the few other files of its group (their old
 *   texts outlive an edit until each of them is read again), never to its whole batch.
 *
 * Files vouched unchanged (LoadOptions.vouched): the daemon's file watcher reports every change of
 * the files it watches, so that a file it reported no change of since the load that kept a result
 * began is the file that load read. Such a file is not read at all: its kept result is taken as if
 * the reader had found its digest unchanged (the listing of the folders, the project config and
 * every check across files still run on each load). The caller vouches only for what its watcher
 * saw from before that load began without a break, and only for a run a change started; the
 * daemon's full runs (start-up, schedule, SIGHUP, retries) read every file as above.
 */

interface KeptResource {
  readonly digest: string;
  readonly loaded: LoadedResource;
}

interface KeptEntries {
  readonly digest: string;
  readonly wire: WireEntries;
}

/** What a load kept of its files for the next load of the same repository (LoadOptions.previous). */
export class LoadMemo {
  constructor(
    private readonly repo: RepositoryRoot,
    private readonly defer: boolean,
    /** By repository-relative path. */
    readonly resources: ReadonlyMap<string, KeptResource>,
    /** By entriesKey of the job. */
    readonly entries: ReadonlyMap<string, KeptEntries>,
    /**
     * Files of the load that made it, taken from the memo before it and read: each resource file, and
     * each entries job (a file two dictionaries name counts twice; a missing one counts as read).
     */
    readonly reused: number,
    readonly read: number,
    /** Of the reused, those taken without reading the file (vouched unchanged, LoadOptions.vouched). */
    readonly unread = 0,
  ) {}

  /** Whether a load of this root (with or without deferred entries) may reuse these results. */
  usableFor(repo: RepositoryRoot, defer: boolean): boolean {
    return repo.root === this.repo.root && repo.rootReal === this.repo.rootReal && defer === this.defer;
  }
}

/** Keys of the jobs seen: a reused resource's jobs are the very objects of the load that kept it. */
const keys = new WeakMap<EntriesJob, string>();

/** An entries job as a key: every field (root, resource file, declaration, pairs, options…) counts. */
function entriesKey(job: EntriesJob): string {
  let key = keys.get(job);
  if (key === undefined) {
    key = JSON.stringify(job);
    keys.set(job, key);
  }
  return key;
}

function withoutDigest<T extends Digested>(result: T): Omit<T, 'digest' | 'unchanged'> {
  const { digest: _, unchanged: __, ...rest } = result;
  return rest;
}

/**
 * One load's reuse: the digests to hand the readers, the previous results for the files they
 * answer unchanged, and the memo for the next load (fresh results without diagnostics, and the
 * reused ones). Lives on the main thread only.
 */
export class FileReuse {
  private readonly resources = new Map<string, KeptResource>();
  private readonly entries = new Map<string, KeptEntries>();
  private reused = 0;
  private read = 0;
  /** Keys (a resource file, an entries job's key) handed out `unread`, and how many of them were answered unchanged. */
  private readonly handedUnread = new Set<string>();
  private unread = 0;
  private readonly previous: LoadMemo | undefined;

  constructor(
    private readonly repo: RepositoryRoot,
    private readonly defer: boolean,
    previous: LoadMemo | undefined,
    /** Repository-relative files vouched unchanged since `previous` was made: not read (LoadOptions.vouched). */
    private readonly vouched?: (file: string) => boolean,
  ) {
    this.previous = previous?.usableFor(repo, defer) === true ? previous : undefined;
  }

  /** What a file is known by: its kept result's digest, `unread` when the file (`file()`) is vouched unchanged. */
  private known(key: string, file: () => string, digest: string | undefined): Known {
    if (digest === undefined || this.vouched?.(file()) !== true) return digest ?? null;
    this.handedUnread.add(key);
    return { unread: digest };
  }

  /** The digest a resource file had when its result was kept, if it was. */
  knownResource(file: string): Known {
    return this.known(file, () => file, this.previous?.resources.get(file)?.digest);
  }

  /** The resource as this load has it: the previous result when the reader found the file unchanged. */
  resource(loaded: LoadedResource & Digested): LoadedResource {
    if (loaded.unchanged === true) {
      const kept = this.previous?.resources.get(loaded.file);
      if (kept === undefined || kept.digest !== loaded.digest) throw new Error(`resource file ${loaded.file} was answered unchanged without a kept result`);
      this.resources.set(loaded.file, kept);
      this.reused++;
      if (this.handedUnread.has(loaded.file)) this.unread++;
      return freshResource(kept.loaded);
    }
    this.read++;
    const result = withoutDigest(loaded);
    // Kept as objects of its own: the inline entries this load hands out build indexes as they are used.
    if (loaded.digest !== undefined && result.diagnostics.length === 0) this.resources.set(loaded.file, { digest: loaded.digest, loaded: freshResource(result) });
    return result;
  }

  knownEntries(job: EntriesJob): Known {
    const key = entriesKey(job);
    const digest = this.previous?.entries.get(key)?.digest;
    // The file as readEntriesFile resolves it (an absolute or escaping path is never kept).
    return this.known(`\0${key}`, () => relativePath(job.root, entriesFilePath(job.root, job.resourceFile, job.declared)), digest);
  }

  /** The outcome of an entries job as this load has it (see `resource`); `dirCache`: this load's, for deferred entries. */
  entriesOutcome(job: EntriesJob, outcome: EntriesOutcome & Digested, dirCache: Map<string, string | null>): EntriesOutcome {
    const key = entriesKey(job);
    if (outcome.unchanged === true) {
      const kept = this.previous?.entries.get(key);
      if (kept === undefined || kept.digest !== outcome.digest) throw new Error(`entries file ${outcome.file ?? job.declared} was answered unchanged without a kept result`);
      this.entries.set(key, kept);
      this.reused++;
      if (this.handedUnread.has(`\0${key}`)) this.unread++;
      return { ...(unpackBatch({ outcomes: [kept.wire] }, [job], dirCache)[0] as EntriesOutcome), diagnostics: [] };
    }
    this.read++;
    const result = withoutDigest(outcome);
    if (outcome.digest !== undefined && result.diagnostics.length === 0 && (result.entries !== undefined || result.dictionaries !== undefined)) {
      this.entries.set(key, { digest: outcome.digest, wire: packBatch([result]).outcomes[0] as WireEntries });
    }
    return result;
  }

  /** The memo for the next load. */
  finish(): LoadMemo {
    return new LoadMemo(this.repo, this.defer, this.resources, this.entries, this.reused, this.read, this.unread);
  }
}

/** A kept resource as a result of its own: new inline entries (their text shared), the rest read-only and shared. */
function freshResource(loaded: LoadedResource): LoadedResource {
  if (loaded.resource?.kind !== 'glossary') return { ...loaded, diagnostics: [] };
  const dictionaries = loaded.resource.dictionaries.map((d) => (d.entries === undefined ? d : { ...d, entries: PackedEntries.fromWire({ text: d.entries.text, size: d.entries.size, controlFree: d.entries.controlFree }) }));
  return { ...loaded, diagnostics: [], resource: { ...loaded.resource, dictionaries } };
}
