import { hashOf, SourceSet } from './source-set.js';

/**
 * The case-twin check of an EntryCollector: a source that differs only in case from one kept
 * before is reported (the service treats them as one). Kept: the lowercase forms of the sources
 * with an uppercase letter, and the line of the first source of each (`foldedLines`, by index in
 * `folded`). A set of ranges of `lowered` (the verbatim text lowercased) or of strings, like the
 * collector's `seen`.
 */
export class CaseTwins {
  private folded = new SourceSet();
  private foldedLines = new Int32Array(16);
  /** The verbatim text lowercased, made for the first source that may have an uppercase letter; null when it cannot serve (see loweredText). */
  private lowered: string | null | undefined;

  constructor(
    /** The collector's sources kept. */
    private readonly seen: SourceSet,
    /** The line of the collector's source `at` (its index in `seen`). */
    private readonly lineOf: (at: number) => number,
    /** Reports `source` on `line` as the case twin of the source on `twinLine`. */
    private readonly warn: (source: string, twinLine: number, line: number, column: number) => void,
  ) {}

  /** Lets go of what the check kept (the collection has ended). */
  release(): void {
    this.folded.release();
    this.foldedLines = new Int32Array(0);
    this.lowered = undefined;
  }

  /** Warns when a source just kept differs only in case from one kept before. */
  check(source: string, line: number, column: number): void {
    const lower = source.toLowerCase();
    let twinLine: number | undefined;
    if (lower !== source) {
      const hash = hashOf(lower);
      const at = this.folded.addString(lower, hash);
      if (at !== -1) twinLine = this.foldedLines[at];
      else twinLine = this.foldedFirst(line, this.seen.indexOf(lower, hash));
    } else if (this.folded.size > 0) {
      const at = this.folded.indexOf(source);
      if (at !== -1) twinLine = this.foldedLines[at];
    }
    if (twinLine !== undefined) this.warn(source, twinLine, line, column);
  }

  /**
   * check of the source text.slice(start, end) of the verbatim text, its lowercase form a range
   * of the text lowercased once (loweredText): no string is made for it unless it is a twin.
   */
  checkAt(text: string, start: number, end: number, line: number): void {
    const lowered = this.loweredText(text);
    if (lowered === null) return this.check(text.slice(start, end), line, 1);
    let cased = false;
    for (let i = start; i < end && !cased; i++) cased = lowered.charCodeAt(i) !== text.charCodeAt(i);
    if (!cased) return this.checkUncasedAt(text, start, end, line);
    const hash = hashOf(lowered, start, end);
    const at = this.folded.addRangeOf(lowered, start, end, hash);
    const twinLine = at !== -1 ? this.foldedLines[at] : this.foldedFirst(line, this.seen.indexOfRange(lowered, start, end, hash));
    if (twinLine !== undefined) this.warn(text.slice(start, end), twinLine, line, 1);
  }

  /**
   * check of the source text.slice(start, end) known to have no letter that lowercasing changes:
   * its own lowercase form, it can only be the twin of a source seen before with an uppercase letter.
   */
  checkUncasedAt(text: string, start: number, end: number, line: number): void {
    if (this.folded.size === 0) return;
    const at = this.folded.indexOfRange(text, start, end);
    const twinLine = at === -1 ? undefined : this.foldedLines[at];
    if (twinLine !== undefined) this.warn(text.slice(start, end), twinLine, line, 1);
  }

  /**
   * The verbatim text lowercased, when its every range lowercases to the same range of it: the
   * text as long lowercased as it is (only U+0130 lowercases to two code units, and none to fewer;
   * tested). A tab or LF is neither cased nor ignored by case mapping, so the final sigma of a
   * phrase lowercases as in the phrase alone. Null when the lengths differ (each source is then
   * lowercased alone).
   */
  private loweredText(text: string): string | null {
    if (this.lowered === undefined) {
      const lowered = text.toLowerCase();
      this.lowered = lowered.length === text.length ? lowered : null;
    }
    return this.lowered;
  }

  /** Records `line` as the first of a lowercase form just added to `folded`; the line of `seen`'s key `at` (its all-lowercase twin), if any. */
  private foldedFirst(line: number, at: number): number | undefined {
    const index = this.folded.size - 1;
    if (index >= this.foldedLines.length) {
      const grown = new Int32Array(Math.max(this.foldedLines.length * 2, index + 1));
      grown.set(this.foldedLines);
      this.foldedLines = grown;
    }
    this.foldedLines[index] = line;
    return at === -1 ? undefined : this.lineOf(at);
  }
}
