import { isUtf8 } from 'node:buffer';
import { createInflateRaw } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { firstInvalidUtf8 } from '../common/text-encoding.js';
import { decodeXmlChunks, InvalidText, MAX_XML_DEPTH } from '../common/xml-text.js';
import { inflatePart, inflatesPast, Refused, type CompressedPart } from './zip-parts.js';

/** Bytes inflated at a time: pieces, soon garbage, instead of a buffer as large as the part. */
const INFLATE_CHUNK = 64 * 1024;

/**
 * Bytes of XML decoded and given to saxes at a time: small strings, soon garbage. Small enough
 * that saxes' `write` is called often: with 64 KiB pieces, V8 often compiled the loop of its first
 * long call on the stack, before the code after that loop had ever run, and then left that
 * compiled code at the end of every piece (in about half of the runs, hundreds of deoptimizations
 * of a function with the whole parser inlined, and as many recompilations); with 16 KiB, none.
 */
const DECODE_CHUNK = 16 * 1024;

/** Thrown from a parser's event handler to stop it (the reason is already recorded). */
export class Stop extends Error {}

/**
 * A tag handler that goes by the tag's local name: `handle` gets the name as written first
 * (SpreadsheetML parts are seldom prefixed, and the large ones call this for every tag), then,
 * when it does not know that name and the name has a prefix, the name without it.
 */
export function byLocalName(handle: (name: string, tag: SaxesTagPlain) => boolean): (tag: SaxesTagPlain) => void {
  return (tag) => {
    const { name } = tag;
    if (handle(name, tag)) return;
    const colon = name.indexOf(':');
    if (colon !== -1) handle(name.slice(colon + 1), tag);
  };
}

export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** Registers a part's tag handlers, counting how deep elements nest (see xmlParser). */
export type OnTags = (open: (tag: SaxesTagPlain) => void, close?: (tag: SaxesTagPlain) => void) => void;

/**
 * A saxes parser for a part of the workbook: a document type declaration, malformed XML or
 * elements nested more than MAX_XML_DEPTH deep refuse the workbook, naming the part and the
 * position in it (`where`). Tag handlers go through `onTags`, which counts the depth.
 */
function xmlParser(part: string): { parser: SaxesParser; where: () => string; onTags: OnTags } {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const where = (): string => `(line ${parser.line}, column ${parser.column + 1})`;
  let depth = 0;
  const onTags: OnTags = (open, close) => {
    parser.on('opentag', (tag) => {
      if (++depth > MAX_XML_DEPTH) throw new Refused(`part ${part} nests elements more than ${MAX_XML_DEPTH} deep ${where()}: a workbook needs a few levels; refused`, 'entries/xml-too-deep');
      open(tag);
    });
    parser.on('closetag', (tag) => {
      depth--;
      close?.(tag);
    });
  };
  parser.on('doctype', () => {
    throw new Refused(
      `part ${part} has a document type declaration (<!DOCTYPE …>), which is refused: it can declare entities that expand without bound or read other files, and a workbook needs none`,
      'entries/xml-doctype',
    );
  });
  parser.on('error', (err) => {
    // saxes prefixes its message with the position, which `where` gives.
    throw new Refused(`part ${part} is not well-formed XML ${where()}: ${err.message.replace(/^\d+:\d+: /, '')}`);
  });
  return { parser, where, onTags };
}

/**
 * Parses an inflated XML part (UTF-8, or UTF-16 with a byte order mark), calling `setUp` to attach
 * the handlers (tags through `onTags`).
 */
export function parsePart(part: string, data: Buffer, setUp: (parser: SaxesParser, onTags: OnTags) => void): void {
  const { parser, where, onTags } = xmlParser(part);
  setUp(parser, onTags);
  try {
    for (const chunk of decodeXmlChunks(data, DECODE_CHUNK)) parser.write(chunk);
    parser.close();
  } catch (caught) {
    if (caught instanceof InvalidText) throw new Refused(`part ${part} is ${caught.message} ${where()}`);
    throw caught;
  }
}

/** The length of the whole UTF-8 characters at the start of `bytes` (a character cut at the end left out). */
function wholeCharacters(bytes: Buffer): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const byte = bytes[n - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? n - back : n;
  }
  return n;
}

/**
 * A part's inflated bytes, in pieces of at most INFLATE_CHUNK. A part that declares no more than
 * one piece is inflated at once, synchronously, within its declared size (inflatePart): the piece
 * a stream would give, without the stream, its promises and a turn of Node's thread pool, which
 * cost a small workbook more than its parsing.
 */
function inflatedPieces({ data, entry }: CompressedPart): AsyncIterable<Buffer> | Iterable<Buffer> {
  if (entry.compressionMethod === 0) return [data];
  if (entry.uncompressedSize <= INFLATE_CHUNK) return [inflatePart(data, 0, entry)];
  return createInflateRaw({ chunkSize: INFLATE_CHUNK }).end(data);
}

/**
 * Parses a part as it is inflated (UTF-8), piece by piece, calling `setUp` to attach the handlers:
 * the inflated XML is never held whole. Inflating stops, and the workbook is refused, as soon as
 * the part yields more than it declares; a handler may throw Stop to end the reading early.
 * `pause` is awaited after each piece (a long parse hears signals).
 */
export async function parseCompressedPart(part: CompressedPart, setUp: (parser: SaxesParser, onTags: OnTags) => void, pause?: () => Promise<void>): Promise<void> {
  const { entry } = part;
  const { parser, where, onTags } = xmlParser(entry.fileName);
  setUp(parser, onTags);
  const pieces = inflatedPieces(part);
  let inflated = 0;
  let decoded = 0;
  let carried: Buffer | undefined;
  try {
    for await (const piece of pieces) {
      let bytes = carried === undefined ? piece : Buffer.concat([carried, piece]);
      if (inflated === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        bytes = bytes.subarray(3); // a byte order mark
        decoded = 3;
      }
      inflated += piece.length;
      if (inflated > entry.uncompressedSize) throw inflatesPast(entry);
      const whole = wholeCharacters(bytes);
      const valid = isUtf8(bytes.subarray(0, whole)) ? whole : firstInvalidUtf8(bytes.subarray(0, whole));
      // Text before invalid bytes is parsed first, so that the error says where they are.
      for (let at = 0; at < valid; ) {
        let end = Math.min(at + DECODE_CHUNK, valid);
        while (end < valid && ((bytes[end] as number) & 0xc0) === 0x80) end--; // not within a character
        parser.write(bytes.toString('utf8', at, end));
        at = end;
      }
      if (valid < whole) throw new Refused(`part ${entry.fileName} is not valid UTF-8 (byte ${decoded + valid + 1}) ${where()}`);
      decoded += whole;
      carried = whole < bytes.length ? bytes.subarray(whole) : undefined;
      if (pause !== undefined) await pause();
    }
  } catch (caught) {
    // zlib's errors (Z_DATA_ERROR …) say the data is not deflate; anything else goes on.
    if (String((caught as NodeJS.ErrnoException).code).startsWith('Z_')) throw new Refused(`part ${entry.fileName} cannot be inflated (${(caught as Error).message})`);
    throw caught;
  }
  if (carried !== undefined) throw new Refused(`part ${entry.fileName} is not valid UTF-8 (byte ${decoded + 1}) ${where()}`);
  if (inflated !== entry.uncompressedSize) throw new Refused(`part ${entry.fileName} inflates to ${inflated} bytes, not the ${entry.uncompressedSize} it declares`);
  parser.close();
}
