import { isUtf8 } from 'node:buffer';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';
import { markDiagnostics, truncateDiagnostics, type Diagnostic } from '../lib/diagnostics.js';
import type { ConceptCollector } from './collect-concepts.js';
import { columnLetters } from './collect-concepts.js';
import { HEADER_SEARCH_ROWS, RowsToConcepts, type CellText } from './collect-rows.js';
import { error, show, warning } from './diagnostic.js';
import { decodeXmlChunks, InvalidText, MAX_XML_DEPTH } from './parse-tbx.js';
import { firstInvalidUtf8, Interrupted } from './read-files.js';

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
 * phonetic guides left out), inline strings (`t="inlineStr"`) and strings (`t="str"`). A number
 * is read through its cell's number format (xl/styles.xml, see NumberStyle): a date or time (a
 * term Excel took for a date, `1-2` → 2 January) is refused, and so is any number whose text
 * depends on the format or the reader's locale; an integer in the General format is the digits
 * Excel shows. A cell without a reference (`r`) is the one after the previous cell, a row without
 * one the row after the previous row. Formula cells are refused, never evaluated, and their cached
 * values are not trusted either: a term that changes when the workbook recalculates is not a term
 * (paste the values instead). Booleans (Excel turns a typed `true` into one), error values and ISO
 * date cells (`t="d"`) are refused too: each a located error that says to format the column as
 * Text. Every XML part may nest elements at most MAX_XML_DEPTH deep.
 *
 * Without a `sheet` option, the first worksheet is read; when it names no declared language in its
 * first rows (a README or title sheet first) and no `header_row` is given, the next worksheets are
 * tried in tab order, and the one read is named in a warning.
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
const STYLES = 'xl/styles.xml';
const SHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** The data descriptor signature that ends a part written with general purpose bit 3. */
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);

/** A workbook refused as a whole: the rule id says whether for its size (zip bombs), a DOCTYPE, its sheets or its shape. */
export class Refused extends Error {
  constructor(
    message: string,
    readonly code: 'entries/workbook-too-large' | 'entries/malformed-workbook' | 'entries/xml-doctype' | 'entries/xml-too-deep' | 'entries/no-such-sheet' = 'entries/malformed-workbook',
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
  /** The sheet the `sheet` option names, else the first worksheet. */
  readonly chosen: SheetEntry;
  /** Every worksheet part, by name (not inflated): the chosen one, and the others a default choice may try. */
  readonly worksheets: ReadonlyMap<string, CompressedPart>;
  readonly sharedStrings: CompressedPart | undefined;
  /** xl/styles.xml, inflated (the number format of each cell style). */
  readonly styles: Buffer | undefined;
  /** The workbook counts dates from 1904 (`date1904`), not 1900. */
  readonly date1904: boolean;
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

function isWorksheet(sheet: SheetEntry, present: ReadonlySet<string>): boolean {
  return (sheet.type === undefined || sheet.type === 'worksheet') && sheet.part !== undefined && present.has(sheet.part);
}

/** The sheet a `sheet` option chooses (default: the first worksheet in tab order), or a refusal naming the sheets there are. */
function chooseSheet(sheets: readonly SheetEntry[], wanted: string | number | undefined, present: ReadonlySet<string>): SheetEntry {
  const chosen = wanted === undefined ? (sheets.find((s) => isWorksheet(s, present)) ?? sheets[0]) : typeof wanted === 'number' ? sheets[wanted - 1] : sheets.find((s) => s.name === wanted);
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
    const rank = (name: string): number => (name === WORKBOOK_RELS ? 0 : name === WORKBOOK ? 1 : name === SHARED_STRINGS || name === STYLES ? 2 : SHEET.test(name) ? 3 : -1);
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
    let styles: Buffer | undefined;
    // Which sheet is wanted, known once the workbook and its relationships (first in `parts`) are
    // inflated; a refusal for their content waits until every part has been checked.
    let layout: { sheets: SheetEntry[]; chosen: SheetEntry; date1904: boolean } | Refused | undefined;
    const worksheets = new Map<string, CompressedPart>();
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
          const { sheets, date1904 } = readSheetList(workbook as Buffer, rels);
          layout = { sheets, chosen: chooseSheet(sheets, wanted, present), date1904 };
        } catch (caught) {
          if (!(caught instanceof Refused)) throw caught;
          layout = caught;
        }
      }
      if (SHEET.test(entry.fileName)) {
        // A sheet is inflated as it is read, within the same limit (see readRows), if it is read.
        worksheets.set(entry.fileName, { data: bytes.subarray(header.fileDataStart, header.fileDataStart + entry.compressedSize), entry });
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
      else if (entry.fileName === STYLES) styles = data;
    }
    if (layout === undefined) throw new Refused('not an .xlsx workbook: the zip container has no worksheet');
    if (layout instanceof Refused) throw layout;
    return { sheets: layout.sheets, chosen: layout.chosen, worksheets, sharedStrings, styles, date1904: layout.date1904 };
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

/** Registers a part's tag handlers, counting how deep elements nest (see xmlParser). */
type OnTags = (open: (tag: SaxesTagPlain) => void, close?: (tag: SaxesTagPlain) => void) => void;

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
function parsePart(part: string, data: Buffer, setUp: (parser: SaxesParser, onTags: OnTags) => void): void {
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
async function parseCompressedPart(part: CompressedPart, setUp: (parser: SaxesParser, onTags: OnTags) => void, pause?: () => Promise<void>): Promise<void> {
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

/** The sheets of the workbook in tab order, each with its part (the relationships say which), and its date system. */
function readSheetList(workbook: Buffer, rels: Buffer | undefined): { sheets: SheetEntry[]; date1904: boolean } {
  if (rels === undefined) throw new Refused(`not a readable .xlsx workbook: it has no ${WORKBOOK_RELS} (which part holds which sheet)`);
  const targets = new Map<string, { target: string; type: string | undefined }>();
  parsePart(WORKBOOK_RELS, rels, (_, onTags) => {
    onTags((tag: SaxesTagPlain) => {
      if (localName(tag.name) !== 'Relationship') return;
      const { Id: id, Target: target, Type: type, TargetMode: mode } = tag.attributes;
      if (typeof id !== 'string' || typeof target !== 'string' || mode === 'External') return;
      targets.set(id, { target, type: typeof type === 'string' ? type.slice(type.lastIndexOf('/') + 1) : undefined });
    });
  });
  const sheets: SheetEntry[] = [];
  let date1904 = false;
  parsePart(WORKBOOK, workbook, (_, onTags) => {
    onTags((tag: SaxesTagPlain) => {
      const local = localName(tag.name);
      if (local === 'workbookPr') {
        const value = tag.attributes['date1904'];
        date1904 = value === '1' || value === 'true';
        return;
      }
      if (local !== 'sheet') return;
      const name = tag.attributes['name'];
      // The relationship id is the `id` attribute of the relationships namespace, whatever its prefix.
      const idKey = Object.keys(tag.attributes).find((key) => key.endsWith(':id'));
      const rel = idKey === undefined ? undefined : targets.get(tag.attributes[idKey] as string);
      sheets.push({ name: typeof name === 'string' ? name : `Sheet${sheets.length + 1}`, part: rel === undefined ? undefined : resolvePart(rel.target), type: rel?.type });
    });
  });
  return { sheets, date1904 };
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
async function readSharedStrings(part: CompressedPart, pause?: () => Promise<void>): Promise<SharedStrings> {
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
 * What a number format makes of a number cell: `general` (General, `0`: an integer shows as its
 * digits), `text` (`@`: a number stored in a Text cell, shown as General), `date` (a date or a
 * time: what Excel made of text that looked like one) or `other` (decimals, percentages,
 * currencies, leading zeros, any other format: the text depends on the format and the locale).
 */
interface NumberStyle {
  readonly kind: 'general' | 'text' | 'date' | 'other';
  /** The format code, for messages. */
  readonly code: string;
}

const GENERAL: NumberStyle = { kind: 'general', code: 'General' };

/** The built-in number formats (ECMA-376 Part 1, 18.8.30) by id; 27–36 and 50–58 are East Asian dates. */
const BUILTIN_FORMATS: Readonly<Record<number, string>> = {
  0: 'General', 1: '0', 2: '0.00', 3: '#,##0', 4: '#,##0.00', 9: '0%', 10: '0.00%', 11: '0.00E+00', 12: '# ?/?', 13: '# ??/??',
  14: 'mm-dd-yy', 15: 'd-mmm-yy', 16: 'd-mmm', 17: 'mmm-yy', 18: 'h:mm AM/PM', 19: 'h:mm:ss AM/PM', 20: 'h:mm', 21: 'h:mm:ss', 22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)', 38: '#,##0 ;[Red](#,##0)', 39: '#,##0.00;(#,##0.00)', 40: '#,##0.00;[Red](#,##0.00)', 45: 'mm:ss', 46: '[h]:mm:ss', 47: 'mmss.0', 48: '##0.0E+0', 49: '@',
};

function builtinStyle(id: number): NumberStyle {
  if ((id >= 14 && id <= 22) || (id >= 27 && id <= 36) || (id >= 45 && id <= 47) || (id >= 50 && id <= 58)) return { kind: 'date', code: BUILTIN_FORMATS[id] ?? `built-in date format ${id}` };
  if (id === 0 || id === 1) return { kind: 'general', code: BUILTIN_FORMATS[id] as string };
  if (id === 49) return { kind: 'text', code: '@' };
  return { kind: 'other', code: BUILTIN_FORMATS[id] ?? `built-in format ${id}` };
}

/**
 * A custom number format by what it shows: a date or time when, outside quoted text, escaped
 * characters, fill and padding characters and bracketed parts other than elapsed time (`[h]`),
 * it has a day, month, year, hour or second code (`yyyy-mm-dd`, `DD.MM.YYYY`, `[$-409]mmm d`);
 * General, `0` and `@` as they are (what LibreOffice writes for plain cells); anything else shows
 * more or other than the number's digits (`"Model "0`, `00000`, `0.00`).
 */
function customStyle(code: string): NumberStyle {
  const bare = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .replace(/general/gi, '');
  if (/[dmyhs]/i.test(bare)) return { kind: 'date', code };
  const plain = code.trim().toLowerCase();
  if (plain === 'general' || plain === '0') return { kind: 'general', code };
  if (plain === '@') return { kind: 'text', code };
  return { kind: 'other', code };
}

/** The number style of each cell style (`s` of a cell indexes `cellXfs`), from xl/styles.xml. */
function readStyles(styles: Buffer | undefined): NumberStyle[] {
  if (styles === undefined) return [];
  const custom = new Map<number, string>();
  const ids: number[] = [];
  let inCellXfs = false;
  parsePart(STYLES, styles, (_, onTags) => {
    onTags(
      (tag) => {
        const name = localName(tag.name);
        if (name === 'numFmt') {
          const id = Number(tag.attributes['numFmtId']);
          const code = tag.attributes['formatCode'];
          if (Number.isInteger(id) && typeof code === 'string') custom.set(id, code);
        } else if (name === 'cellXfs') inCellXfs = true;
        else if (name === 'xf' && inCellXfs) ids.push(Number(tag.attributes['numFmtId'] ?? 0));
      },
      (tag) => {
        if (localName(tag.name) === 'cellXfs') inCellXfs = false;
      },
    );
  });
  return ids.map((id) => {
    const code = custom.get(id);
    return code === undefined ? builtinStyle(Number.isInteger(id) ? id : 0) : customStyle(code);
  });
}

/** A date serial as Excel shows it in the 1900 (or 1904) date system: `2024-05-01`, `2024-05-01 14:30`, `14:30`. */
function excelDate(serial: number, date1904: boolean): string | undefined {
  if (!Number.isFinite(serial) || serial < 0 || serial > 2_958_465) return undefined;
  const pad = (n: number): string => String(n).padStart(2, '0');
  const days = Math.floor(serial);
  const minutes = Math.round((serial - days) * 24 * 60);
  const time = minutes === 0 ? '' : `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  if (days === 0 && !date1904) return time === '' ? undefined : time;
  // 1900 system: day 1 is 1900-01-01, and Excel counts a 29 February 1900 that never was (day 60).
  if (!date1904 && days === 60) return '1900-02-29';
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  const date = new Date(epoch + days * 86_400_000);
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  return time === '' ? day : `${day} ${time}`;
}

/** What to do about a cell that is not text, in every message: the one fix that works in Excel, LibreOffice and Google Sheets. */
const AS_TEXT = 'format the column as Text (Format Cells › Text) and type the term again';

/** How a number cell reads as a term, through its number style (see NumberStyle), or why it cannot. */
function numberText(saved: string, style: NumberStyle, date1904: boolean): string | CellProblem {
  const number = Number(saved.trim());
  if (saved.trim() === '' || !Number.isFinite(number)) return new CellProblem(`holds ${show(saved)} as a number, which it is not (a malformed file)`);
  if (style.kind === 'date') {
    const shown = excelDate(number, date1904);
    return new CellProblem(`holds a date or time${shown === undefined ? '' : ` (${shown})`}, not text: Excel stores it as the number ${number} with the format ${show(style.code)}, and turns a term that looks like a date into one; ${AS_TEXT}`);
  }
  if (style.kind === 'other') return new CellProblem(`holds the number ${number} shown with the number format ${show(style.code)}, whose text termsync does not reproduce (it depends on the format and the locale); ${AS_TEXT}`);
  if (!Number.isInteger(number)) return new CellProblem(`holds the number ${number}, which Excel shows with the decimal separator of the reader's locale (a point or a comma); ${AS_TEXT} as it should read`);
  if (Math.abs(number) >= 1e11) return new CellProblem(`holds the number ${number}, which Excel shows in scientific notation (and keeps only 15 digits of); ${AS_TEXT}`);
  return String(number);
}

/**
 * A cell's text (the empty string: an empty cell), or why it cannot be a term, from its saved
 * content: its type (`t`), whether it has a formula, the text of its `<v>` and of its inline
 * string (`<is>`), each undefined when the cell has none, and its number style.
 */
function cellText(type: string, formula: boolean, value: string | undefined, inline: string | undefined, strings: SharedStrings, style: NumberStyle, date1904: boolean): string | CellProblem {
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
      return new CellProblem(`holds the error value ${value ?? ''}; ${AS_TEXT}`);
    case 'b':
      return value === undefined || value.trim() === '' ? '' : new CellProblem(`holds the boolean ${parseInt(value, 10) !== 0 ? 'TRUE' : 'FALSE'}, not text (Excel turns a typed true or false into one); ${AS_TEXT}`);
    case 'd':
      return value === undefined || value.trim() === '' ? '' : new CellProblem(`holds a date (${show(value)}), not text; ${AS_TEXT}`);
    default: {
      const saved = value ?? inline;
      if (saved === undefined || saved.trim() === '') return '';
      return numberText(saved, style, date1904);
    }
  }
}

/**
 * Streams the rows of a sheet part: for each `<row>`, its number and its cells that hold a value
 * (empty cells left out). `onRow` returns false to stop reading. The cell being read is kept in
 * plain variables, not an object per cell (this runs for every cell of the sheet), and a row's
 * array and cells are those of the row before, rewritten: onRow keeps nothing of them.
 */
async function readRows(
  sheet: CompressedPart,
  strings: SharedStrings,
  styles: { readonly numbers: readonly NumberStyle[]; readonly date1904: boolean },
  onRow: (row: number, cells: CellText[]) => boolean,
  pause?: () => Promise<void>,
): Promise<void> {
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
  let style = GENERAL;
  let formula = false;
  let value: string | undefined;
  let inline: string | undefined;
  let inValue = false;
  const item = new StringItem();
  const refuse = (message: string): never => {
    throw new Refused(`part ${part}: ${message}`);
  };
  try {
    await parseCompressedPart(
      sheet,
      (parser, onTags) => {
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
              const s = tag.attributes['s'];
              style = s === undefined ? GENERAL : (styles.numbers[Number(s)] ?? GENERAL);
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
                const read = cellText(type, formula, value, inline, strings, style, styles.date1904);
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
        onTags(byLocalName(onOpen), byLocalName(onClose));
      },
      pause,
    );
  } catch (caught) {
    if (!(caught instanceof Stop)) throw caught;
  }
}

/** A workbook checked, with its shared strings and number styles read: its worksheets can be read row by row. */
interface OpenWorkbook {
  /** The sheet the `sheet` option names, else the first worksheet. */
  readonly chosen: SheetEntry;
  /** The worksheets in tab order from the chosen one on (what a default choice may try). */
  readonly worksheets: readonly SheetEntry[];
  readonly stringCount: number;
  read(sheet: SheetEntry, onRow: (row: number, cells: CellText[]) => boolean): Promise<void>;
}

async function openWorkbook(bytes: Buffer, sheet: string | number | undefined, pause?: () => Promise<void>): Promise<OpenWorkbook> {
  const book = await checkedWorkbook(bytes, sheet);
  const strings = book.sharedStrings === undefined ? SharedStrings.NONE : await readSharedStrings(book.sharedStrings, pause);
  const styles = { numbers: readStyles(book.styles), date1904: book.date1904 };
  const present = new Set(book.worksheets.keys());
  const from = book.sheets.indexOf(book.chosen);
  return {
    chosen: book.chosen,
    worksheets: [book.chosen, ...book.sheets.slice(from + 1).filter((s) => isWorksheet(s, present))],
    stringCount: strings.size,
    read: (entry, onRow) => readRows(book.worksheets.get(entry.part as string) as CompressedPart, strings, styles, onRow, pause),
  };
}

/**
 * Reads the chosen sheet of a workbook (`sheet`: its name, or its position in tab order; default
 * the first worksheet) row by row: `onRow` gets each row's number and its cells that hold a value,
 * and returns false to stop. Returns the sheet's name; throws Refused when the workbook is refused.
 */
export async function readSheetRows(
  bytes: Buffer,
  sheet: string | number | undefined,
  /** Keeps nothing of a row's cells (neither the array nor a cell): they are reused for the next row. */
  onRow: (row: number, cells: CellText[]) => boolean,
  /** Told the number of shared strings before the first row (a workbook of terms has one per term, or nearly). */
  onStrings?: (count: number) => void,
): Promise<string> {
  const book = await openWorkbook(bytes, sheet);
  onStrings?.(book.stringCount);
  await book.read(book.chosen, onRow);
  return book.chosen.name;
}

/**
 * Reads a workbook's sheet into concepts: one row per concept, one column per language. Without a
 * `sheet` (nor a `header_row`), a first worksheet that names no declared language in its first
 * rows is passed over for the next one that does (see the comment at the top). Diagnostics are
 * located by row (`line`) and column number; the caller names the cell with the sheet returned
 * (`Terms!B12`). `ok` is false when the file was refused. `pause` is awaited between pieces of the
 * parts read; a load interrupted meanwhile ends with Interrupted.
 */
export async function readWorkbook(
  bytes: Buffer,
  file: string,
  collector: ConceptCollector,
  languages: readonly string[],
  options: { readonly sheet?: string | number; readonly headerRow?: number },
  diagnostics: Diagnostic[],
  pause?: () => Promise<void>,
): Promise<{ ok: boolean; sheet?: string }> {
  const before = markDiagnostics(diagnostics);
  try {
    const book = await openWorkbook(bytes, options.sheet, pause);
    // Each row holds a string per language, or nearly: the dictionaries are sized for that many
    // entries at once instead of growing through every power of two.
    // A hint only, capped: a file of countless empty strings makes no large tables.
    const expect = (): void => collector.expect(Math.min(Math.ceil(book.stringCount / Math.max(languages.length, 1)), MAX_ENTRIES_HINT), MAX_ENTRIES_HINT_TOTAL);
    expect();
    const candidates = options.sheet === undefined && options.headerRow === undefined ? book.worksheets : [book.chosen];
    for (const [k, sheet] of candidates.entries()) {
      const rows = new RowsToConcepts(file, diagnostics, collector, languages, options.headerRow, (column) => `column ${columnLetters(column)}`);
      let last = 0;
      await book.read(sheet, (row, cells) => {
        last = row;
        rows.row(row, cells);
        return rows.usable;
      });
      const ok = rows.finish(last);
      if (!ok && rows.missingHeader && candidates.length > 1) {
        // Another worksheet may hold the table (a README or title sheet first): nothing of this one counts.
        truncateDiagnostics(diagnostics, before);
        collector.discard();
        if (k + 1 < candidates.length) {
          expect();
          continue;
        }
        const first = candidates[0] as SheetEntry;
        diagnostics.push(
          error(
            'entries/no-header-row',
            `no worksheet (${candidates.map((c) => show(c.name)).join(', ')}) names a declared language (${languages.join(', ')}) in its first ${HEADER_SEARCH_ROWS} rows: the header row gives each language column its code (e.g. en, de, fr); set \`sheet\` and \`header_row\` if it is further down`,
            file,
            1,
            1,
          ),
        );
        return { ok: false, sheet: first.name };
      }
      if (ok && k > 0) {
        diagnostics.push(
          warning(
            'entries/sheet-chosen',
            `read the sheet ${show(sheet.name)}, the first worksheet that names a declared language in its first ${HEADER_SEARCH_ROWS} rows (${candidates
              .slice(0, k)
              .map((c) => show(c.name))
              .join(', ')} ${k === 1 ? 'does' : 'do'} not); set \`sheet\` to read another`,
            file,
            rows.headerLine ?? 1,
            1,
          ),
        );
      }
      return { ok, sheet: sheet.name };
    }
    return { ok: false };
  } catch (caught) {
    if (caught instanceof Interrupted) throw caught;
    // A workbook refused while its sheet was read (it inflates past its size, its XML breaks off):
    // nothing read from it counts, its rows' diagnostics neither.
    truncateDiagnostics(diagnostics, before);
    collector.discard();
    const refused = caught instanceof Refused;
    const message = refused ? caught.message : `not a readable .xlsx workbook (${(caught as Error).message})`;
    diagnostics.push(error(refused ? caught.code : 'entries/malformed-workbook', message, file, 1, 1));
    return { ok: false };
  }
}

/** Diagnostics located by row and column named by their cell (`Terms!B12`); whole-file ones stay as they are. */
export function withCells(diagnostics: readonly Diagnostic[], file: string, sheet: string): Diagnostic[] {
  const prefix = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
  return diagnostics.map((d) => (d.file === file && d.line > 0 && d.cell === undefined ? { ...d, cell: `${prefix}!${columnLetters(Math.max(d.column, 1))}${d.line}` } : d));
}
