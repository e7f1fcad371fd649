import type { EntryList } from './entries.js';

/**
 * A dictionary's canonical entries packed into one string of `source TAB target LF` lines, in the
 * order they were read (the order a Map of them would iterate in). Canonical phrases never hold a
 * tab or a line break (the loader rejects them), so the packing is unambiguous.
 *
 * Why: a repository of 2 million entries held as a Map each costs 4 million small strings and 2,000
 * hash tables that the garbage collector must copy and trace; packed, it is 2,000 strings. It is a
 * ReadonlyMap all the same (every consumer of `Entries` works unchanged): `get` and `has` build a
 * Map on first use, iteration walks the text. Code on a hot path can use what the packing gives
 * for free instead: `text`, `utf8Bytes()`, and the sorted forms (`sortedList()`, `sortedBody()`),
 * whose order is computed once.
 */
/** `walk` results besides an offset. */
const ABSENT = -1;
const OUT_OF_ORDER = -2;

export class PackedEntries implements ReadonlyMap<string, string> {
  /** Built on the first `get` or `has` (a consumer that only iterates never pays for it). */
  private index: Map<string, string> | undefined;
  /** Offsets in `text` of each line's start, in source order (code-unit order); computed once, on demand. */
  private order: Uint32Array | undefined;
  /** Position in `order` where the next lookup in source order is expected (see `get`). */
  private cursor = 0;
  /** The previous lookup answered by walking the sorted order. */
  private last: string | undefined;
  /** `text` is already in source order (a file written by termsync is): the sorted forms are slices of it. */
  private inOrder = false;

  private constructor(
    /** `source TAB target LF` per entry, in the order read; empty for no entries. */
    readonly text: string,
    readonly size: number,
  ) {}

  static readonly EMPTY = new PackedEntries('', 0);

  /**
   * Entries from text already packed (`source TAB target LF` lines of canonical phrases, each
   * source once). `size`, when known, saves counting the lines.
   */
  static fromText(text: string, size?: number): PackedEntries {
    if (text.length === 0) return PackedEntries.EMPTY;
    let n = size;
    if (n === undefined) {
      n = 0;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
    }
    return new PackedEntries(text, n);
  }

  /** Entries from pairs of canonical phrases (a later duplicate source is the caller's to avoid). */
  static fromPairs(pairs: Iterable<readonly [string, string]>): PackedEntries {
    const parts: string[] = [];
    let n = 0;
    for (const [source, target] of pairs) {
      parts.push(source, '\t', target, '\n');
      n++;
    }
    return n === 0 ? PackedEntries.EMPTY : new PackedEntries(parts.join(''), n);
  }

  /** Entries as they cross a thread (a structured clone drops the class): the packed text and count. */
  static fromWire(wire: { readonly text: string; readonly size: number }): PackedEntries {
    return wire instanceof PackedEntries ? wire : PackedEntries.fromText(wire.text, wire.size);
  }

  /** UTF-8 bytes of the entries as uploaded: `source TAB target` lines joined by LF, no final newline. */
  utf8Bytes(): number {
    return this.size === 0 ? 0 : Buffer.byteLength(this.text, 'utf8') - 1;
  }

  /**
   * Lookups in ascending source order (a comparison with a dictionary the service returns sorted,
   * as termsync uploads it) walk the sorted order: no index is built, and entries the lookups pass
   * by are skipped. The first lookup out of that order builds the Map, which answers from then on.
   */
  get(source: string): string | undefined {
    if (this.index === undefined) {
      const at = this.walk(source);
      if (at === ABSENT) return undefined;
      if (at !== OUT_OF_ORDER) return this.text.slice(at, this.text.indexOf('\n', at));
    }
    return this.lookup().get(source);
  }

  has(source: string): boolean {
    if (this.index === undefined) {
      const at = this.walk(source);
      if (at !== OUT_OF_ORDER) return at !== ABSENT;
    }
    return this.lookup().has(source);
  }

  /**
   * Where the target of `source` starts, found by moving the cursor through the sorted order:
   * ABSENT when the entry at the cursor comes after `source`, OUT_OF_ORDER when `source` does not
   * come after the previous lookup (the walk cannot tell: the Map must).
   */
  private walk(source: string): number {
    if (this.last !== undefined && !(this.last < source)) return OUT_OF_ORDER;
    this.last = source;
    const order = this.sortedOrder();
    const text = this.text;
    while (this.cursor < order.length) {
      const start = order[this.cursor] as number;
      const tab = start + source.length;
      if (text.charCodeAt(tab) === 9 && text.startsWith(source, start)) {
        this.cursor++;
        return tab + 1;
      }
      // An entry before `source` was passed by (the other side lacks it): never asked for again.
      if (text.slice(start, text.indexOf('\t', start)) < source) this.cursor++;
      else break;
    }
    return ABSENT;
  }

  forEach(callback: (target: string, source: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    const text = this.text;
    for (let start = 0; start < text.length; ) {
      const tab = text.indexOf('\t', start);
      const end = text.indexOf('\n', tab);
      callback.call(thisArg, text.slice(tab + 1, end), text.slice(start, tab), this);
      start = end + 1;
    }
  }

  *entries(): MapIterator<[string, string]> {
    const text = this.text;
    for (let start = 0; start < text.length; ) {
      const tab = text.indexOf('\t', start);
      const end = text.indexOf('\n', tab);
      yield [text.slice(start, tab), text.slice(tab + 1, end)];
      start = end + 1;
    }
  }

  *keys(): MapIterator<string> {
    const text = this.text;
    for (let start = 0; start < text.length; ) {
      const tab = text.indexOf('\t', start);
      yield text.slice(start, tab);
      start = text.indexOf('\n', tab) + 1;
    }
  }

  *values(): MapIterator<string> {
    const text = this.text;
    for (let start = 0; start < text.length; ) {
      const tab = text.indexOf('\t', start);
      const end = text.indexOf('\n', tab);
      yield text.slice(tab + 1, end);
      start = end + 1;
    }
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'PackedEntries';
  }

  /** The entries sorted by source phrase (code-unit order), as the plan and the upload use them. */
  sortedList(): EntryList {
    const text = this.text;
    const order = this.sortedOrder();
    const list = new Array<readonly [string, string]>(order.length);
    for (let i = 0; i < order.length; i++) {
      const start = order[i] as number;
      const tab = text.indexOf('\t', start);
      list[i] = [text.slice(start, tab), text.slice(tab + 1, text.indexOf('\n', tab))];
    }
    return list;
  }

  /**
   * The entries as the client uploads them (see lib/entries-tsv.ts entriesBody): sorted by source,
   * `source TAB target` lines joined by LF, no final newline. Built on each call (not kept), or a
   * slice of `text` when the entries are in source order already.
   */
  sortedBody(): string {
    const text = this.text;
    const order = this.sortedOrder();
    if (this.inOrder) return text.slice(0, -1);
    const lines = new Array<string>(order.length);
    for (let i = 0; i < order.length; i++) {
      const start = order[i] as number;
      lines[i] = text.slice(start, text.indexOf('\n', start));
    }
    return lines.join('\n');
  }

  /** Offsets of the lines in source order; sorted once (the sources are compared, not the lines). */
  sortedOrder(): Uint32Array {
    if (this.order !== undefined) return this.order;
    const text = this.text;
    const starts = new Uint32Array(this.size);
    const sources = new Array<string>(this.size);
    let sorted = true;
    let i = 0;
    for (let start = 0; start < text.length; i++) {
      const tab = text.indexOf('\t', start);
      starts[i] = start;
      sources[i] = text.slice(start, tab);
      if (sorted && i > 0 && !((sources[i - 1] as string) < (sources[i] as string))) sorted = false;
      start = text.indexOf('\n', tab) + 1;
    }
    if (!sorted) {
      const ranks = Array.from({ length: this.size }, (_, k) => k);
      ranks.sort((a, b) => {
        const x = sources[a] as string;
        const y = sources[b] as string;
        return x < y ? -1 : x > y ? 1 : 0;
      });
      const byRank = new Uint32Array(this.size);
      for (let k = 0; k < ranks.length; k++) byRank[k] = starts[ranks[k] as number] as number;
      this.order = byRank;
    } else {
      this.order = starts;
      this.inOrder = true;
    }
    return this.order;
  }

  private lookup(): Map<string, string> {
    if (this.index === undefined) this.index = new Map(this.entries());
    return this.index;
  }
}
