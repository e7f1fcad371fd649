import { hashOf, SourceSet } from './source-set.js';

/**
 * The case-twin check of an EntryCollector: a source that differs only in case from one kept
 * before is reported (the service treats them as one). Kept: the lowercase forms of the sources
 * with an uppercase letter, and the line of the first source of each (`foldedLines`, by index in
 * `folded`), a set of strings like the collector's `seen`.
 */
export class CaseTwins {
  private folded = new SourceSet();
  private foldedLines = new Int32Array(16);

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
   * check of the source text.slice(start, end) of the verbatim text that may have a letter
   * lowercasing changes. Lowercased alone, not as a range of the whole text lowercased: that
   * text, as large as the file, outlived its use as garbage in the large-object space until the
   * next full collection (14 MB of a 10 MiB file's peak memory); the sources lowercased alone are
   * a few short strings, most of the usual file's sources being told uncased by SourceSet.
   */
  checkAt(text: string, start: number, end: number, line: number): void {
    this.check(text.slice(start, end), line, 1);
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
