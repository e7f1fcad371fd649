/**
 * Reading the repository as a command that talks to the service does, apart from the rest of the
 * run: the daemon begins its first load with this alone, before it imports the service client
 * and its HTTP server (see daemon/first-load.ts).
 */
import { loadRepository, parallelFromEnv, type LoadMemo } from '../config/index.js';
import { hasErrors, type Diagnostic } from '../lib/diagnostics.js';
import type { DesiredState } from '../model/desired.js';

export interface LoadedRepository {
  readonly desired?: DesiredState;
  readonly diagnostics: readonly Diagnostic[];
  /** With LoadDesiredOptions.remember: what the next load may reuse (given with errors too). */
  readonly memo?: LoadMemo;
}

/** How a command that reads the repository before it talks to the service wants it read. */
export interface LoadDesiredOptions {
  /**
   * The run then waits on the service for longer than the load takes (`plan`, `apply`): unless
   * TERMSYNC_LOAD_THREADS says `2`, the repository is read on the main thread alone. A worker
   * thread would save a second of wall time at most, and costs CPU time of its own (its start-up,
   * a second compilation of the loader's code, the entries copied between threads).
   */
  readonly requestBound?: boolean;
  /**
   * Entries files whose entries are their very text are kept deferred (LoadOptions.deferEntries):
   * only for a run that never writes (`plan`). A deferred file is read again when its text is
   * needed, and one changed meanwhile is an error: in `apply` that could come after a write (a
   * second target, the verification after it), so `apply` keeps the texts it checked.
   */
  readonly deferEntries?: boolean;
  /** Where TERMSYNC_LOAD_THREADS is read (default: the process's environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Incremental reload (the daemon): keep the memo of this load, and reuse `previous`, the memo of
   * the last load, for every file unchanged since (LoadOptions.remember, LoadOptions.previous).
   */
  readonly remember?: boolean;
  readonly previous?: LoadMemo;
  /** With `previous`: files vouched unchanged since it was made, not read again (LoadOptions.vouched). */
  readonly vouched?: (file: string) => boolean;
}

/** Whether the load uses a worker thread (undefined: decided per load, see parallel-load.ts). */
export function loadThreads(env: Readonly<Record<string, string | undefined>>, requestBound: boolean): boolean | undefined {
  const chosen = parallelFromEnv(env);
  return requestBound ? (chosen ?? false) : chosen;
}

/** Reads and validates the repository; `desired` is absent when it has any error. */
export async function loadDesired(dir: string, configPath?: string, signal?: AbortSignal, options: LoadDesiredOptions = {}): Promise<LoadedRepository> {
  const parallel = loadThreads(options.env ?? process.env, options.requestBound === true);
  const loaded = await loadRepository({
    dir,
    ...(configPath === undefined ? {} : { configPath }),
    ...(signal === undefined ? {} : { signal }),
    ...(parallel === undefined ? {} : { parallel }),
    ...(options.deferEntries === true ? { deferEntries: true } : {}),
    ...(options.remember === true ? { remember: true } : {}),
    ...(options.previous === undefined ? {} : { previous: options.previous }),
    ...(options.vouched === undefined ? {} : { vouched: options.vouched }),
  });
  const memo = loaded.memo === undefined ? {} : { memo: loaded.memo };
  // A repository with errors is never acted on: the loader leaves out what failed to parse, and a
  // plan of the rest would prune it.
  if (hasErrors(loaded.diagnostics) || loaded.desired === undefined) return { diagnostics: loaded.diagnostics, ...memo };
  return { desired: loaded.desired, diagnostics: loaded.diagnostics, ...memo };
}
