import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';
import { loadResourceFile, withNullPrototypes, type LoadedResource, type RepositoryRoot, type ResourceOutcome } from './load-resources.js';
import { TermsyncError } from '../lib/errors.js';
import type { FileReuse } from './load-memo.js';
import { Interrupted } from '../formats/common/interrupted.js';
import type { Digested, Known } from './read-files.js';
import { unpackBatch, type WireBatch } from './entries-wire.js';
import { readEntriesBatch, type EntriesJob, type EntriesOutcome } from './read-entries.js';

/** Resource files per batch: parsed by one thread, between two turns of the event loop. */
const RESOURCE_BATCH = 10;

/** Entries files per batch: read by one thread, their files decoded together. */
const ENTRIES_BATCH = 20;

/**
 * A worker thread takes 0.2-0.4 s to start (it loads the YAML and schema libraries), so it is
 * started only when the work left, estimated from the batches done so far, is larger than this.
 * Those batches run cold (unoptimised code), so the estimate is high: measured, 400 resource files
 * of 50 entries (0.4 s of work, estimated at about 0.6 s) load faster on one thread; 1000
 * glossaries of 2,000 entries load faster on two.
 */
export const PARALLEL_MIN_WORK_MS = 1000;

/** Idle CPUs (on average, measured while the load ran) a worker thread needs besides the main thread's. */
export const MIN_FREE_CPUS = 0.8;

/** What the decision knows of the machine: CPUs this process may use, the 1-minute load average, idle CPUs now. */
export interface MachineState {
  readonly cpus: number;
  readonly load: number;
  /**
   * CPUs that other processes and this process's main thread left on average since the load
   * started (freeBesideMain), when measured over long enough to tell; it is what a worker thread
   * would actually get, where the load average lags by a minute.
   */
  readonly free?: number;
}

/** CPU time counters, in milliseconds: every CPU's idle time summed (system-wide), and this process's CPU time (all its threads). */
export interface CpuCounters {
  readonly idleMs: number;
  readonly ownMs: number;
}

/**
 * CPUs left for a worker thread on average between two readings `elapsedMs` apart, on a machine of
 * `cpus` CPUs: those that other processes did not use, less the one the main thread keeps busy.
 * What this process itself used beside its main thread (V8's compiler and garbage collector
 * threads, a few tenths of a CPU while a large load runs) is not counted as taken: a worker shares
 * those CPUs with work of this very load. Counted as taken (as idle time alone would count it), it
 * read as 0.6-0.7 CPUs on an otherwise idle two-CPU machine, below MIN_FREE_CPUS, and a large load
 * ran on one thread there.
 */
export function freeBesideMain(cpus: number, before: CpuCounters, after: CpuCounters, elapsedMs: number): number {
  const others = Math.max(0, cpus * elapsedMs - (after.idleMs - before.idleMs) - (after.ownMs - before.ownMs)) / elapsedMs;
  return Math.max(0, cpus - others - 1);
}

/**
 * Whether a worker thread can make the rest of a load faster: the work left is worth its start-up,
 * and a CPU is actually free for it besides the one the main thread keeps busy. On a machine that
 * other processes keep busy, a second thread only competes with the first and slows the load down.
 */
export function worthAWorker(estimatedMs: number, cpus: number, load: number, free?: number): boolean {
  if (estimatedMs <= PARALLEL_MIN_WORK_MS || cpus < 2) return false;
  return free === undefined ? cpus - load >= 1.5 : free >= MIN_FREE_CPUS;
}

/** After deciding against a worker thread, the decision is made again at most this often. */
const ASK_AGAIN_MS = 250;

/** System-wide CPU time counters are in ticks of 10 ms: idle time is measured only over this much wall time per CPU at least. */
const MIN_IDLE_WINDOW_MS = 100;

/**
 * Milliseconds from an arbitrary start, never going back: process.hrtime, not the global
 * `performance`, whose first use loads Node's performance timing modules (about a dozen, a
 * millisecond or more of a short validate).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * The machine as the decision sees it: the first call takes a snapshot of the CPU time counters,
 * each later one measures the CPUs left for a worker since then (freeBesideMain).
 */
export function machineSampler(now: () => number, counters: () => CpuCounters & { readonly cpus: number } = cpuCounters): () => MachineState {
  let start: { readonly at: number; readonly counters: CpuCounters } | undefined;
  return () => {
    const state = { cpus: availableParallelism(), load: loadavg()[0] ?? 0 };
    const at = now();
    if (start === undefined) {
      start = { at, counters: counters() };
      return state;
    }
    const elapsed = at - start.at;
    if (elapsed < MIN_IDLE_WINDOW_MS) return state;
    const read = counters();
    return { ...state, free: Math.min(state.cpus - 1, freeBesideMain(read.cpus, start.counters, read, elapsed)) };
  };
}

/** The machine's CPU time counters now (see CpuCounters), with its number of CPUs (all of them: the idle times are of all). */
function cpuCounters(): CpuCounters & { readonly cpus: number } {
  const all = cpus();
  const own = process.cpuUsage();
  return { cpus: all.length, idleMs: all.reduce((sum, cpu) => sum + cpu.times.idle, 0), ownMs: (own.user + own.system) / 1000 };
}

/** Within a batch of slow resource files, the main thread listens for a signal after each file once this much time has passed. */
const SIGNAL_CHECK_MS = 200;

/** Batches handed to the worker ahead of time, so that it never waits for the main thread. */
const WORKER_AHEAD = 4;

/** The compiled worker; absent when the loader runs from the TypeScript sources (tests): then all runs here. */
const WORKER_FILE = fileURLToPath(new URL('./load-worker.js', import.meta.url));

/** Work for the worker: parse resource files, or read entries files. */
export type BatchRequest =
  | { readonly kind: 'resources'; readonly id: number; readonly files: readonly string[]; readonly known?: readonly Known[] }
  | { readonly kind: 'entries'; readonly id: number; readonly jobs: readonly EntriesJob[]; readonly defer: boolean; readonly known?: readonly Known[] };

export interface EntriesReply extends WireBatch {
  readonly kind: 'entries';
  readonly id: number;
}

export interface ResourcesReply {
  readonly kind: 'resources';
  readonly id: number;
  readonly loaded: readonly LoadedResource[];
}

export type BatchReply = EntriesReply | ResourcesReply;

export interface LoadResourcesOptions {
  /** Use a worker thread too: `undefined` decides by the number of files and of CPUs. */
  readonly parallel?: boolean;
  /** Awaited between batches, so that timers and sockets keep running. */
  readonly yieldToEventLoop: () => Promise<void>;
  /** Called for each batch done, with the thread that did it and its number of files (for tests and metrics). */
  readonly onBatch?: (thread: 'main' | 'worker', kind: 'resources' | 'entries', files: number) => void;
  /** The worker's module (tests); by default the compiled load-worker.js next to this module. */
  readonly workerFile?: string;
  /** CPUs, load average and idle CPUs (tests); by default the machine's, read at the start and when the decision is made. */
  readonly machine?: () => MachineState;
  /** Aborted (SIGINT/SIGTERM): the load stops after the batch in hand, the worker is terminated. */
  readonly signal?: AbortSignal;
  /** Keep deferred entries (see ReadEntriesOptions.defer). */
  readonly deferEntries?: boolean;
  /** The clock that times the batches, in milliseconds (tests); by default monotonicMs. */
  readonly clock?: () => number;
  /** The load remembers its files and reuses the previous load's results (see load-memo.ts). */
  readonly reuse?: FileReuse;
}

/** The error of a load stopped by its signal: exit 130, like every interrupted run. */
export function loadInterrupted(signal: AbortSignal): TermsyncError {
  const reason = signal.reason instanceof Error ? ` (${signal.reason.message})` : '';
  return new TermsyncError('interrupted', `interrupted while reading the repository${reason}: nothing was sent`);
}

/**
 * The work of a load: batches of resource files to parse, and batches of entries files to read,
 * queued as the resources naming them are parsed. Results are kept by batch; entries jobs by the
 * order in which their resources arrived, which need not be the order of the files.
 */
class Work {
  readonly resourceBatches: (readonly string[])[] = [];
  readonly resourceResults: (readonly LoadedResource[] | undefined)[] = [];
  /** Every entries job queued so far; an entries batch is a range of it. */
  readonly jobs: EntriesJob[] = [];
  readonly entriesBatches: { readonly start: number; readonly end: number }[] = [];
  readonly entriesResults: (readonly EntriesOutcome[] | undefined)[] = [];
  /** Index in `jobs` of each resource file's first job, by file index. */
  readonly firstJob: number[] = [];
  private sealed = 0;
  nextResources = 0;
  nextEntries = 0;

  constructor(
    files: readonly string[],
    /** See LoadResourcesOptions.reuse: every result of either thread goes through it. */
    private readonly reuse: FileReuse | undefined,
    /** The main thread's folders, for deferred entries reused. */
    private readonly dirCache: Map<string, string | null>,
  ) {
    for (let i = 0; i < files.length; i += RESOURCE_BATCH) this.resourceBatches.push(files.slice(i, i + RESOURCE_BATCH));
  }

  resourcesDoneCount = 0;

  /** The resource files of a batch, with the digests they are known by when the load reuses results. */
  resourcesRequest(id: number): { readonly files: readonly string[]; readonly known?: readonly Known[] } {
    const files = this.resourceBatches[id] as string[];
    const reuse = this.reuse;
    return reuse === undefined ? { files } : { files, known: files.map((file) => reuse.knownResource(file)) };
  }

  /** The entries jobs of a batch, with the digests (see resourcesRequest). */
  entriesRequest(id: number): { readonly jobs: readonly EntriesJob[]; readonly known?: readonly Known[] } {
    const batch = this.entriesBatches[id] as { start: number; end: number };
    const jobs = this.jobs.slice(batch.start, batch.end);
    const reuse = this.reuse;
    return reuse === undefined ? { jobs } : { jobs, known: jobs.map((job) => reuse.knownEntries(job)) };
  }

  /** Records a parsed batch of resources and queues their entries files. */
  resourcesDone(id: number, batch: readonly (LoadedResource & Digested)[]): void {
    const reuse = this.reuse;
    const loaded = reuse === undefined ? batch : batch.map((resource) => reuse.resource(resource));
    this.resourceResults[id] = loaded;
    this.resourcesDoneCount++;
    for (const [k, resource] of loaded.entries()) {
      this.firstJob[id * RESOURCE_BATCH + k] = this.jobs.length;
      this.jobs.push(...resource.jobs);
    }
    while (this.jobs.length - this.sealed >= ENTRIES_BATCH) this.seal(this.sealed + ENTRIES_BATCH);
    // The last jobs form a smaller batch once no resource is left to parse.
    if (this.resourcesDoneCount === this.resourceBatches.length && this.sealed < this.jobs.length) this.seal(this.jobs.length);
  }

  entriesDone(id: number, outcomes: readonly (EntriesOutcome & Digested)[]): void {
    const reuse = this.reuse;
    if (reuse === undefined) {
      this.entriesResults[id] = outcomes;
      return;
    }
    const start = (this.entriesBatches[id] as { start: number }).start;
    this.entriesResults[id] = outcomes.map((outcome, k) => reuse.entriesOutcome(this.jobs[start + k] as EntriesJob, outcome, this.dirCache));
  }

  takeResources(): number | undefined {
    return this.nextResources < this.resourceBatches.length ? this.nextResources++ : undefined;
  }

  takeEntries(): number | undefined {
    return this.nextEntries < this.entriesBatches.length ? this.nextEntries++ : undefined;
  }

  /** The outcomes in the order of the files. */
  outcomes(): ResourceOutcome[] {
    const all: ResourceOutcome[] = [];
    for (const [id, loaded] of this.resourceResults.entries()) {
      if (loaded === undefined) throw new Error(`resource batch ${id} of the load has no outcome`);
      for (const [k, { jobs, ...rest }] of loaded.entries()) {
        const first = this.firstJob[id * RESOURCE_BATCH + k] ?? 0;
        const entries: EntriesOutcome[] = [];
        for (let j = first; j < first + jobs.length; j++) {
          const batch = Math.floor(j / ENTRIES_BATCH);
          const found = this.entriesResults[batch]?.[j - batch * ENTRIES_BATCH];
          if (found === undefined) throw new Error(`entries file ${j} of the load has no outcome`);
          entries.push(found);
        }
        all.push({ ...rest, entries });
      }
    }
    return all;
  }

  private seal(end: number): void {
    this.entriesBatches.push({ start: this.sealed, end });
    this.sealed = end;
  }
}

/**
 * Loads resource files with their entries files, outcomes in the order of `files`. With many files
 * and more than one CPU, a worker thread shares the work. Each thread prefers what it does best:
 * the main thread reads entries files (their entries are then already where they are needed), the
 * worker parses resource files (drafts are small to send back) and reads entries files only when
 * no resource file is left. Once no work is left to take, the main thread takes back what the
 * worker holds and has not delivered yet: it never waits for the worker, and a worker that cannot
 * start or crashes costs only the time of the batches it held.
 */
export async function loadResources(repo: RepositoryRoot, files: readonly string[], dirCache: Map<string, string | null>, options: LoadResourcesOptions): Promise<ResourceOutcome[]> {
  const work = new Work(files, options.reuse, dirCache);
  const workerFile = options.workerFile ?? WORKER_FILE;
  let worker: RunningWorker | undefined;
  // Decided before each batch: never with `parallel: false`, at once with `true`, and otherwise
  // once the batches done so far say that the work queued and still to come is worth a second
  // thread, and a CPU is actually free for it.
  const now = options.clock ?? monotonicMs;
  const machineState = options.machine ?? machineSampler(now);
  let undecided = options.parallel === undefined && machineState().cpus > 1;
  const spent = { resources: 0, resourceFiles: 0, entries: 0, entriesFiles: 0 };
  /** Milliseconds of work left, from what the main thread measured; undefined until it can tell. */
  const workLeft = (): number | undefined => {
    if (spent.resourceFiles === 0) return undefined;
    const filesLeft = files.length - Math.min(files.length, work.resourcesDoneCount * RESOURCE_BATCH);
    // Entries files queued and not read, and those the resource files left will name (at the rate seen so far).
    const jobsLeft = work.jobs.length - spent.entriesFiles + (work.jobs.length / (files.length - filesLeft || 1)) * filesLeft;
    if (jobsLeft >= 1 && spent.entriesFiles === 0) return undefined;
    return (spent.resources / spent.resourceFiles) * filesLeft + (spent.entriesFiles === 0 ? 0 : (spent.entries / spent.entriesFiles) * jobsLeft);
  };
  // Asked again after a no, at most this often: reading the CPU counters costs a system call or more.
  let nextAsk = 0;
  const startIfWorthIt = (): void => {
    if (worker !== undefined || !existsSync(workerFile)) return;
    if (options.parallel !== true) {
      if (!undecided || now() < nextAsk) return;
      const left = workLeft();
      if (left === undefined) return;
      const { cpus, load, free } = machineState();
      // Too early to measure the CPUs left, the load average said no: asked again as soon as they can be measured.
      nextAsk = free === undefined ? 0 : now() + ASK_AGAIN_MS;
      if (!worthAWorker(left, cpus, load, free)) return;
      undecided = false;
    }
    if (work.nextResources < work.resourceBatches.length || work.nextEntries < work.entriesBatches.length) worker = startWorker(workerFile, repo, work, options.onBatch, options.deferEntries === true);
  };
  try {
    startIfWorthIt();
    worker?.feed();
    for (;;) {
      if (options.signal?.aborted === true) throw loadInterrupted(options.signal);
      const started = now();
      let id = work.takeEntries() ?? worker?.takeBack('entries');
      if (id !== undefined) {
        const { jobs, known } = work.entriesRequest(id);
        let outcomes;
        try {
          // With the signal, a long TBX file or workbook hears it between its pieces, not at its end.
          outcomes = await readEntriesBatch(jobs, dirCache, { defer: options.deferEntries === true, ...(known === undefined ? {} : { known }), ...(options.signal === undefined ? {} : { signal: options.signal }) });
        } catch (caught) {
          if (caught instanceof Interrupted && options.signal !== undefined) throw loadInterrupted(options.signal);
          throw caught;
        }
        work.entriesDone(id, outcomes);
        options.onBatch?.('main', 'entries', jobs.length);
        spent.entries += now() - started;
        spent.entriesFiles += jobs.length;
      } else {
        id = work.takeResources() ?? worker?.takeBack('resources');
        if (id === undefined) break;
        const { files: batch, known } = work.resourcesRequest(id);
        const loaded: (LoadedResource & Digested)[] = [];
        for (const [k, file] of batch.entries()) {
          loaded.push(loadResourceFile(repo, file, known?.[k]));
          // Large files (up to 10 MiB of YAML each): a signal is heard after the file in hand, not after ten.
          if (options.signal !== undefined && now() - started > SIGNAL_CHECK_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            if (options.signal.aborted) throw loadInterrupted(options.signal);
          }
        }
        work.resourcesDone(id, loaded);
        options.onBatch?.('main', 'resources', batch.length);
        spent.resources += now() - started;
        spent.resourceFiles += batch.length;
      }
      await options.yieldToEventLoop();
      startIfWorthIt();
      worker?.feed();
    }
  } finally {
    await worker?.stop();
  }
  return work.outcomes();
}

interface RunningWorker {
  /** Hands the worker batches until it holds WORKER_AHEAD undelivered ones: resource files first. */
  feed(): void;
  /** The last batch of this kind handed to the worker and not delivered yet, which the caller now does itself. */
  takeBack(kind: 'resources' | 'entries'): number | undefined;
  stop(): Promise<void>;
}

/**
 * node:worker_threads, loaded only when a worker is started: most loads (every small repository)
 * never start one, and loading the module costs a short `validate` more than the rest of Node's
 * modules it uses.
 */
function workerThreads(): typeof WorkerThreads {
  return createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
}

function startWorker(file: string, repo: RepositoryRoot, work: Work, onBatch: LoadResourcesOptions['onBatch'], defer: boolean): RunningWorker {
  const { Worker } = workerThreads();
  // No inherited flags: the worker needs none, and some would stop it (`--input-type` with `-e`).
  const worker = new Worker(file, { execArgv: [], workerData: { root: repo.root, rootReal: repo.rootReal } satisfies RepositoryRoot });
  worker.unref();
  const handed = { resources: [] as number[], entries: [] as number[] };
  // Folders resolved by deferred entries read again on this thread (see deferredEntries).
  const dirCache = new Map<string, string | null>();
  let failed = false;
  worker.on('message', (reply: BatchReply) => {
    const held = handed[reply.kind];
    const at = held.indexOf(reply.id);
    if (at === -1) return; // taken back meanwhile: the main thread has done it
    held.splice(at, 1);
    if (reply.kind === 'resources') {
      work.resourcesDone(reply.id, reply.loaded.map(withNullPrototypes));
      onBatch?.('worker', 'resources', reply.loaded.length);
    } else {
      const batch = work.entriesBatches[reply.id] as { start: number; end: number };
      work.entriesDone(reply.id, unpackBatch(reply, work.jobs.slice(batch.start, batch.end), dirCache));
      onBatch?.('worker', 'entries', reply.outcomes.length);
    }
    feed();
  });
  const fail = (): void => {
    failed = true;
  };
  worker.on('error', fail);
  worker.on('messageerror', fail);
  worker.on('exit', fail);
  const feed = (): void => {
    while (!failed && handed.resources.length + handed.entries.length < WORKER_AHEAD) {
      let request: BatchRequest;
      const resources = work.takeResources();
      if (resources !== undefined) {
        handed.resources.push(resources);
        request = { kind: 'resources', id: resources, ...work.resourcesRequest(resources) };
      } else {
        const entries = work.takeEntries();
        if (entries === undefined) return;
        handed.entries.push(entries);
        request = { kind: 'entries', id: entries, ...work.entriesRequest(entries), defer };
      }
      worker.postMessage(request);
    }
  };
  return {
    feed,
    takeBack(kind) {
      return handed[kind].pop();
    },
    async stop() {
      worker.removeAllListeners();
      // A worker that fails while it is being stopped (it threw at start-up, slower than the main
      // thread was to finish the work) still emits 'error': unheard, that is an uncaught exception.
      worker.on('error', () => undefined);
      await worker.terminate();
    },
  };
}
