import { canonicalPhrase } from '../../lib/canonical.js';
import type { EntriesDiff } from '../../model/live.js';
import type { PackedEntries } from '../../model/packed-entries.js';
import type { EntryChange } from '../../model/plan.js';
import { compareStrings } from '../compare-strings.js';
import { NO_CHANGES } from '../diff-entries.js';
import { detach, merge } from './changes.js';

/** `t`: after a backslash, the escape of a tab (the other one is `n`, a line's end). */
const T = 0x74;

/** FNV-1a over UTF-16 code units of `text.slice(start, end)`. */
function hashRange(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/** Whether `a.slice(aStart, aEnd)` and `b.slice(bStart, bEnd)` are the same code units. */
function sameRange(a: string, aStart: number, aEnd: number, b: string, bStart: number, bEnd: number): boolean {
  const n = aEnd - aStart;
  if (bEnd - bStart !== n) return false;
  for (let i = 0; i < n; i++) if (a.charCodeAt(aStart + i) !== b.charCodeAt(bStart + i)) return false;
  return true;
}

/** Whether `text.slice(aStart, aEnd) < text.slice(bStart, bEnd)` (code-unit order), without slicing. */
function rangeBefore(text: string, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  const n = Math.min(aEnd - aStart, bEnd - bStart);
  for (let i = 0; i < n; i++) {
    const x = text.charCodeAt(aStart + i);
    const y = text.charCodeAt(bStart + i);
    if (x !== y) return x < y;
  }
  return aEnd - aStart < bEnd - bStart;
}

/**
 * The sources of packed entries in a hash table over their text: each line's start and tab, found
 * by the source's code units where they lie (no string, no Map entry per entry). Undefined when
 * two lines hold the same source (not the loader's entries: the plain comparison judges them).
 */
class SourceIndex {
  readonly starts: Int32Array;
  readonly tabs: Int32Array;
  /** Offset of each line's LF. */
  readonly ends: Int32Array;
  private readonly slots: Int32Array;

  private constructor(
    readonly text: string,
    size: number,
  ) {
    this.starts = new Int32Array(size);
    this.tabs = new Int32Array(size);
    this.ends = new Int32Array(size);
    let slots = 64;
    while (slots < size * 2) slots *= 2;
    this.slots = new Int32Array(slots);
  }

  static of(entries: PackedEntries): SourceIndex | undefined {
    const text = entries.text;
    const index = new SourceIndex(text, entries.size);
    let n = 0;
    for (let start = 0; start < text.length && n < entries.size; n++) {
      const tab = text.indexOf('\t', start);
      if (tab === -1) return undefined;
      const end = text.indexOf('\n', tab);
      if (end === -1) return undefined;
      index.starts[n] = start;
      index.tabs[n] = tab;
      index.ends[n] = end;
      if (!index.insert(n)) return undefined;
      start = end + 1;
    }
    return n === entries.size ? index : undefined;
  }

  private insert(n: number): boolean {
    const { text, slots } = this;
    const start = this.starts[n] as number;
    const tab = this.tabs[n] as number;
    const mask = slots.length - 1;
    let slot = hashRange(text, start, tab) & mask;
    for (let at = slots[slot] as number; at !== 0; at = slots[slot] as number) {
      if (sameRange(text, this.starts[at - 1] as number, this.tabs[at - 1] as number, text, start, tab)) return false;
      slot = (slot + 1) & mask;
    }
    slots[slot] = n + 1;
    return true;
  }

  /** The entry whose source is `other.slice(start, end)`, or -1. */
  find(other: string, start: number, end: number): number {
    const { text, slots } = this;
    const mask = slots.length - 1;
    let slot = hashRange(other, start, end) & mask;
    for (let at = slots[slot] as number; at !== 0; at = slots[slot] as number) {
      if (sameRange(text, this.starts[at - 1] as number, this.tabs[at - 1] as number, other, start, end)) return at - 1;
      slot = (slot + 1) & mask;
    }
    return -1;
  }
}

/**
 * compareLiveEntries' diff of an answer whose entries are `text`, escaped as in the answer's JSON
 * string with `\t` and `\n` its only escapes (the client's EntriesText of a v3 answer), and the
 * repository's packed entries: each answer source is looked up in a hash table of `expected`'s
 * sources and each target compared where both lie, instead of sorting `expected`'s lines (a tenth
 * of a 10 MiB plan's CPU) and cutting, canonicalising and comparing two strings per answer line.
 * Strings are made only for the changes.
 *
 * Canonical form costs nothing for the usual line: packed entries hold canonical phrases, so an
 * answer phrase equal to one of them is canonical itself (canonicalPhrase gives it back); only a
 * phrase that equals none is canonicalised, as the plain comparison canonicalises every one.
 *
 * Exactly the plain comparison's diff (test/plan/compare/indexed-compare.test.ts) for the answers
 * it takes: every line `source TAB target` with one tab, the sources in ascending order (as the
 * service answers; which also proves them distinct) and those not in `expected` canonical as sent.
 * Anything else is undefined, and the plain comparison reads the answer (and reports a line
 * without a tab as it does).
 */
export function compareIndexed(text: string, expected: PackedEntries): EntriesDiff | undefined {
  if (text.length === 0 || expected.size === 0) return undefined;
  const index = SourceIndex.of(expected);
  if (index === undefined) return undefined;
  const packed = index.text;
  const matched = new Uint8Array(expected.size);
  const changes: EntryChange[] = [];
  const upserts: [string, string][] = [];
  let found = 0;
  let changed = 0;
  let removed = 0;
  let previousStart = -1;
  let previousEnd = -1;
  for (let start = 0; start < text.length; ) {
    // Every backslash starts a `\t` or `\n` escape: the line's first must be its tab, the next its end.
    const tab = text.indexOf('\\', start);
    if (tab === -1 || text.charCodeAt(tab + 1) !== T) return undefined;
    let end = text.indexOf('\\', tab + 2);
    if (end === -1) end = text.length;
    // A second tab (in the target): the plain comparison's.
    else if (text.charCodeAt(end + 1) === T) return undefined;
    const n = index.find(text, start, tab);
    // A source of no entry of `expected`: canonical as sent, or the plain comparison's.
    if (n === -1 && canonicalPhrase(text.slice(start, tab)) !== text.slice(start, tab)) return undefined;
    if (previousEnd !== -1 && !rangeBefore(text, previousStart, previousEnd, start, tab)) return undefined;
    previousStart = start;
    previousEnd = tab;
    if (n === -1) {
      removed++;
      changes.push({ source: detach(text.slice(start, tab)), before: detach(canonicalPhrase(text.slice(tab + 2, end))) });
    } else {
      found++;
      matched[n] = 1;
      const targetStart = (index.tabs[n] as number) + 1;
      const lineEnd = index.ends[n] as number;
      if (!sameRange(packed, targetStart, lineEnd, text, tab + 2, end)) {
        const after = packed.slice(targetStart, lineEnd);
        const before = canonicalPhrase(text.slice(tab + 2, end));
        if (before !== after) {
          changed++;
          const source = packed.slice(index.starts[n], index.tabs[n]);
          changes.push({ source, before: detach(before), after });
          upserts.push([source, after]);
        }
      }
    }
    // Past the LF escape; a text ending in one ends with an empty line: the plain comparison's.
    start = end + 2;
    if (start === text.length) return undefined;
  }
  const added = expected.size - found;
  if (added === 0 && changes.length === 0) return NO_CHANGES;
  let entryChanges: EntryChange[] = changes;
  let allUpserts: (readonly [string, string])[] = upserts;
  if (added > 0) {
    const addedPairs: [string, string][] = [];
    for (let n = 0; n < expected.size; n++) {
      if (matched[n] === 1) continue;
      addedPairs.push([packed.slice(index.starts[n], index.tabs[n]), packed.slice((index.tabs[n] as number) + 1, (index.ends[n]))]);
    }
    addedPairs.sort((a, b) => compareStrings(a[0], b[0]));
    entryChanges = merge<EntryChange>(changes, addedPairs.map(([source, after]) => ({ source, after })), (c) => c.source);
    allUpserts = merge<readonly [string, string]>(upserts, addedPairs, (p) => p[0]);
  }
  return { added, changed, removed, entryChanges, upserts: allUpserts };
}
