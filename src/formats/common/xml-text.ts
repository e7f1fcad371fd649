import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8 } from './text-encoding.js';

/** Elements may nest at most this deep (in a TBX file, and in each XML part of a workbook). */
export const MAX_XML_DEPTH = 64;

/** Raised by the chunks iterable when the bytes are not text in the declared encoding. */
export class InvalidText extends Error {}

/**
 * The text chunks of a TBX file's bytes: UTF-8, or UTF-16 with a byte order mark (some
 * terminology systems export that). Decoded chunk by chunk, so a large file never becomes one
 * large string; invalid bytes raise InvalidText, which parseTbx reports at the line reached.
 */
export function* decodeXmlChunks(bytes: Buffer, chunkBytes = 1 << 20): Generator<string> {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16) {
    // UTF-8, checked once up front (native and fast), then cut at character boundaries. Invalid
    // bytes: the text before them is parsed first, so that the error has the line they are on.
    let length = bytes.length;
    if (!isUtf8(bytes)) length = firstInvalidUtf8(bytes);
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    for (let at = start; at < length; ) {
      let end = Math.min(at + chunkBytes, length);
      while (end < length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
      yield bytes.toString('utf8', at, end);
      at = end;
    }
    if (length < bytes.length) throw new InvalidText(`not valid UTF-8 (byte ${length + 1})`);
    return;
  }
  const decoder = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be', { fatal: true });
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    const end = Math.min(at + chunkBytes, bytes.length);
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length });
    } catch {
      throw new InvalidText(`not valid UTF-16 (a byte between offsets ${at + 1} and ${end})`);
    }
    if (text.length > 0) yield text;
  }
}
