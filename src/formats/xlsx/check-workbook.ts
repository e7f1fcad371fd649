import type { SaxesTagPlain } from 'saxes';
import { show } from '../../lib/diagnostics.js';
import { localName, parsePart } from './parse-parts.js';
import { MAX_WORKBOOK_INFLATED, inflatePart, listEntries, localHeader, openZip, Refused, type CompressedPart } from './zip-parts.js';

const WORKBOOK = 'xl/workbook.xml';

const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';

const SHARED_STRINGS = 'xl/sharedStrings.xml';

export const STYLES = 'xl/styles.xml';

const SHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** The data descriptor signature that ends a part written with general purpose bit 3. */
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08]);

/** A sheet as the workbook lists it (tab order), and the part that holds it. */
export interface SheetEntry {
  readonly name: string;
  /** The part (`xl/worksheets/sheet1.xml`), resolved through the workbook's relationships. */
  readonly part: string | undefined;
  /** The relationship's type, last segment: `worksheet`, `chartsheet`, … */
  readonly type: string | undefined;
}

/** The parts a sheet is read from (see the comment at the top). */
export interface CheckedWorkbook {
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

/** What a `sheet` option names, for messages. */
function describeSheet(sheet: string | number): string {
  return typeof sheet === 'number' ? `sheet ${sheet}` : `sheet ${show(sheet)}`;
}

export function isWorksheet(sheet: SheetEntry, present: ReadonlySet<string>): boolean {
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
export async function checkedWorkbook(bytes: Buffer, wanted: string | number | undefined): Promise<CheckedWorkbook> {
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
