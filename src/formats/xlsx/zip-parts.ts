import { inflateRawSync } from 'node:zlib';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';

/*
 * The zip container of a workbook, read with yauzl within bounds (zip bombs): see check-workbook.ts
 * for the checks made before any XML is parsed, and read-workbook.ts for the whole.
 */

/** At most this many parts (files) in the zip container. */
export const MAX_WORKBOOK_PARTS = 10_000;

/** The parts read (workbook, relationships, shared strings, sheets), inflated, at most. */
export const MAX_WORKBOOK_INFLATED = 100 * 1024 * 1024;

declare module 'yauzl' {
  interface ZipFile {
    readLocalFileHeader(
      entry: Entry,
      options: { minimal: false },
      callback: (err: Error | null, header: { fileDataStart: number; generalPurposeBitFlag: number; compressionMethod: number; compressedSize: number; uncompressedSize: number; fileName: Buffer }) => void,
    ): void;
  }
}

/** A workbook refused as a whole: the rule id says whether for its size (zip bombs), a DOCTYPE, its sheets or its shape. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly code: 'entries/workbook-too-large' | 'entries/malformed-workbook' | 'entries/xml-doctype' | 'entries/xml-too-deep' | 'entries/no-such-sheet' = 'entries/malformed-workbook',
  ) {
    super(message);
  }
}

export function openZip(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    fromBuffer(bytes, { lazyEntries: true, strictFileNames: false, decodeStrings: true }, (err, zip) => (err ? reject(err) : resolve(zip)));
  });
}

export function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      if (entries.length > MAX_WORKBOOK_PARTS) {
        reject(new Refused(`the zip container holds more than ${MAX_WORKBOOK_PARTS} parts; a workbook of terms needs a handful`));
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

export function localHeader(zip: ZipFile, entry: Entry): Promise<Parameters<Parameters<ZipFile['readLocalFileHeader']>[2]>[1]> {
  return new Promise((resolve, reject) => zip.readLocalFileHeader(entry, { minimal: false }, (err, header) => (err ? reject(err) : resolve(header))));
}

export function inflatesPast(entry: Entry): Refused {
  return new Refused(`part ${entry.fileName} inflates to more than the ${entry.uncompressedSize} bytes it declares (a zip bomb, or a tampered file): refused`, 'entries/workbook-too-large');
}

/**
 * Inflates a part's data (its range as the zip directory and local header give it) with a cap of
 * its declared size: zlib stops with an error as soon as the output would exceed it, so a size
 * that lies costs no more than the truth would.
 */
export function inflatePart(bytes: Buffer, dataStart: number, entry: Entry): Buffer {
  const data = bytes.subarray(dataStart, dataStart + entry.compressedSize);
  if (entry.compressionMethod === 0) return data;
  try {
    // One output buffer of the declared size (and a byte to spare, so that a part that inflates to
    // more stops at once): no chunks to join.
    return inflateRawSync(data, { maxOutputLength: Math.max(entry.uncompressedSize, 1), chunkSize: Math.max(entry.uncompressedSize + 1, 64) });
  } catch (caught) {
    const tooLarge = (caught as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || caught instanceof RangeError;
    if (tooLarge) throw inflatesPast(entry);
    throw new Refused(`part ${entry.fileName} cannot be inflated (${(caught as Error).message})`);
  }
}

/** A part's data as stored in the zip container, checked but not inflated yet. */
export interface CompressedPart {
  readonly data: Buffer;
  readonly entry: Entry;
}
