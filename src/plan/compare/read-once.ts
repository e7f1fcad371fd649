import { literalDigestOfText } from '../../lib/text-digest.js';
import type { Entries } from '../../model/entries.js';
import type { ExpectedLiteral } from '../../model/live.js';
import { PackedEntries, type DeferredText } from '../../model/packed-entries.js';
import { hashEntries } from '../fingerprint-live.js';
import { hashOfLatin1Lines, literalDigestOfSortedLines, sortedLinesOfLatin1 } from './sorted-bytes.js';

/**
 * How deferred entries are read again: the loader's own read of their file (their DeferredText's
 * `read`, and `readLatin1` when it has one), which must give the text that was checked or throw.
 */
export type Reread = Pick<DeferredText, 'read' | 'readLatin1'>;

/** For a comparison given no re-read: deferred entries it would have to read again are a bug of its caller. */
export const NO_REREAD: Reread = {
  read: () => {
    throw new Error('internal error: deferred entries compared without the read that gives their text again');
  },
};

/**
 * Deferred entries (see PackedEntries.deferred) read again for one comparison, at most once: the
 * entries sorted by source (as termsync uploads them, as the service answers after termsync's own
 * apply) are made from this read, only for an answer that is not their text as read; the text read
 * then serves the rest of the comparison. A read that failed (the file changed: exit 3) fails again
 * with the same error, without another read. The read itself is the loader's (`reread`, the
 * entries' DeferredText), handed over by the caller: nothing here reads a file of its own accord.
 */
export class ReadOnce {
  private again: PackedEntries | undefined;
  private failure: Error | undefined;
  /** Literal digest of the entries sorted by source: null when that is the order read; undefined until made. */
  private sorted: string | null | undefined;

  constructor(
    private readonly expected: PackedEntries,
    private readonly reread: Reread,
  ) {}

  /**
   * The file's bytes read again as a Latin-1 string (see DeferredText.readLatin1), when the sorted
   * digest was made from them: the entries' text is decoded from them if needed (no other read).
   */
  private latin1: string | undefined;

  /** The entries, read again (their text, when they keep it already, is not read again). */
  entries(): PackedEntries {
    if (this.again !== undefined) return this.again;
    if (this.failure !== undefined) throw this.failure;
    if (this.latin1 !== undefined) {
      this.again = this.expected.againOf(Buffer.from(this.latin1, 'latin1').toString('utf8'));
      this.latin1 = undefined;
      return this.again;
    }
    const again = this.attempt(() => this.expected.againOf(this.expected.keptText ?? this.reread.read()));
    this.again = again;
    return again;
  }

  /** `read`, its failure kept (and thrown again by every later use). */
  private attempt<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      throw this.failure;
    }
  }

  /**
   * The literal digest of the entries sorted by source, made from the file read again (and sorted
   * there, once for the comparison); undefined when that is the order read (the digest as read is
   * theirs). Made from the file's bytes, not decoded, when their order is their sources' (see
   * sortedLiteralDigestOfLatin1); else from the entries decoded and sorted.
   */
  sortedDigest(): string | undefined {
    if (this.sorted === undefined) {
      const lines = this.bytesSorted();
      if (lines !== undefined) this.sorted = literalDigestOfSortedLines(lines);
      else {
        const again = this.entries();
        const body = again.sortedBody();
        this.sorted = body.length === again.text.length - 1 && body === again.text.slice(0, -1) ? null : literalDigestOfText(body).digest;
      }
    }
    return this.sorted ?? undefined;
  }

  /** hashEntries of the entries read again: from their bytes sorted when they can be (see bytesSorted). */
  hash(): string {
    const lines = this.bytesSorted();
    return lines === undefined ? hashEntries(this.entries()) : hashOfLatin1Lines(lines.lines);
  }

  /** The file's lines (as Latin-1) sorted by source, made once from one read; undefined when the bytes cannot tell the order (see sortedLinesOfLatin1). */
  private byteLines: { readonly lines: readonly string[]; readonly inOrder: boolean } | null | undefined;

  private bytesSorted(): { readonly lines: readonly string[]; readonly inOrder: boolean } | undefined {
    if (this.byteLines !== undefined) return this.byteLines ?? undefined;
    const readLatin1 = this.reread.readLatin1;
    if (this.again !== undefined || readLatin1 === undefined) {
      this.byteLines = null;
      return undefined;
    }
    if (this.failure !== undefined) throw this.failure;
    const latin1 = this.attempt(readLatin1);
    const lines = sortedLinesOfLatin1(latin1);
    if (lines === undefined) {
      // A character above U+FFFF: decoded from this read and sorted as UTF-16 (no other read).
      this.again = this.expected.againOf(Buffer.from(latin1, 'latin1').toString('utf8'));
      this.byteLines = null;
      return undefined;
    }
    this.latin1 = latin1;
    this.byteLines = lines;
    return lines;
  }

  /** The sorted literal digest when it was made already (nothing is read). */
  get knownSortedDigest(): string | undefined {
    return this.sorted ?? undefined;
  }
}

/** Kept entries of at least this many characters are told by the literal digest of their sorted text (see KeptSorted). */
export const KEPT_LITERAL_CHARS = 1 << 20;

/**
 * Entries whose text is kept (a file too large to be deferred, see config/read-entries.ts), sorted
 * by source for one comparison, at most once: the lines, and the literal digest of their text as
 * termsync uploads it. The service answers a dictionary nobody changed with that text; told by its
 * digest from the answer's bytes, the answer is not decoded (10 MB of UTF-8: a tenth of a plan's
 * CPU) nor compared line by line. Only for a plan that does not hash the entries, of controlFree
 * entries (their literal holds no escape but `\t`, `\n`, `\"` and `\\`, so its length is known
 * without encoding it), of at least KEPT_LITERAL_CHARS.
 */
export class KeptSorted {
  private lines: readonly string[] | undefined;
  private digest: string | undefined;

  private constructor(private readonly expected: PackedEntries) {}

  /** For `expected` when it qualifies (see the class), else undefined. */
  static of(expected: Entries, hashed: boolean): KeptSorted | undefined {
    if (hashed || !(expected instanceof PackedEntries) || expected.deferredText !== undefined || !expected.controlFree || expected.textLength < KEPT_LITERAL_CHARS) return undefined;
    return new KeptSorted(expected);
  }

  /** The lines in source order (linesBySource), sorted once for the comparison. */
  sortedLines(): readonly string[] {
    return (this.lines ??= this.expected.linesBySource());
  }

  /** Bytes of the literal of the text as uploaded (quotes included): what an equal answer's string takes. */
  literalBytes(): number {
    const text = this.expected.text;
    // Each entry's tab and each LF between two entries is escaped (two bytes for one), and each `"` and `\`.
    let escaped = 2 * this.expected.size - 1;
    for (const c of ['"', '\\']) for (let at = text.indexOf(c); at !== -1; at = text.indexOf(c, at + 1)) escaped++;
    return this.expected.utf8Bytes() + escaped + 2;
  }

  /** The literal digest of the sorted text (made once). */
  sortedDigest(): string {
    return (this.digest ??= literalDigestOfText(this.sortedLines().join('\n')).digest);
  }

  /** The sorted digest when it was made already. */
  get knownDigest(): string | undefined {
    return this.digest;
  }
}

/**
 * What an answer's entries string is compared with before it is decoded, for deferred entries
 * and large kept ones (`kept`, see KeptSorted; undefined for others): their literal digest as read and, made only when a string of the same
 * length is not that one (`later`: the file read again through `reading`), as sorted by source. A
 * read that fails gives no digest: the answer is then decoded, and the comparison meets the failure.
 */
export function expectedLiteral(expected: Entries, reading?: ReadOnce, hashed = false, kept?: KeptSorted): ExpectedLiteral | undefined {
  if (kept !== undefined) return { bytes: kept.literalBytes(), digests: [], later: () => kept.sortedDigest() };
  const deferred = expected instanceof PackedEntries ? expected.deferredText : undefined;
  if (deferred === undefined || reading === undefined) return deferred === undefined ? undefined : { bytes: deferred.literalBytes, digests: [deferred.digest] };
  const later = (): string | undefined => {
    try {
      return reading.sortedDigest();
    } catch {
      return undefined;
    }
  };
  // Hashed, the text as read is told from the answer (decoded, hashed as it is read): told by its
  // digest, the hash would need the file read again. Only the sorted one is told by its digest (the
  // file is read again for it anyway, and its hash made from that read); the one as read is not
  // asked `later` for (the file is not read again for it).
  return hashed ? { bytes: deferred.literalBytes, digests: [], later, decoded: [deferred.digest] } : { bytes: deferred.literalBytes, digests: [deferred.digest], later };
}
