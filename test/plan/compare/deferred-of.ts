import { literalDigestOfText } from '../../../src/lib/text-digest.js';
import { PackedEntries, type DeferredText } from '../../../src/model/packed-entries.js';
import { ReadOnce } from '../../../src/plan/compare/index.js';

/** The comparison's re-read of deferred entries, through the loader's own read of them (their DeferredText), as the live fetch hands it. */
export function readingOf(entries: PackedEntries): ReadOnce {
  return new ReadOnce(entries, entries.deferredText as DeferredText);
}

/**
 * Deferred entries of `packed` as the loader makes them (the literal digest of the text as read,
 * without its last LF), counting the reads of their text. Shared by the live comparison and
 * literal digest tests.
 */
export function deferredOf(packed: PackedEntries): { deferred: PackedEntries; reads: () => number } {
  let reads = 0;
  const literal = literalDigestOfText(packed.text.slice(0, -1));
  const deferred = PackedEntries.deferred(
    {
      digest: literal.digest,
      literalBytes: literal.bytes,
      length: packed.text.length,
      bytes: Buffer.byteLength(packed.text),
      read: () => {
        reads++;
        return packed.text;
      },
    },
    packed.size,
  );
  return { deferred, reads: () => reads };
}
