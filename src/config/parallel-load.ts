import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadResourceFile, type RepositoryRoot, type ResourceOutcome } from './load-resources.js';
import { readEntriesBatch, type EntriesJob, type EntriesOutcome } from './read-entries.js';

/** Resource files parsed between two turns of the event loop. */
const RESOURCE_BATCH = 10;

/** Entries files per batch: a batch is read by one thread, its files decoded together. */
export const ENTRIES_BATCH = 20;

/** Below this many entries files, a second thread costs more to start than it saves. */
export const PARALLEL_MIN_FILES = 5 * ENTRIES_BATCH;

/** Batches handed to the worker ahead of time, so that it never waits for the main thread. */
const WORKER_AHEAD = 8;

/** The compiled worker; absent when the loader runs from the TypeScript sources (tests): then all runs here. */
const WORKER_FILE = fileURLToPath(new URL('./load-worker.js', import.meta.url));

export interface BatchRequest {
  readonly id: number;
  readonly jobs: readonly EntriesJob[];
}

/** An entries outcome as it crosses threads: its entries are the range [start, end) of the batch's `packed`. */
interface WireEntries extends Omit<EntriesOutcome, 'entries' | 'verbatim'> {
  readonly packed?: readonly [start: number, end: number];
}

export interface BatchReply {
  readonly id: number;
  readonly outcomes: readonly WireEntries[];
  /** The entries of every file of the batch, packed (see packBatch). */
  readonly packed: string;
}

/**
 * The entries of a batch as one string of `source TAB target LF` lines: one clone across threads
 * instead of two per entry, and one large string instead of thousands of small ones for the
 * garbage collector. Canonical phrases never hold a tab or a line break (EntryCollector rejects
 * them), so the packing is unambiguous. A file whose entries are its own lines is sent as it is.
 */
export function packBatch(outcomes: readonly EntriesOutcome[]): Omit<BatchReply, 'id'> {
  const parts: string[] = [];
  let length = 0;
  const wire = outcomes.map(({ entries, verbatim, ...rest }): WireEntries => {
    if (entries === undefined) return rest;
    const start = length;
    if (verbatim !== undefined) {
      parts.push(verbatim);
      length += verbatim.length;
      if (verbatim.length > 0 && !verbatim.endsWith('\n')) {
        parts.push('\n');
        length++;
      }
    } else {
      for (const [source, target] of entries) {
        parts.push(source, '\t', target, '\n');
        length += source.length + target.length + 2;
      }
    }
    return { ...rest, packed: [start, length] };
  });
  return { outcomes: wire, packed: parts.join('') };
}

export function unpackEntries(packed: string, start: number, end: number): Map<string, string> {
  const entries = new Map<string, string>();
  for (let at = start; at < end; ) {
    const tab = packed.indexOf('\t', at);
    const lineEnd = packed.indexOf('\n', tab);
    entries.set(packed.slice(at, tab), packed.slice(tab + 1, lineEnd));
    at = lineEnd + 1;
  }
  return entries;
}

/** The outcomes of a batch as the worker read them (the inverse of packBatch). */
export function unpackBatch({ outcomes, packed }: Omit<BatchReply, 'id'>): EntriesOutcome[] {
  return outcomes.map(({ packed: range, ...rest }) => (range === undefined ? rest : { ...rest, entries: unpackEntries(packed, range[0], range[1]) }));
}

export interface LoadResourcesOptions {
  /** Read entries files in a worker thread too: `undefined` decides by the number of files and of CPUs. */
  readonly parallel?: boolean;
  /** Awaited between batches, so that timers and sockets keep running. */
  readonly yieldToEventLoop: () => Promise<void>;
  /** Called for each batch of entries files read, with the thread that read it (for tests and metrics). */
  readonly onBatch?: (thread: 'main' | 'worker', files: number) => void;
  /** The worker's module (tests); by default the compiled load-worker.js next to this module. */
  readonly workerFile?: string;
}

/**
 * Loads resource files with their entries files, outcomes in the order of `files`. The main thread
 * parses the YAML; entries files are queued in batches as their resources are parsed. With many
 * files and more than one CPU, a worker thread reads batches from that queue while the main thread
 * still parses YAML, then both read from it. Once the queue is empty, the main thread takes back
 * the batches handed to the worker and not delivered yet: it never waits for the worker, and a
 * worker that cannot start or crashes costs only the time of the batches it held.
 */
export async function loadResources(repo: RepositoryRoot, files: readonly string[], dirCache: Map<string, string | null>, options: LoadResourcesOptions): Promise<ResourceOutcome[]> {
  const batches: EntriesJob[][] = [];
  const results: (EntriesOutcome[] | undefined)[] = [];
  let pending: EntriesJob[] = [];
  let queued = 0;
  const seal = (): void => {
    if (pending.length === 0) return;
    batches.push(pending);
    pending = [];
  };
  let next = 0;
  const take = (): number | undefined => (next < batches.length ? next++ : undefined);
  let worker: RunningWorker | undefined;
  const workerFile = options.workerFile ?? WORKER_FILE;
  const feed = (): void => {
    if (worker === undefined && options.parallel !== false && next < batches.length && existsSync(workerFile)) {
      if (options.parallel === true || (queued >= PARALLEL_MIN_FILES && availableParallelism() > 1)) worker = startWorker(workerFile, batches, results, options.onBatch);
    }
    worker?.feed(take);
  };

  const loaded = [];
  try {
    for (const [i, file] of files.entries()) {
      if (i > 0 && i % RESOURCE_BATCH === 0) {
        feed();
        await options.yieldToEventLoop();
      }
      const resource = loadResourceFile(repo, file);
      loaded.push(resource);
      for (const job of resource.jobs) {
        pending.push(job);
        queued++;
        if (pending.length === ENTRIES_BATCH) seal();
      }
    }
    seal();
    feed();
    for (let index = take() ?? worker?.takeBack(); index !== undefined; index = take() ?? worker?.takeBack()) {
      results[index] = readEntriesBatch(batches[index] as EntriesJob[], dirCache);
      options.onBatch?.('main', (batches[index] as EntriesJob[]).length);
      await options.yieldToEventLoop();
      worker?.feed(take);
    }
  } finally {
    await worker?.stop();
  }
  // `verbatim` served the packing only: without it, outcomes do not depend on the thread that read them.
  const outcomes = results.flatMap((r) => r ?? []).map(({ verbatim: _, ...outcome }) => outcome);
  let at = 0;
  return loaded.map(({ jobs, ...rest }) => ({ ...rest, entries: outcomes.slice(at, (at += jobs.length)) }));
}

interface RunningWorker {
  /** Hands the worker batches until it holds WORKER_AHEAD undelivered ones. */
  feed(take: () => number | undefined): void;
  /** The last batch handed to the worker and not delivered yet, which the caller now reads itself. */
  takeBack(): number | undefined;
  stop(): Promise<void>;
}

function startWorker(
  file: string,
  batches: readonly (readonly EntriesJob[])[],
  results: (EntriesOutcome[] | undefined)[],
  onBatch: LoadResourcesOptions['onBatch'],
): RunningWorker {
  // No inherited flags: the worker needs none, and some would stop it (`--input-type` with `-e`).
  const worker = new Worker(file, { execArgv: [] });
  worker.unref();
  const handed: number[] = [];
  let failed = false;
  worker.on('message', (reply: BatchReply) => {
    const at = handed.indexOf(reply.id);
    if (at === -1) return; // taken back meanwhile: the main thread has read it
    handed.splice(at, 1);
    results[reply.id] = unpackBatch(reply);
    onBatch?.('worker', reply.outcomes.length);
  });
  const fail = (): void => {
    failed = true;
  };
  worker.on('error', fail);
  worker.on('messageerror', fail);
  worker.on('exit', fail);
  return {
    feed(take) {
      while (!failed && handed.length < WORKER_AHEAD) {
        const id = take();
        if (id === undefined) return;
        handed.push(id);
        const request: BatchRequest = { id, jobs: batches[id] as EntriesJob[] };
        worker.postMessage(request);
      }
    },
    takeBack() {
      return handed.pop();
    },
    async stop() {
      worker.removeAllListeners();
      await worker.terminate();
    },
  };
}
