import { byLocalName, parseCompressedPart } from './parse-parts.js';
import type { CompressedPart } from './zip-parts.js';

/**
 * The text of a string item, a shared string (`<si>`) or a cell's inline string (`<is>`): its `<t>`
 * elements concatenated (a rich-text string has one per run), phonetic guides (`<rPh>`) left out.
 * Both parts' handlers pass it the tags by local name and the text; one collector serves both.
 */
export class StringItem {
  /** The text so far; undefined outside an item. */
  private text: string | undefined;
  /** Depth of `<rPh>` elements: their `<t>` is a reading, not the string. */
  private phonetic = 0;
  /** Inside a `<t>` whose text counts. */
  private inRun = false;

  begin(): void {
    this.text = '';
  }

  /** The item's text; undefined when no item was begun. */
  end(): string | undefined {
    const { text } = this;
    this.text = undefined;
    return text;
  }

  /** An opening tag inside the part (by local name): false when it is none of the item's. */
  open(name: string): boolean {
    if (name === 't') this.inRun = this.text !== undefined && this.phonetic === 0;
    else if (name === 'rPh') this.phonetic++;
    else return false;
    return true;
  }

  /** A closing tag inside the part (by local name): false when it is none of the item's. */
  close(name: string): boolean {
    if (name === 't') this.inRun = false;
    else if (name === 'rPh') this.phonetic--;
    else return false;
    return true;
  }

  /** Text (or CDATA) read: kept when it is a run's. */
  add(value: string): void {
    if (this.inRun) this.text += value;
  }
}

/** Shared strings joined into one text (a block) at a time (see SharedStrings): 8,192, a power of two. */
const BLOCK_SHIFT = 13;

const STRINGS_PER_BLOCK = 1 << BLOCK_SHIFT;

/**
 * The shared strings of a workbook, in order: blocks of text and the offset of each string in its
 * block, not a string each. A workbook of terms has hundreds of thousands of them, all kept until
 * the last row is read; so many small strings kept that long cost more in garbage collection than
 * reading them. A cell's string is cut from its block when the cell is read.
 */
export class SharedStrings {
  /** The strings so far since the last block was joined. */
  private pending: string[] = [];
  /** Block `b` holds strings `b * STRINGS_PER_BLOCK` on. */
  private blocks: string[] = [];
  /** `ends[i]`: where string i ends in its block (it starts where string i - 1 ends, or at 0). */
  private ends = new Int32Array(1024);
  private length = 0;
  private count = 0;

  static readonly NONE = new SharedStrings();

  /** The number of strings. */
  get size(): number {
    return this.count;
  }

  add(value: string): void {
    if (this.count === this.ends.length) {
      const grown = new Int32Array(this.count * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.length += value.length;
    this.ends[this.count++] = this.length;
    const { pending } = this;
    pending.push(value);
    if (pending.length === STRINGS_PER_BLOCK) {
      this.blocks.push(pending.join(''));
      pending.length = 0;
      this.length = 0;
    }
  }

  /** Ends the reading: the last strings become a block too. */
  finish(): this {
    if (this.pending.length > 0) this.blocks.push(this.pending.join(''));
    this.pending = [];
    return this;
  }

  /** String `index` (as a cell's `<v>` gives it, a number), or undefined when there is none. */
  get(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) return undefined;
    const start = (index & (STRINGS_PER_BLOCK - 1)) === 0 ? 0 : (this.ends[index - 1] as number);
    return (this.blocks[index >>> BLOCK_SHIFT] as string).slice(start, this.ends[index]);
  }
}

/** The shared strings, in order (see StringItem). */
export async function readSharedStrings(part: CompressedPart, pause?: () => Promise<void>): Promise<SharedStrings> {
  const strings = new SharedStrings();
  const item = new StringItem();
  await parseCompressedPart(
    part,
    (parser, onTags) => {
      onTags(
        byLocalName((name) => {
          if (name !== 'si') return item.open(name);
          item.begin();
          return true;
        }),
        byLocalName((name) => {
          if (name !== 'si') return item.close(name);
          strings.add(item.end() ?? '');
          return true;
        }),
      );
      const onText = (value: string): void => item.add(value);
      parser.on('text', onText);
      parser.on('cdata', onText);
    },
    pause,
  );
  return strings.finish();
}
