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
  /** Absent for deferred entries (see `check`), and when the text is a `span` of the batch's `joined`. */
  readonly text?: string;
  /** The text as `joined[part].slice(start, end)` (see joinTexts). */
  readonly span?: readonly [part: number, start: number, end: number];
  readonly size: number;
  readonly controlFree: boolean;
  /** Deferred entries (see deferredEntries): what is kept of their file instead of the text. */
  readonly check?: EntriesFileCheck;
}

/** The outcomes of a batch of entries files, packed. */
export interface WireBatch {
  readonly outcomes: readonly WireEntries[];
  /** The batch's texts joined a few at a time (see joinTexts). */
  readonly joined?: readonly string[];
}

/**
 * Joined texts close at this many characters: a string of more than 128 KiB (V8's largest regular
 * object) is allocated outside the young generation, where the scavenger never copies it.
 */
const JOIN_CHARS = 160 * 1024;

/**
 * The batch with its texts joined into a few strings of about JOIN_CHARS each, every text a span
 * of one: for the worker's replies. Cloned one by one, each text of a dictionary (tens of KB) is a
 * new string in the receiving thread's young generation, which its scavenger then copies once or
 * twice, since the entries are kept; joined, each part arrives outside it. A text keeps only the
 * few others of its part alive with it (as decodeUtf8Files' groups do).
 */
export function joinTexts(batch: WireBatch): WireBatch {
  const joined: string[] = [];
  let part: string[] = [];
  let length = 0;
  const close = (): void => {
    if (part.length === 0) return;
    joined.push(part.join(''));
    part = [];
    length = 0;
  };
  const span = (wire: WirePacked): WirePacked => {
    if (wire.text === undefined) return wire;
    const { text, ...rest } = wire;
    const at: [number, number, number] = [joined.length, length, length + text.length];
    part.push(text);
    length += text.length;
    if (length >= JOIN_CHARS) close();
    return { ...rest, span: at };
  };
  const outcomes = batch.outcomes.map((outcome): WireEntries => {
    if (outcome.packedDictionaries !== undefined) return { ...outcome, packedDictionaries: outcome.packedDictionaries.map(span) };
    return outcome.packed === undefined ? outcome : { ...outcome, packed: span(outcome.packed) };
  });
  close();
  return { outcomes, joined };
}

const toWire = (entries: PackedEntries): WirePacked => {
  const deferred = entries.deferredText as EntriesFileText | undefined;
  return deferred === undefined ? { text: entries.text, size: entries.size, controlFree: entries.controlFree } : { size: entries.size, controlFree: entries.controlFree, check: deferred.check };
};

function textOf(wire: WirePacked, joined: readonly string[] | undefined): string {
  if (wire.span === undefined) return wire.text ?? '';
  const [part, start, end] = wire.span;
  const text = joined?.[part];
  if (text === undefined) throw new Error('joined entries crossed threads without their texts');
  return text.slice(start, end);
}

function fromWire(wire: WirePacked, job: EntriesJob | undefined, dirCache: Map<string, string | null>, joined?: readonly string[]): PackedEntries {
  if (wire.check === undefined) return PackedEntries.fromWire({ text: textOf(wire, joined), size: wire.size, controlFree: wire.controlFree });
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
export function unpackBatch({ outcomes, joined }: WireBatch, jobs: readonly EntriesJob[] = [], dirCache: Map<string, string | null> = new Map()): EntriesOutcome[] {
  return outcomes.map(({ packed, packedDictionaries, ...rest }, i) => {
    if (packedDictionaries !== undefined) return { ...rest, dictionaries: packedDictionaries.map((d) => fromWire(d, jobs[i], dirCache, joined)) };
    return packed === undefined ? rest : { ...rest, entries: fromWire(packed, jobs[i], dirCache, joined) };
  });
}
