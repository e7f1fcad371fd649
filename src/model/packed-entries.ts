import type { EntryList } from './entries.js';
import { sortByCodeUnits } from './sort-strings.js';

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
 * whose order is computed once (`sortedLines()`).
 */
/** `walk`'s answer when the walk cannot tell (see `walk`). */
const OUT_OF_ORDER = Symbol('out of order');

// A code unit below TAB: where one may stand, a line does not sort as its source does.
// eslint-disable-next-line no-control-regex
const BELOW_TAB = /[\u0000-\u0008]/;

/** Code-unit order of the sources of two lines (`source TAB target`). */
function bySource(a: string, b: string): number {
  const x = a.slice(0, a.indexOf('\t'));
  const y = b.slice(0, b.indexOf('\t'));
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Entries whose text is not kept but read again from their file when needed (`PackedEntries.deferred`):
 * what a comparison with a live dictionary needs to tell it unchanged without the text.
 */
export interface DeferredText {
  /**
   * Literal digest (lib/text-digest.ts: of the text as a JSON string, as an answer holds it) of the
   * entries as uploaded in the order read: `text` without its last LF.
   */
  readonly digest: string;
  /** Bytes of that JSON string, quotes included (the sorted entries' is as long). */
  readonly literalBytes: number;
  /** Length of `text` in UTF-16 code units. */
  readonly length: number;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
  /** The text, read again; throws when it can no longer be the text that was checked (see config/read-entries.ts). */
  readonly read: () => string;
  /**
   * The text read again as `read` reads it (same checks, same errors), not decoded: its UTF-8 bytes
   * as a Latin-1 string (one character per byte, a final LF included). See plan/compare/sorted-bytes.ts.
   */
  readonly readLatin1?: () => string;
}

export class PackedEntries implements ReadonlyMap<string, string> {
  /** Built on the first `get` or `has` (a consumer that only iterates never pays for it). */
  private index: Map<string, string> | undefined;
  /** The lines (`source TAB target`, without LF) in source order (code-unit order); computed once, on demand. */
  private lines: string[] | undefined;
  /** Position in `lines` where the next lookup in source order is expected (see `get`). */
  private cursor = 0;
  /** The previous lookup answered by walking the sorted order. */
  private last: string | undefined;
  /** `text` is already in source order (a file written by termsync is): the sorted forms are slices of it. */
  private inOrder = false;
  /** The last `sortedList()`, while a plan (or an upload) still holds it. */
  private sorted: WeakRef<EntryList> | undefined;

  private constructor(
    /** See `text`; undefined until a deferred text is read. */
    private packed: string | undefined,
    readonly size: number,
    /**
     * Known to hold no control character (no code unit below TAB in particular): the loader's
     * entries, whose every phrase it checked. A consumer need not scan `text` for one.
     */
    readonly controlFree = false,
    /** Where the text comes from when it is not kept (see `deferred`). */
    readonly deferredText?: DeferredText,
  ) {}

  /**
   * `source TAB target LF` per entry, in the order read; empty for no entries. Of deferred entries,
   * read on first use and kept from then on.
   */
  get text(): string {
    if (this.packed === undefined) this.packed = (this.deferredText as DeferredText).read();
    return this.packed;
  }

  /** `text` when it is at hand: of deferred entries, undefined until their text is read and kept. */
  get keptText(): string | undefined {
    return this.packed;
  }

  /** Length of `text` (UTF-16 code units), without reading a deferred text. */
  get textLength(): number {
    return this.packed?.length ?? (this.deferredText as DeferredText).length;
  }

  /**
   * Entries of `size` lines whose text is read again (`deferred.read`) only when something needs
   * it: a plan keeps of an unchanged dictionary only what tells it unchanged (see plan/compare/).
   */
  static deferred(deferred: DeferredText, size: number): PackedEntries {
    return new PackedEntries(undefined, size, true, deferred);
  }

  /** Deferred entries as entries of their own, read again and kept by no one else (undefined for other entries). */
  readAgain(): PackedEntries | undefined {
    const deferred = this.deferredText;
    return deferred === undefined ? undefined : new PackedEntries(this.packed ?? deferred.read(), this.size, this.controlFree);
  }

  /** Deferred entries as entries of their own, of `text` (theirs, read again by other means: see DeferredText.readLatin1). */
  againOf(text: string): PackedEntries {
    return new PackedEntries(text, this.size, this.controlFree);
  }

  /** Deferred entries keep from now on the text that `again` (their readAgain()) read. */
  keepText(again: PackedEntries): void {
    if (this.deferredText !== undefined && again.size === this.size) this.packed ??= again.text;
  }

  static readonly EMPTY = new PackedEntries('', 0);

  /**
   * Entries from text already packed (`source TAB target LF` lines of canonical phrases, each
   * source once). `size`, when known, saves counting the lines; `controlFree` as the property.
   */
  static fromText(text: string, size?: number, controlFree = false): PackedEntries {
    if (text.length === 0) return PackedEntries.EMPTY;
    let n = size;
    if (n === undefined) {
      n = 0;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
    }
    return new PackedEntries(text, n, controlFree);
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
  static fromWire(wire: { readonly text: string; readonly size: number; readonly controlFree?: boolean } | PackedEntries): PackedEntries {
    if (wire instanceof PackedEntries) return wire;
    // A structured clone of the class itself (inline entries of a resource) holds the text in its own field.
    const text = typeof wire.text === 'string' ? wire.text : ((wire as { readonly packed?: string }).packed ?? '');
    return PackedEntries.fromText(text, wire.size, wire.controlFree === true);
  }

  /** UTF-8 bytes of the entries as uploaded: `source TAB target` lines joined by LF, no final newline. */
  utf8Bytes(): number {
    if (this.packed === undefined && this.deferredText !== undefined) return this.deferredText.bytes - 1;
    // Counted once: the plan's figure and the upload's body both ask (megabytes each time).
    return (this.bytes ??= this.size === 0 ? 0 : Buffer.byteLength(this.text, 'utf8') - 1);
  }

  /** utf8Bytes, once counted. */
  private bytes: number | undefined;

  /**
   * Lookups in ascending source order (a comparison with a dictionary the service returns sorted,
   * as termsync uploads it) walk the sorted order: no index is built, and entries the lookups pass
   * by are skipped. The first lookup out of that order builds the Map, which answers from then on.
   */
  get(source: string): string | undefined {
    if (this.index === undefined) {
      const found = this.walk(source);
      if (found !== OUT_OF_ORDER) return found;
    }
    return this.lookup().get(source);
  }

  has(source: string): boolean {
    if (this.index === undefined) {
      const found = this.walk(source);
      if (found !== OUT_OF_ORDER) return found !== undefined;
    }
    return this.lookup().has(source);
  }

  /**
   * The target of `source`, found by moving the cursor through the sorted lines: undefined when
   * the entry at the cursor comes after `source`, OUT_OF_ORDER when `source` does not come after
   * the previous lookup (the walk cannot tell: the Map must).
   */
  private walk(source: string): string | undefined | typeof OUT_OF_ORDER {
    if (this.last !== undefined && !(this.last < source)) return OUT_OF_ORDER;
    this.last = source;
    const lines = this.sortedLines();
    while (this.cursor < lines.length) {
      const line = lines[this.cursor] as string;
      if (line.charCodeAt(source.length) === 9 && line.startsWith(source)) {
        this.cursor++;
        return line.slice(source.length + 1);
      }
      // An entry before `source` was passed by (the other side lacks it): never asked for again.
      if (line.slice(0, line.indexOf('\t')) < source) this.cursor++;
      else break;
    }
    return undefined;
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

  /**
   * The entries sorted by source phrase (code-unit order), as the plan and the upload use them.
   * One list while anyone holds it: the daemon's targets that run side by side create the same
   * dictionaries from the same loaded entries, and each would otherwise hold a copy of its own
   * (a pair and two phrases per entry, per target). Not kept once no plan holds it.
   */
  sortedList(): EntryList {
    const held = this.sorted?.deref();
    if (held !== undefined) return held;
    const lines = this.sortedLines();
    const list = new Array<readonly [string, string]>(lines.length);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      const tab = line.indexOf('\t');
      list[i] = [line.slice(0, tab), line.slice(tab + 1)];
    }
    this.sorted = new WeakRef(list);
    return list;
  }

  /**
   * The entries as the client uploads them (see lib/entries-tsv.ts entriesBody): sorted by source,
   * `source TAB target` lines joined by LF, no final newline. Built on each call (not kept), or a
   * slice of `text` when the entries are in source order already.
   */
  sortedBody(): string {
    if (this.size === 0) return '';
    const lines = this.sortedLines();
    return this.inOrder ? this.text.slice(0, -1) : lines.join('\n');
  }

  /**
   * The lines (`source TAB target`) in code-unit order of their sources; sorted once. Canonical
   * phrases hold no code unit below TAB, so a line sorts exactly as its source does (a source
   * that is a prefix of another ends at the TAB, which sorts before every code unit the other
   * can continue with) and the default string sort, with no comparison function, gives the order;
   * a text holding such a code unit is sorted by its sources.
   */
  sortedLines(): readonly string[] {
    if (this.lines !== undefined) return this.lines;
    const { lines, inOrder } = this.sortLines();
    this.inOrder = inOrder;
    this.lines = lines;
    return lines;
  }

  /**
   * The lines in the order of sortedLines, for a caller that needs them only briefly (a comparison):
   * made afresh and not kept here (kept, they would live as long as the entries do), unless
   * sortedLines has already made them.
   */
  linesBySource(): readonly string[] {
    return this.lines ?? this.sortLines().lines;
  }

  private sortLines(): { lines: string[]; inOrder: boolean } {
    const lines = this.size === 0 ? [] : this.text.slice(0, -1).split('\n');
    const plain = this.controlFree || !BELOW_TAB.test(this.text);
    if (plain) return { lines, inOrder: sortByCodeUnits(lines) };
    let sorted = true;
    for (let i = 1; i < lines.length && sorted; i++) if (bySource(lines[i - 1] as string, lines[i] as string) >= 0) sorted = false;
    if (!sorted) lines.sort(bySource);
    return { lines, inOrder: sorted };
  }

  private lookup(): Map<string, string> {
    if (this.index === undefined) this.index = new Map(this.entries());
    return this.index;
  }
}
