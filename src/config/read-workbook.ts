import { isUtf8 } from 'node:buffer';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';
import { markDiagnostics, truncateDiagnostics, type Diagnostic } from '../lib/diagnostics.js';
import type { ConceptCollector } from './collect-concepts.js';
import { columnLetters } from './collect-concepts.js';
import { RowsToConcepts, type CellText } from './collect-rows.js';
import { error, show } from './diagnostic.js';
import { decodeXmlChunks, InvalidText } from './parse-tbx.js';
import { firstInvalidUtf8 } from './read-files.js';

/*
 * Workbooks (.xlsx): the zip container is read with yauzl, the XML parts with saxes; this module
 * only maps SpreadsheetML to rows of cell texts. Nothing is evaluated, nothing written to disk.
 *
 * The zip container is checked before any XML is parsed, so that what can ever be inflated is
 * bounded (zip bombs):
 * 1. The central directory's declared sizes: at most MAX_WORKBOOK_PARTS parts and
 *    MAX_WORKBOOK_INFLATED bytes in the parts read (workbook, relationships, shared strings, sheets).
 * 2. Each of those parts' local header must agree with the central directory, and each is inflated
 *    once, with its declared size as the limit: inflating stops as soon as a part yields more, so
 *    the work is bounded by the declared sizes, lies included.
 * The workbook and its relationships (which sheet is which part) are parsed, the other sheets
 * only measured; the shared strings and the chosen sheet are inflated as they are read, in small
 * pieces, within the same limit: a part that inflates past its declared size refuses the whole
 * workbook (nothing read from it is used), and their XML is never held whole.
 *
 * Every XML part is parsed with saxes, which expands no entity but the five predefined ones and
 * character references; a document type declaration (how entity expansion and external entities
 * get in) is refused, as in TBX files.
 *
 * Cells are read as Excel saves them: shared strings (`t="s"`, rich-text runs concatenated,
 * phonetic guides left out), inline strings (`t="inlineStr"`), strings (`t="str"`), booleans
 * (`true`/`false`) and numbers (as JavaScript writes the number: a date formatted cell is its
 * serial number, as Excel stores it). A cell without a reference (`r`) is the one after the
 * previous cell, a row without one the row after the previous row. Formula cells are refused,
 * never evaluated, and their cached values are not trusted either: a term that changes when the
 * workbook recalculates is not a term (paste the values instead). Error values and ISO date cells
 * (`t="d"`) are refused too.
 */

/** The most entries per dictionary the shared strings may announce (see readWorkbook): tables of a few MiB. */
const MAX_ENTRIES_HINT = 1 << 18;
/** ...and across all the dictionaries a workbook feeds: about 12 MiB of tables, however many are declared. */
const MAX_ENTRIES_HINT_TOTAL = 1 << 19;

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

const WORKBOOK = 'xl/workbook.xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
const SHARED_STRINGS = 'xl/sharedStrings.xml';
const SHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** The data descriptor signature that ends a part written with general purpose bit 3. */
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);

/** A workbook refused as a whole: the rule id says whether for its size (zip bombs), a DOCTYPE, its sheets or its shape. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly code: 'entries/workbook-too-large' | 'entries/malformed-workbook' | 'entries/xml-doctype' | 'entries/no-such-sheet' = 'entries/malformed-workbook',
  ) {
    super(message);
  }
}

function openZip(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    fromBuffer(bytes, { lazyEntries: true, strictFileNames: false, decodeStrings: true }, (err, zip) => (err ? reject(err) : resolve(zip)));
  });
}

function listEntries(zip: ZipFile): Promise<Entry[]> {
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

function localHeader(zip: ZipFile, entry: Entry): Promise<Parameters<Parameters<ZipFile['readLocalFileHeader']>[2]>[1]> {
  return new Promise((resolve, reject) => zip.readLocalFileHeader(entry, { minimal: false }, (err, header) => (err ? reject(err) : resolve(header))));
}

function inflatesPast(entry: Entry): Refused {
  return new Refused(`part ${entry.fileName} inflates to more than the ${entry.uncompressedSize} bytes it declares (a zip bomb, or a tampered file): refused`, 'entries/workbook-too-large');
}

/**
 * Inflates a part's data (its range as the zip directory and local header give it) with a cap of
 * its declared size: zlib stops with an error as soon as the output would exceed it, so a size
 * that lies costs no more than the truth would.
 */
function inflatePart(bytes: Buffer, dataStart: number, entry: Entry): Buffer {
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

/** A sheet as the workbook lists it (tab order), and the part that holds it. */
interface SheetEntry {
  readonly name: string;
  /** The part (`xl/worksheets/sheet1.xml`), resolved through the workbook's relationships. */
  readonly part: string | undefined;
  /** The relationship's type, last segment: `worksheet`, `chartsheet`, … */
  readonly type: string | undefined;
}

/** The parts a sheet is read from (see the comment at the top). */
interface CheckedWorkbook {
  readonly sheets: readonly SheetEntry[];
  readonly chosen: SheetEntry;
  readonly sheet: CompressedPart;
  readonly sharedStrings: CompressedPart | undefined;
}

/** A part's data as stored in the zip container, checked but not inflated yet. */
interface CompressedPart {
  readonly data: Buffer;
  readonly entry: Entry;
}

/** What a `sheet` option names, for messages. */
function describeSheet(sheet: string | number): string {
  return typeof sheet === 'number' ? `sheet ${sheet}` : `sheet ${show(sheet)}`;
}

/** The sheet a `sheet` option chooses (default: the first in tab order), or a refusal naming the sheets there are. */
function chooseSheet(sheets: readonly SheetEntry[], wanted: string | number | undefined, present: ReadonlySet<string>): SheetEntry {
  const chosen = wanted === undefined ? sheets[0] : typeof wanted === 'number' ? sheets[wanted - 1] : sheets.find((s) => s.name === wanted);
  if (chosen === undefined) {
    const caseless = typeof wanted === 'string' ? sheets.find((s) => s.name.toLowerCase() === wanted.toLowerCase()) : undefined;
    const hint = caseless === undefined ? '' : ` (did you mean ${show(caseless.name)}? sheet names are matched exactly)`;
    throw new Refused(`the workbook has no ${describeSheet(wanted ?? 1)}${hint}; its sheets: ${sheets.map((s) => show(s.name)).join(', ') || 'none'}`, 'entries/no-such-sheet');
  }
  if (chosen.type !== undefined && chosen.type !== 'worksheet') {
    throw new Refused(`the workbook's sheet ${show(chosen.name)} is a ${chosen.type}, not a worksheet of cells; its sheets: ${sheets.map((s) => show(s.name)).join(', ')}`, 'entries/no-such-sheet');
  }
  if (chosen.part === undefined || !present.has(chosen.part)) {
    throw new Refused(`the workbook's sheet ${show(chosen.name)} refers to ${chosen.part === undefined ? 'no part' : `the part ${chosen.part}`}, which the zip container does not hold (a malformed or tampered file)`);
  }
  return chosen;
}

/**
 * Checks the zip container (see the comment at the top) and returns the parts the chosen sheet is
 * read from. Every part is checked and measured before anything is refused for its content.
 */
async function checkedWorkbook(bytes: Buffer, wanted: string | number | undefined): Promise<CheckedWorkbook> {
  const zip = await openZip(bytes);
  try {
    const entries = await listEntries(zip);
    const rank = (name: string): number => (name === WORKBOOK_RELS ? 0 : name === WORKBOOK ? 1 : name === SHARED_STRINGS ? 2 : SHEET.test(name) ? 3 : -1);
    const parts = entries.filter((e) => rank(e.fileName) >= 0).sort((a, b) => rank(a.fileName) - rank(b.fileName) || (a.fileName < b.fileName ? -1 : 1));
    if (!parts.some((e) => e.fileName === WORKBOOK) || !parts.some((e) => SHEET.test(e.fileName))) {
      throw new Refused('not an .xlsx workbook: the zip container has no xl/workbook.xml or no worksheet (a .xls, .ods or .numbers file must be saved as .xlsx)');
    }
    const declared = parts.reduce((n, e) => n + e.uncompressedSize, 0);
    if (declared > MAX_WORKBOOK_INFLATED) {
      throw new Refused(
        `the workbook's sheets and strings inflate to ${declared} bytes, over the ${MAX_WORKBOOK_INFLATED}-byte limit (a zip bomb, or far more than a glossary holds): nothing was inflated`,
        'entries/workbook-too-large',
      );
    }
    const present = new Set(parts.map((e) => e.fileName));
    let rels: Buffer | undefined;
    let workbook: Buffer | undefined;
    let sharedStrings: CompressedPart | undefined;
    // Which sheet is wanted, known once the workbook and its relationships (first in `parts`) are
    // inflated; a refusal for their content waits until every part has been checked.
    let layout: { sheets: SheetEntry[]; chosen: SheetEntry } | Refused | undefined;
    let sheet: CompressedPart | undefined;
    for (const entry of parts) {
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw new Refused(`part ${entry.fileName} uses compression method ${entry.compressionMethod}; workbooks use deflate (8) or none (0)`);
      const header = await localHeader(zip, entry);
      const streamed = (header.generalPurposeBitFlag & 0x08) !== 0;
      const sizesAgree = header.compressedSize === entry.compressedSize && header.uncompressedSize === entry.uncompressedSize;
      const sizesLater = streamed && header.compressedSize === 0 && header.uncompressedSize === 0;
      if (header.fileName.toString('utf8') !== entry.fileName || header.compressionMethod !== entry.compressionMethod || !(sizesAgree || sizesLater)) {
        throw new Refused(`part ${entry.fileName}: its local header disagrees with the zip directory (a malformed or tampered file)`);
      }
      // A part whose local header leaves the sizes to a data descriptor must have one after its data.
      if (streamed && header.compressedSize === 0) {
        const end = header.fileDataStart + entry.compressedSize + 16;
        if (!bytes.subarray(end - 16, end - 12).equals(DATA_DESCRIPTOR)) {
          throw new Refused(`part ${entry.fileName}: the data descriptor that should follow its data is missing (a malformed or tampered file)`);
        }
      }
      if (SHEET.test(entry.fileName) && layout === undefined) {
        try {
          const sheets = readSheetList(workbook as Buffer, rels);
          layout = { sheets, chosen: chooseSheet(sheets, wanted, present) };
        } catch (caught) {
          if (!(caught instanceof Refused)) throw caught;
          layout = caught;
        }
      }
      if (layout !== undefined && !(layout instanceof Refused) && entry.fileName === layout.chosen.part) {
        // The chosen sheet is inflated as it is read, within the same limit (see readRows).
        sheet = { data: bytes.subarray(header.fileDataStart, header.fileDataStart + entry.compressedSize), entry };
        continue;
      }
      if (entry.fileName === SHARED_STRINGS) {
        // Inflated as it is read too, before any row.
        sharedStrings = { data: bytes.subarray(header.fileDataStart, header.fileDataStart + entry.compressedSize), entry };
        continue;
      }
      const data = inflatePart(bytes, header.fileDataStart, entry);
      if (data.length !== entry.uncompressedSize) throw new Refused(`part ${entry.fileName} inflates to ${data.length} bytes, not the ${entry.uncompressedSize} it declares`);
      if (entry.fileName === WORKBOOK_RELS) rels = data;
      else if (entry.fileName === WORKBOOK) workbook = data;
    }
    if (layout === undefined) throw new Refused('not an .xlsx workbook: the zip container has no worksheet');
    if (layout instanceof Refused) throw layout;
    return { sheets: layout.sheets, chosen: layout.chosen, sheet: sheet as CompressedPart, sharedStrings };
  } finally {
    zip.close();
  }
}

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
class Stop extends Error {}

/**
 * A tag handler that goes by the tag's local name: `handle` gets the name as written first
 * (SpreadsheetML parts are seldom prefixed, and the large ones call this for every tag), then,
 * when it does not know that name and the name has a prefix, the name without it.
 */
function byLocalName(handle: (name: string, tag: SaxesTagPlain) => boolean): (tag: SaxesTagPlain) => void {
  return (tag) => {
    const { name } = tag;
    if (handle(name, tag)) return;
    const colon = name.indexOf(':');
    if (colon !== -1) handle(name.slice(colon + 1), tag);
  };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * A saxes parser for a part of the workbook: a document type declaration or malformed XML refuses
 * the workbook, naming the part and the position in it (`where`).
 */
function xmlParser(part: string): { parser: SaxesParser; where: () => string } {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const where = (): string => `(line ${parser.line}, column ${parser.column + 1})`;
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
  return { parser, where };
}

/**
 * Parses an inflated XML part (UTF-8, or UTF-16 with a byte order mark), calling `setUp` to attach
 * the handlers.
 */
function parsePart(part: string, data: Buffer, setUp: (parser: SaxesParser) => void): void {
  const { parser, where } = xmlParser(part);
  setUp(parser);
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
 */
async function parseCompressedPart(part: CompressedPart, setUp: (parser: SaxesParser) => void): Promise<void> {
  const { entry } = part;
  const { parser, where } = xmlParser(entry.fileName);
  setUp(parser);
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

/** The sheets of the workbook in tab order, each with its part (the relationships say which). */
function readSheetList(workbook: Buffer, rels: Buffer | undefined): SheetEntry[] {
  if (rels === undefined) throw new Refused(`not a readable .xlsx workbook: it has no ${WORKBOOK_RELS} (which part holds which sheet)`);
  const targets = new Map<string, { target: string; type: string | undefined }>();
  parsePart(WORKBOOK_RELS, rels, (parser) => {
    parser.on('opentag', (tag: SaxesTagPlain) => {
      if (localName(tag.name) !== 'Relationship') return;
      const { Id: id, Target: target, Type: type, TargetMode: mode } = tag.attributes;
      if (typeof id !== 'string' || typeof target !== 'string' || mode === 'External') return;
      targets.set(id, { target, type: typeof type === 'string' ? type.slice(type.lastIndexOf('/') + 1) : undefined });
    });
  });
  const sheets: SheetEntry[] = [];
  parsePart(WORKBOOK, workbook, (parser) => {
    parser.on('opentag', (tag: SaxesTagPlain) => {
      if (localName(tag.name) !== 'sheet') return;
      const name = tag.attributes['name'];
      // The relationship id is the `id` attribute of the relationships namespace, whatever its prefix.
      const idKey = Object.keys(tag.attributes).find((key) => key.endsWith(':id'));
      const rel = idKey === undefined ? undefined : targets.get(tag.attributes[idKey] as string);
      sheets.push({ name: typeof name === 'string' ? name : `Sheet${sheets.length + 1}`, part: rel === undefined ? undefined : resolvePart(rel.target), type: rel?.type });
    });
  });
  return sheets;
}

/** A relationship target of the workbook as a part name: relative to `xl/`, or absolute (`/xl/…`). */
function resolvePart(target: string): string {
  const segments = target.startsWith('/') ? [] : ['xl'];
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

/**
 * The text of a string item, a shared string (`<si>`) or a cell's inline string (`<is>`): its `<t>`
 * elements concatenated (a rich-text string has one per run), phonetic guides (`<rPh>`) left out.
 * Both parts' handlers pass it the tags by local name and the text; one collector serves both.
 */
class StringItem {
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
class SharedStrings {
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
async function readSharedStrings(part: CompressedPart): Promise<SharedStrings> {
  const strings = new SharedStrings();
  const item = new StringItem();
  await parseCompressedPart(part, (parser) => {
    parser.on(
      'opentag',
      byLocalName((name) => {
        if (name !== 'si') return item.open(name);
        item.begin();
        return true;
      }),
    );
    const onText = (value: string): void => item.add(value);
    parser.on('text', onText);
    parser.on('cdata', onText);
    parser.on(
      'closetag',
      byLocalName((name) => {
        if (name !== 'si') return item.close(name);
        strings.add(item.end() ?? '');
        return true;
      }),
    );
  });
  return strings.finish();
}

/** The number of a cell reference's column (`B12` → 2), or 0 when it is not a cell reference. */
function columnOfReference(ref: string): number {
  let column = 0;
  let i = 0;
  for (; i < ref.length && i < 4; i++) {
    const code = ref.charCodeAt(i) | 0x20; // lower case
    if (code < 0x61 || code > 0x7a) break;
    column = column * 26 + (code - 0x60);
  }
  return i === 0 || i > 3 || column > 16_384 ? 0 : column;
}

/** Why a cell cannot be a term (what cellText returns instead of its text). */
class CellProblem {
  constructor(readonly problem: string) {}
}

/**
 * A cell's text (the empty string: an empty cell), or why it cannot be a term, from its saved
 * content: its type (`t`), whether it has a formula, the text of its `<v>` and of its inline
 * string (`<is>`), each undefined when the cell has none.
 */
function cellText(type: string, formula: boolean, value: string | undefined, inline: string | undefined, strings: SharedStrings): string | CellProblem {
  if (formula) {
    const saved = value === undefined || value === '' ? undefined : type === 'str' || type === 'e' ? value : type === 'inlineStr' ? (inline ?? value) : String(parseFloat(value));
    const shown = saved === undefined ? ' (it has no saved value)' : ` (its saved value is ${show(saved)})`;
    return new CellProblem(`holds a formula${shown}: formulas are never evaluated and their saved values are not used; paste the values instead (Paste Special › Values)`);
  }
  switch (type) {
    case 's': {
      if (value === undefined || value === '') return '';
      const text = strings.get(Number(value));
      return text === undefined ? new CellProblem(`refers to shared string ${show(value)}, which the workbook does not hold (a malformed file)`) : text;
    }
    case 'inlineStr':
      return inline ?? value ?? '';
    case 'str':
      return value ?? inline ?? '';
    case 'e':
      return new CellProblem(`holds the error value ${value ?? ''}`);
    case 'b':
      return value === undefined ? '' : String(parseInt(value, 10) !== 0);
    case 'd':
      return value === undefined ? '' : new CellProblem('holds a date, not a term');
    default: {
      const saved = value ?? inline;
      if (saved === undefined || saved.trim() === '') return '';
      const number = parseFloat(saved);
      return Number.isNaN(number) ? new CellProblem(`holds ${show(saved)} as a number, which it is not (a malformed file)`) : String(number);
    }
  }
}

/**
 * Streams the rows of a sheet part: for each `<row>`, its number and its cells that hold a value
 * (empty cells left out). `onRow` returns false to stop reading. The cell being read is kept in
 * plain variables, not an object per cell (this runs for every cell of the sheet), and a row's
 * array and cells are those of the row before, rewritten: onRow keeps nothing of them.
 */
async function readRows(sheet: CompressedPart, strings: SharedStrings, onRow: (row: number, cells: CellText[]) => boolean): Promise<void> {
  const part = sheet.entry.fileName;
  let rowNumber = 0;
  let inRow = false;
  const cells: CellText[] = [];
  const pool: { text: string; column: number; problem: string | undefined }[] = [];
  const addCell = (text: string, problem: string | undefined): void => {
    let cell = pool[cells.length];
    if (cell === undefined) {
      cell = { text, column, problem };
      pool.push(cell);
    } else {
      cell.text = text;
      cell.column = column;
      cell.problem = problem;
    }
    cells.push(cell);
  };
  let column = 0;
  // The cell being read (inCell), as cellText takes it.
  let inCell = false;
  let type = 'n';
  let formula = false;
  let value: string | undefined;
  let inline: string | undefined;
  let inValue = false;
  const item = new StringItem();
  const refuse = (message: string): never => {
    throw new Refused(`part ${part}: ${message}`);
  };
  try {
    await parseCompressedPart(sheet, (parser) => {
      const onOpen = (name: string, tag: SaxesTagPlain): boolean => {
        switch (name) {
          case 'row': {
            const r = tag.attributes['r'];
            if (r === undefined) rowNumber++;
            else {
              const number = Number(r);
              if (!Number.isInteger(number) || number < 1 || number > 1_048_576) refuse(`a row's number (r="${r}") is not a row number`);
              rowNumber = number;
            }
            inRow = true;
            cells.length = 0;
            column = 0;
            return true;
          }
          case 'c': {
            if (!inRow) return true;
            const ref = tag.attributes['r'];
            if (ref === undefined) column++;
            else {
              column = columnOfReference(ref);
              if (column === 0) refuse(`a cell's reference (r="${ref}") is not a cell reference`);
            }
            inCell = true;
            type = tag.attributes['t'] ?? 'n';
            formula = false;
            value = undefined;
            inline = undefined;
            return true;
          }
          case 'v':
            if (inCell) {
              value = '';
              inValue = true;
            }
            return true;
          case 'f':
            if (inCell) formula = true;
            return true;
          case 'is':
            if (inCell) item.begin();
            return true;
          default:
            return item.open(name);
        }
      };
      parser.on('opentag', byLocalName(onOpen));
      const onText = (text: string): void => {
        if (inValue) value += text;
        else item.add(text);
      };
      parser.on('text', onText);
      parser.on('cdata', onText);
      const onClose = (name: string): boolean => {
        switch (name) {
          case 'c':
            if (inCell) {
              const read = cellText(type, formula, value, inline, strings);
              if (typeof read !== 'string') addCell('', `the cell ${read.problem}`);
              else if (read !== '') addCell(read, undefined);
              inCell = false;
            }
            return true;
          case 'v':
            inValue = false;
            return true;
          case 'is': {
            const text = item.end();
            if (text !== undefined) inline = text;
            return true;
          }
          case 'row':
            if (!inRow) return true;
            inRow = false;
            if (!onRow(rowNumber, cells)) throw new Stop();
            return true;
          default:
            return item.close(name);
        }
      };
      parser.on('closetag', byLocalName(onClose));
    });
  } catch (caught) {
    if (!(caught instanceof Stop)) throw caught;
  }
}

/**
 * Reads the chosen sheet of a workbook (`sheet`: its name, or its position in tab order; default
 * the first) row by row: `onRow` gets each row's number and its cells that hold a value, and
 * returns false to stop. Returns the sheet's name; throws Refused when the workbook is refused.
 */
export async function readSheetRows(
  bytes: Buffer,
  sheet: string | number | undefined,
  /** Keeps nothing of a row's cells (neither the array nor a cell): they are reused for the next row. */
  onRow: (row: number, cells: CellText[]) => boolean,
  /** Told the number of shared strings before the first row (a workbook of terms has one per term, or nearly). */
  onStrings?: (count: number) => void,
): Promise<string> {
  const { chosen, sheet: part, sharedStrings } = await checkedWorkbook(bytes, sheet);
  const strings = sharedStrings === undefined ? SharedStrings.NONE : await readSharedStrings(sharedStrings);
  onStrings?.(strings.size);
  await readRows(part, strings, onRow);
  return chosen.name;
}

/**
 * Reads a workbook's chosen sheet into concepts: one row per concept, one column per language.
 * Diagnostics are located by row (`line`) and column number; the caller names the cell with the
 * sheet returned (`Terms!B12`). `ok` is false when the file was refused.
 */
export async function readWorkbook(
  bytes: Buffer,
  file: string,
  collector: ConceptCollector,
  languages: readonly string[],
  options: { readonly sheet?: string | number; readonly headerRow?: number },
  diagnostics: Diagnostic[],
): Promise<{ ok: boolean; sheet?: string }> {
  const rows = new RowsToConcepts(file, diagnostics, collector, languages, options.headerRow, (column) => `column ${columnLetters(column)}`);
  let sheet: string;
  let last = 0;
  const before = markDiagnostics(diagnostics);
  try {
    sheet = await readSheetRows(
      bytes,
      options.sheet,
      (row, cells) => {
        last = row;
        rows.row(row, cells);
        return rows.usable;
      },
      // Each row holds a string per language, or nearly: the dictionaries are sized for that many
      // entries at once instead of growing through every power of two.
      // A hint only, capped: a file of countless empty strings makes no large tables.
      (count) => collector.expect(Math.min(Math.ceil(count / Math.max(languages.length, 1)), MAX_ENTRIES_HINT), MAX_ENTRIES_HINT_TOTAL),
    );
  } catch (caught) {
    // A workbook refused while its sheet was read (it inflates past its size, its XML breaks off):
    // nothing read from it counts, its rows' diagnostics neither.
    truncateDiagnostics(diagnostics, before);
    collector.discard();
    const refused = caught instanceof Refused;
    const message = refused ? caught.message : `not a readable .xlsx workbook (${(caught as Error).message})`;
    diagnostics.push(error(refused ? caught.code : 'entries/malformed-workbook', message, file, 1, 1));
    return { ok: false };
  }
  return { ok: rows.finish(last), sheet };
}

/** Diagnostics located by row and column named by their cell (`Terms!B12`); whole-file ones stay as they are. */
export function withCells(diagnostics: readonly Diagnostic[], file: string, sheet: string): Diagnostic[] {
  const prefix = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
  return diagnostics.map((d) => (d.file === file && d.line > 0 && d.cell === undefined ? { ...d, cell: `${prefix}!${columnLetters(Math.max(d.column, 1))}${d.line}` } : d));
}
