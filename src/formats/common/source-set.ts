/**
 * The sources of a dictionary's entries as they are collected, for duplicate and case-twin checks:
 * a hash set whose keys are either ranges of one text (the lines of a TSV file kept verbatim, see
 * EntryCollector.verbatim) or strings.
 * A range is hashed and compared where it lies, so the usual entry costs no string and no entry of
 * a Set: loading a repository of millions of entries did both millions of times.
 *
 * Each key's position in the insertion order is its index (0, 1, ...): callers keep what they
 * need per key (its line) in arrays by that index.
 */

/** FNV-1a over UTF-16 code units; the same for a range and for a string of the same code units. */
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** Smallest table (slots); grows by doubling, at most half full. */
const MIN_SLOTS = 64;

/** A released set's arrays are kept for the next set up to this many slots (256 KiB): files of up to 32,768 entries reuse them. */
const MAX_SPARE_SLOTS = 65536;

interface Arrays {
  slots: Int32Array<ArrayBuffer>;
  hashes: Int32Array<ArrayBuffer>;
  starts: Int32Array<ArrayBuffer>;
  ends: Int32Array<ArrayBuffer>;
}

/**
 * The arrays of the last set released (per thread): a repository's entries files are read one
 * after the other, and fresh memory costs more than the hashing itself.
 */
let spare: Arrays | undefined;

function freshArrays(): Arrays {
  return { slots: new Int32Array(MIN_SLOTS), hashes: new Int32Array(MIN_SLOTS / 2), starts: new Int32Array(MIN_SLOTS / 2), ends: new Int32Array(MIN_SLOTS / 2) };
}

export class SourceSet {
  /** Slot → key index + 1; 0 for an empty slot. */
  private slots: Int32Array<ArrayBuffer>;
  /** Hash of each key, by index (to grow the table without hashing again). */
  private hashes: Int32Array<ArrayBuffer>;
  /** By index: a range key's start and end offsets in `text`; a string key's start is `-1 - i` for `strings[i]`. */
  private starts: Int32Array<ArrayBuffer>;
  private ends: Int32Array<ArrayBuffer>;
  /** The text of the range keys (one text per set). */
  private text: string | undefined;
  private strings: string[] = [];
  private count = 0;
  /** Whether the last range hashed held a code unit that toLowerCase may change (see hashRange). */
  private cased = false;

  constructor() {
    const arrays = spare ?? freshArrays();
    spare = undefined;
    ({ slots: this.slots, hashes: this.hashes, starts: this.starts, ends: this.ends } = arrays);
  }

  get size(): number {
    return this.count;
  }

  /**
   * Room for `n` keys before anything is added: a large file's set is allocated once at its size
   * instead of growing through every power of two (fresh memory costs more than hashing).
   */
  expect(n: number): void {
    if (this.count > 0 || n * 2 <= this.slots.length) return;
    let slots = Math.max(this.slots.length, MIN_SLOTS);
    while (slots < n * 2) slots *= 2;
    this.slots = new Int32Array(slots);
    this.hashes = new Int32Array(slots / 2);
    this.starts = new Int32Array(slots / 2);
    this.ends = new Int32Array(slots / 2);
  }

  /** Ends the set: its arrays may serve the next one. Nothing may be asked of it afterwards. */
  release(): void {
    const slots = this.slots;
    if (slots.length > MAX_SPARE_SLOTS || (spare !== undefined && spare.slots.length >= slots.length)) return;
    slots.fill(0);
    spare = { slots, hashes: this.hashes, starts: this.starts, ends: this.ends };
    this.slots = new Int32Array(0);
    this.count = 0;
    this.text = undefined;
    this.strings = [];
  }

  /**
   * Adds `text.slice(start, end)` as a key unless it is one already; returns the index of the key
   * it equals, or -1 when it was added (as index `size - 1`). Every range is of the same text.
   * `lastRangeMayHaveCase` tells afterwards whether the range held a letter that lowercasing
   * may change.
   */
  addRange(text: string, start: number, end: number): number {
    if (this.text === undefined) this.text = text;
    else if (text !== this.text) throw new Error('SourceSet: ranges of two texts');
    return this.addOwnRange(text, start, end, this.hashRange(text, start, end));
  }

  /** addRange of a range of the set's own text, whose hash is `hash`. */
  private addOwnRange(text: string, start: number, end: number, hash: number): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let at = this.slots[slot] as number; at !== 0; at = this.slots[slot] as number) {
      const index = at - 1;
      if (this.hashes[index] === hash && this.rangeEquals(index, text, start, end)) return index;
      slot = (slot + 1) & mask;
    }
    const index = this.count;
    this.reserve(index + 1);
    this.starts[index] = start;
    this.ends[index] = end;
    this.insert(index, hash, slot);
    return -1;
  }

  /** Whether the last range added or looked for held `A`-`Z`, U+00C0-U+00DE or a code unit from U+0100 up outside the blocks of isUncased. */
  get lastRangeMayHaveCase(): boolean {
    return this.cased;
  }

  /** As addRange, for a string key; `hash`: its hashOf, when known. */
  addString(key: string, hash = hashOf(key)): number {
    const slot = this.slotOf(key, hash);
    const at = this.slots[slot] as number;
    if (at !== 0) return at - 1;
    const index = this.count;
    this.reserve(index + 1);
    this.starts[index] = -1 - this.strings.length;
    this.strings.push(key);
    this.insert(index, hash, slot);
    return -1;
  }

  /** Index of the key equal to `key`, or -1; `hash`: its hashOf, when known. */
  indexOf(key: string, hash = hashOf(key)): number {
    const at = this.slots[this.slotOf(key, hash)] as number;
    return at - 1;
  }

  /**
   * As addRange, for a range of any text (not only of the set's own: its keys of another text are
   * compared where they lie); `hash`: the range's hashOf, when known. `lastRangeMayHaveCase` is not
   * told.
   */
  addRangeOf(text: string, start: number, end: number, hash = hashOf(text, start, end)): number {
    if (this.text === undefined) this.text = text;
    if (text === this.text) return this.addOwnRange(text, start, end, hash);
    const at = this.indexOfRange(text, start, end, hash);
    return at !== -1 ? at : this.addString(text.slice(start, end), hash);
  }

  /** Index of the key equal to `text.slice(start, end)`, a range of any text, or -1; `hash` as for addRangeOf. */
  indexOfRange(text: string, start: number, end: number, hash = hashOf(text, start, end)): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let at = this.slots[slot] as number; at !== 0; at = this.slots[slot] as number) {
      if (this.hashes[at - 1] === hash && this.keyEqualsRange(at - 1, text, start, end)) return at - 1;
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  /** The slot holding the key equal to `key` (hash `hash`), or the empty slot where it would go. */
  private slotOf(key: string, hash: number): number {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (let at = this.slots[slot] as number; at !== 0; at = this.slots[slot] as number) {
      if (this.hashes[at - 1] === hash && this.keyEquals(at - 1, key)) return slot;
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  /** The key at `index` as a string. */
  keyAt(index: number): string {
    const start = this.starts[index] as number;
    return start < 0 ? (this.strings[-1 - start] as string) : (this.text as string).slice(start, this.ends[index]);
  }

  private keyEquals(index: number, key: string): boolean {
    const start = this.starts[index] as number;
    if (start < 0) return this.strings[-1 - start] === key;
    return (this.ends[index] as number) - start === key.length && (this.text as string).startsWith(key, start);
  }

  /** Whether the key at `index` is `text.slice(start, end)`, `text` any text (the set's own or another). */
  private keyEqualsRange(index: number, text: string, start: number, end: number): boolean {
    const from = this.starts[index] as number;
    const n = end - start;
    if (from < 0) {
      const key = this.strings[-1 - from] as string;
      return key.length === n && text.startsWith(key, start);
    }
    if ((this.ends[index] as number) - from !== n) return false;
    const own = this.text as string;
    for (let i = 0; i < n; i++) if (own.charCodeAt(from + i) !== text.charCodeAt(start + i)) return false;
    return true;
  }

  private rangeEquals(index: number, text: string, start: number, end: number): boolean {
    const from = this.starts[index] as number;
    if (from < 0) return this.keyEquals(index, text.slice(start, end));
    const n = end - start;
    if ((this.ends[index] as number) - from !== n) return false;
    for (let i = 0; i < n; i++) if (text.charCodeAt(from + i) !== text.charCodeAt(start + i)) return false;
    return true;
  }

  private hashRange(text: string, start: number, end: number): number {
    let hash = FNV_OFFSET;
    let cased = false;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      hash = Math.imul(hash ^ c, FNV_PRIME);
      if ((c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c !== 0xd7 && c <= 0xde) || (c >= 0x100 && !isUncased(c))) cased = true;
    }
    this.cased = cased;
    return hash;
  }

  private insert(index: number, hash: number, slot: number): void {
    this.hashes[index] = hash;
    this.slots[slot] = index + 1;
    this.count++;
    if (this.count * 2 > this.slots.length) this.grow();
  }

  /** Room for `n` keys in the per-key arrays. */
  private reserve(n: number): void {
    if (n <= this.hashes.length) return;
    const size = this.hashes.length * 2;
    const grown = (from: Int32Array): Int32Array<ArrayBuffer> => {
      const to = new Int32Array(size);
      to.set(from);
      return to;
    };
    this.hashes = grown(this.hashes);
    this.starts = grown(this.starts);
    this.ends = grown(this.ends);
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.count; index++) {
      let slot = (this.hashes[index] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.slots = slots;
  }
}

/**
 * Code units from U+0100 up of blocks where toLowerCase changes nothing (tested code unit by code
 * unit): lowercase Cyrillic (U+0430-U+045F), CJK symbols, kana, Hangul jamo and ideographs
 * (U+3000-U+9FFF), Hangul syllables (U+AC00-U+D7A3). A source of these and of characters below
 * U+0100 other than uppercase ones is its own lowercase form: the case-twin check takes it as such.
 */
export function isUncased(c: number): boolean {
  return (c >= 0x430 && c <= 0x45f) || (c >= 0x3000 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3);
}

/** The hash a set gives `text.slice(start, end)` (as a key of either kind): one hash serves lookups in two sets. */
export function hashOf(text: string, start = 0, end = text.length): number {
  let hash = FNV_OFFSET;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash;
}
