import { PackedEntries } from '../model/packed-entries.js';
import { deferredEntries, type EntriesFileCheck, type EntriesFileText, type EntriesJob, type EntriesOutcome } from './read-entries.js';

/*
 * Entries outcomes as they cross threads (the loader's worker, see parallel-load.ts) and as a memo
 * keeps them (load-memo.ts): each dictionary's entries are one packed string (see
 * model/packed-entries.ts), one clone each instead of two per entry; deferred entries travel as
 * what was kept of their file.
 */

/** An entries outcome as it crosses threads: a structured clone keeps the packed text, not the class. */
export type WireEntries = Omit<EntriesOutcome, 'entries' | 'dictionaries'> & {
  readonly packed?: WirePacked;
  /** A glossary-level file's dictionaries. */
  readonly packedDictionaries?: readonly WirePacked[];
};

interface WirePacked {
  /** Absent for deferred entries (see `check`). */
  readonly text?: string;
  readonly size: number;
  readonly controlFree: boolean;
  /** Deferred entries (see deferredEntries): what is kept of their file instead of the text. */
  readonly check?: EntriesFileCheck;
}

/** The outcomes of a batch of entries files, packed. */
export interface WireBatch {
  readonly outcomes: readonly WireEntries[];
}

const toWire = (entries: PackedEntries): WirePacked => {
  const deferred = entries.deferredText as EntriesFileText | undefined;
  return deferred === undefined ? { text: entries.text, size: entries.size, controlFree: entries.controlFree } : { size: entries.size, controlFree: entries.controlFree, check: deferred.check };
};

function fromWire(wire: WirePacked, job: EntriesJob | undefined, dirCache: Map<string, string | null>): PackedEntries {
  if (wire.check === undefined) return PackedEntries.fromWire({ text: wire.text ?? '', size: wire.size, controlFree: wire.controlFree });
  if (job === undefined) throw new Error('deferred entries crossed threads without their job');
  return deferredEntries(job, wire.check, wire.size, dirCache);
}

/**
 * The outcomes of a batch as they cross threads: each dictionary's entries are one packed string
 * (see model/packed-entries.ts), one clone each instead of two per entry.
 */
export function packBatch(outcomes: readonly EntriesOutcome[]): WireBatch {
  return {
    outcomes: outcomes.map(({ entries, dictionaries, ...rest }): WireEntries => {
      if (dictionaries !== undefined) return { ...rest, packedDictionaries: dictionaries.map(toWire) };
      return entries === undefined ? rest : { ...rest, packed: toWire(entries) };
    }),
  };
}

/** The outcomes of a batch as the worker read them (the inverse of packBatch); `jobs`: the batch's, for deferred entries. */
export function unpackBatch({ outcomes }: WireBatch, jobs: readonly EntriesJob[] = [], dirCache: Map<string, string | null> = new Map()): EntriesOutcome[] {
  return outcomes.map(({ packed, packedDictionaries, ...rest }, i) => {
    if (packedDictionaries !== undefined) return { ...rest, dictionaries: packedDictionaries.map((d) => fromWire(d, jobs[i], dirCache)) };
    return packed === undefined ? rest : { ...rest, entries: fromWire(packed, jobs[i], dirCache) };
  });
}
