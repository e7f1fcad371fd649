import { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { fromBuffer, type Entry, type ZipFile } from 'yauzl';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { ConceptCollector } from './collect-concepts.js';
import { columnLetters } from './collect-concepts.js';
import { RowsToConcepts, type CellText } from './collect-rows.js';
import { error, show } from './diagnostic.js';

/*
 * Workbooks (.xlsx) are read with exceljs's streaming reader, behind a check of the zip container
 * (yauzl) that bounds what can ever be inflated: a zip bomb is refused before exceljs sees a byte.
 *
 * 1. The central directory's declared sizes: at most MAX_WORKBOOK_PARTS parts and
 *    MAX_WORKBOOK_INFLATED bytes in the parts exceljs reads.
 * 2. Each of those parts is inflated once with its declared size as zlib's output limit, which
 *    stops as soon as a part yields more: the work is bounded by the declared sizes, lies included.
 * 3. exceljs's streaming reader walks local file headers, not the central directory. It is given
 *    only the byte ranges of the parts checked above (each one's local header must agree with the
 *    central directory), in the order it needs them: workbook and relationships, shared strings,
 *    then sheets. So it inflates exactly what was measured, never a part hidden from the
 *    directory, and never spills sheets to temporary files (which it does when a sheet comes
 *    before the shared strings, as Excel writes them).
 *
 * Formula cells are refused, never evaluated, and their cached values are not trusted either: a
 * term that changes when the workbook recalculates is not a term (paste the values instead).
 */

/** At most this many parts (files) in the zip container. */
export const MAX_WORKBOOK_PARTS = 10_000;

/** The parts exceljs reads (workbook, relationships, shared strings, sheets), inflated, at most. */
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

/** A workbook refused before exceljs reads it: the rule id says whether for its size (zip bombs) or its shape. */
class Refused extends Error {
  constructor(
    message: string,
    readonly code: 'entries/workbook-too-large' | 'entries/malformed-workbook' = 'entries/malformed-workbook',
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

/**
 * Inflates a part's data (its range as the zip directory and local header give it) with a cap of
 * its declared size: zlib stops with an error as soon as the output would exceed it, so a size
 * that lies costs no more than the truth would. Returns the bytes it inflated to.
 */
function measure(bytes: Buffer, dataStart: number, entry: Entry): number {
  const data = bytes.subarray(dataStart, dataStart + entry.compressedSize);
  if (entry.compressionMethod === 0) return data.length;
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(entry.uncompressedSize, 1) }).length;
  } catch (caught) {
    const tooLarge = (caught as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || caught instanceof RangeError;
    if (tooLarge) throw new Refused(`part ${entry.fileName} inflates to more than the ${entry.uncompressedSize} bytes it declares (a zip bomb, or a tampered file): refused`, 'entries/workbook-too-large');
    throw new Refused(`part ${entry.fileName} cannot be inflated (${(caught as Error).message})`);
  }
}

/** The byte ranges of the parts exceljs may read, checked (see the comment at the top). */
async function checkedParts(bytes: Buffer): Promise<{ ranges: Buffer[]; sharedStrings: boolean }> {
  const zip = await openZip(bytes);
  try {
    const entries = await listEntries(zip);
    const wanted = (name: string): number => (name === WORKBOOK_RELS ? 0 : name === WORKBOOK ? 1 : name === SHARED_STRINGS ? 2 : SHEET.test(name) ? 3 : -1);
    const parts = entries.filter((e) => wanted(e.fileName) >= 0).sort((a, b) => wanted(a.fileName) - wanted(b.fileName) || (a.fileName < b.fileName ? -1 : 1));
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
    const ranges: Buffer[] = [];
    for (const entry of parts) {
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw new Refused(`part ${entry.fileName} uses compression method ${entry.compressionMethod}; workbooks use deflate (8) or none (0)`);
      const header = await localHeader(zip, entry);
      const streamed = (header.generalPurposeBitFlag & 0x08) !== 0;
      const sizesAgree = header.compressedSize === entry.compressedSize && header.uncompressedSize === entry.uncompressedSize;
      const sizesLater = streamed && header.compressedSize === 0 && header.uncompressedSize === 0;
      if (header.fileName.toString('utf8') !== entry.fileName || header.compressionMethod !== entry.compressionMethod || !(sizesAgree || sizesLater)) {
        throw new Refused(`part ${entry.fileName}: its local header disagrees with the zip directory (a malformed or tampered file)`);
      }
      // The streaming reader reads a data descriptor only when the local header leaves the sizes
      // to it (exactly then, and with the descriptor's signature, is it part of the range).
      const descriptor = streamed && header.compressedSize === 0;
      const end = header.fileDataStart + entry.compressedSize + (descriptor ? 16 : 0);
      if (descriptor && !bytes.subarray(end - 16, end - 12).equals(DATA_DESCRIPTOR)) {
        throw new Refused(`part ${entry.fileName}: the data descriptor that should follow its data is missing (a malformed or tampered file)`);
      }
      const inflated = measure(bytes, header.fileDataStart, entry);
      if (inflated !== entry.uncompressedSize) throw new Refused(`part ${entry.fileName} inflates to ${inflated} bytes, not the ${entry.uncompressedSize} it declares`);
      ranges.push(bytes.subarray(entry.relativeOffsetOfLocalHeader, end));
    }
    return { ranges, sharedStrings: parts.some((e) => e.fileName === SHARED_STRINGS) };
  } finally {
    zip.close();
  }
}

interface RichText {
  readonly richText: readonly { readonly text: string }[];
}

/** A cell's value as text, or why it cannot be a term. */
function cellText(value: unknown): { text: string } | { problem: string } {
  if (value === null || value === undefined) return { text: '' };
  if (typeof value === 'string') return { text: value };
  if (typeof value === 'number' || typeof value === 'boolean') return { text: String(value) };
  if (value instanceof Date) return { problem: 'holds a date, not a term' };
  if (typeof value === 'object') {
    if ('formula' in value || 'sharedFormula' in value) {
      const cached = (value as { result?: unknown }).result;
      const shown = typeof cached === 'string' || typeof cached === 'number' ? ` (its saved value is ${show(String(cached))})` : ' (it has no saved value)';
      return { problem: `holds a formula${shown}: formulas are never evaluated and their saved values are not used; paste the values instead (Paste Special › Values)` };
    }
    if ('error' in value) return { problem: `holds the error value ${String((value).error)}` };
    if ('richText' in value) return { text: (value as RichText).richText.map((run) => run.text).join('') };
    if ('text' in value) {
      const text = (value).text;
      if (typeof text === 'string') return { text };
      if (text !== null && typeof text === 'object' && 'richText' in text) return { text: (text as RichText).richText.map((run) => run.text).join('') };
    }
  }
  return { problem: 'holds a value that is not text' };
}

interface SheetReader extends AsyncIterable<{ readonly number: number; readonly values: unknown }> {
  readonly name?: string;
}

interface BookReader extends AsyncIterable<SheetReader> {
  model?: { sheets?: { name?: string; id?: number }[] };
  sharedStrings?: unknown[];
}

/** What a `sheet` option names, for messages. */
function describeSheet(sheet: string | number): string {
  return typeof sheet === 'number' ? `sheet ${sheet}` : `sheet ${show(sheet)}`;
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
  let checked: { ranges: Buffer[]; sharedStrings: boolean };
  try {
    checked = await checkedParts(bytes);
  } catch (caught) {
    const refused = caught instanceof Refused;
    const message = refused ? caught.message : `not a readable .xlsx workbook (${(caught as Error).message})`;
    diagnostics.push(error(refused ? caught.code : 'entries/malformed-workbook', message, file, 1, 1));
    return { ok: false };
  }
  const { default: WorkbookReader } = await import('exceljs/lib/stream/xlsx/workbook-reader.js');
  const reader = new WorkbookReader(Readable.from(checked.ranges), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  }) as unknown as BookReader;
  // A workbook without shared strings (inline strings only) would make exceljs spill its sheets to
  // temporary files while it waits for them: there are none to wait for.
  if (!checked.sharedStrings) reader.sharedStrings = [];
  const seen: string[] = [];
  let chosen: string | undefined;
  let ok = true;
  try {
    let index = 0;
    for await (const sheet of reader) {
      index++;
      const name = sheet.name ?? `Sheet${index}`;
      seen.push(name);
      // Position in the workbook (its tab order), which the order of the parts need not follow.
      const order = reader.model?.sheets ?? [];
      const position = order.findIndex((s) => s.name === name) + 1 || index;
      const wanted = options.sheet === undefined ? position === 1 : typeof options.sheet === 'number' ? position === options.sheet : name === options.sheet;
      if (!wanted || chosen !== undefined) continue; // exceljs drains a sheet that is not read
      chosen = name;
      ok = await readSheet(sheet, file, collector, languages, options.headerRow, diagnostics);
    }
  } catch (caught) {
    diagnostics.push(error('entries/malformed-workbook', `not a readable .xlsx workbook (${(caught as Error).message})`, file, 1, 1));
    return { ok: false };
  }
  if (chosen === undefined) {
    const wantedName = options.sheet;
    const caseless = typeof wantedName === 'string' ? seen.find((name) => name.toLowerCase() === wantedName.toLowerCase()) : undefined;
    const hint = caseless === undefined ? '' : ` (did you mean ${show(caseless)}? sheet names are matched exactly)`;
    diagnostics.push(error('entries/no-such-sheet', `the workbook has no ${describeSheet(wantedName ?? 1)}${hint}; its sheets: ${seen.map((name) => show(name)).join(', ') || 'none'}`, file, 1, 1));
    return { ok: false };
  }
  return { ok, sheet: chosen };
}

/** Diagnostics located by row and column named by their cell (`Terms!B12`); whole-file ones stay as they are. */
export function withCells(diagnostics: readonly Diagnostic[], file: string, sheet: string): Diagnostic[] {
  const prefix = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
  return diagnostics.map((d) => (d.file === file && d.line > 0 && d.cell === undefined ? { ...d, cell: `${prefix}!${columnLetters(Math.max(d.column, 1))}${d.line}` } : d));
}

async function readSheet(sheet: SheetReader, file: string, collector: ConceptCollector, languages: readonly string[], headerRow: number | undefined, diagnostics: Diagnostic[]): Promise<boolean> {
  const rows = new RowsToConcepts(file, diagnostics, collector, languages, headerRow, (column) => `column ${columnLetters(column)}`);
  let last = 0;
  for await (const row of sheet) {
    if (!rows.usable) continue; // drain the sheet: exceljs reads on
    last = row.number;
    const values = Array.isArray(row.values) ? (row.values as unknown[]) : [];
    const cells: CellText[] = [];
    for (let column = 1; column < values.length; column++) {
      const read = cellText(values[column]);
      cells.push('problem' in read ? { text: '', column, problem: `the cell ${read.problem}` } : { text: read.text, column });
    }
    rows.row(row.number, cells);
  }
  return rows.finish(last);
}
