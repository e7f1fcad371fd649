// The .xlsx writer: the bytes of a workbook of one sheet of text cells, as `import --format xlsx`
// writes it. Everything of the format termsync writes is in this one module; the zip container is
// yazl's (the zip library the workbook reader's tests already use), the parts are the smallest set
// Excel, LibreOffice and termsync's own reader (read-workbook.ts) open without a repair:
//
//   [Content_Types].xml            the part types
//   _rels/.rels                    → xl/workbook.xml
//   xl/workbook.xml                the sheet list (one sheet)
//   xl/_rels/workbook.xml.rels     → the sheet, the styles, the shared strings
//   xl/worksheets/sheet1.xml       the cells: every one a shared string (`t="s"`), never a number or
//                                  a formula, so `=SUM(A1)` and `2024` stay text
//   xl/sharedStrings.xml           each distinct text once, as Excel saves them
//   xl/styles.xml                  two cell formats: plain, and bold for the header row
//
// The output depends on the content alone (fixed part order and timestamps), so importing the same
// glossary twice writes the same bytes.
import { ZipFile } from 'yazl';
import { InputError } from '../../lib/errors.js';
import type { SheetContent } from './sheet-content.js';

/** Excel's limit on the characters of one cell. */
const MAX_CELL_CHARACTERS = 32_767;
/** Excel's limit on the length of a sheet name, and the characters a sheet name cannot hold. */
const MAX_SHEET_NAME = 31;
const SHEET_NAME_FORBIDDEN = /[[\]:*?/\\]/;
/** Characters XML 1.0 cannot hold at all (not even escaped): C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;
/** Every part's timestamp (zip stores local DOS time from 1980 on): fixed, so equal content gives equal bytes. */
const PART_TIME = new Date(2000, 0, 1);

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

function escapeXml(text: string): string {
  // A carriage return would be read back as a line feed (XML normalises line ends): written as a reference.
  return text.replace(/[&<>"\r]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#13;'));
}

/** 0 → A, 25 → Z, 26 → AA. */
function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function checkCell(text: string, where: string): void {
  const bad = NOT_XML.exec(text);
  if (bad !== null) {
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    throw new InputError('workbook_unwritable_text', `cannot write cell ${where} of the workbook: it holds U+${code}, which a workbook cannot hold (write this glossary with --format tsv or tbx)`);
  }
  if (text.length > MAX_CELL_CHARACTERS) {
    throw new InputError('workbook_unwritable_text', `cannot write cell ${where} of the workbook: it holds ${text.length} characters, over the ${MAX_CELL_CHARACTERS} a spreadsheet cell can hold (write this glossary with --format tsv or tbx)`);
  }
}

/** The worksheet and shared-strings parts of the rows: every text cell a shared string, row 1 bold. */
function sheetParts(rows: SheetContent['rows'], sheet: string): { sheetXml: string; stringsXml: string } {
  const strings = new Map<string, number>();
  let references = 0;
  const rowXml: string[] = [];
  rows.forEach((row, r) => {
    const cells: string[] = [];
    row.forEach((text, c) => {
      if (text === null) return;
      const ref = `${columnName(c)}${r + 1}`;
      checkCell(text, `${sheet}!${ref}`);
      let index = strings.get(text);
      if (index === undefined) {
        index = strings.size;
        strings.set(text, index);
      }
      references += 1;
      cells.push(`<c r="${ref}"${r === 0 ? ' s="1"' : ''} t="s"><v>${index}</v></c>`);
    });
    rowXml.push(`<row r="${r + 1}">${cells.join('')}</row>`);
  });
  const width = Math.max(1, ...rows.map((row) => row.length));
  const height = Math.max(1, rows.length);
  const sheetXml =
    `${XML_HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${REL}"><dimension ref="A1:${columnName(width - 1)}${height}"/>` +
    // The header row stays in view while scrolling through the terms.
    '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
    `<sheetFormatPr defaultRowHeight="15"/><cols><col min="1" max="${width}" width="30" customWidth="1"/></cols>` +
    `<sheetData>${rowXml.join('')}</sheetData></worksheet>`;
  // xml:space="preserve": a term's leading or trailing spaces are part of it.
  const items = [...strings.keys()].map((text) => `<si><t xml:space="preserve">${escapeXml(text)}</t></si>`).join('');
  const stringsXml = `${XML_HEAD}<sst xmlns="${MAIN}" count="${references}" uniqueCount="${strings.size}">${items}</sst>`;
  return { sheetXml, stringsXml };
}

const CONTENT_TYPES =
  `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
  '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
  '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
  '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
  '</Types>';

const PACKAGE_RELS = `${XML_HEAD}<Relationships xmlns="${PACKAGE_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

const WORKBOOK_RELS =
  `${XML_HEAD}<Relationships xmlns="${PACKAGE_REL}">` +
  `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/>` +
  `<Relationship Id="rId3" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` +
  '</Relationships>';

// The fills Excel requires (none, gray125), one font plain and one bold, and the two cell formats.
const STYLES =
  `${XML_HEAD}<styleSheet xmlns="${MAIN}">` +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

function workbookXml(sheet: string): string {
  return `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><bookViews><workbookView/></bookViews><sheets><sheet name="${escapeXml(sheet)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;
}

/** The bytes of an .xlsx workbook holding one sheet of text cells, the first row bold (a null cell stays empty). */
export async function createWorkbook(content: SheetContent): Promise<Buffer> {
  if (content.sheet === '' || content.sheet.length > MAX_SHEET_NAME || SHEET_NAME_FORBIDDEN.test(content.sheet) || NOT_XML.test(content.sheet)) {
    throw new InputError('workbook_unwritable_text', `cannot name a workbook sheet ${JSON.stringify(content.sheet)}: a sheet name has 1 to ${MAX_SHEET_NAME} characters, none of []:*?/\\`);
  }
  const { sheetXml, stringsXml } = sheetParts(content.rows, content.sheet);
  const zip = new ZipFile();
  const parts: [string, string][] = [
    ['[Content_Types].xml', CONTENT_TYPES],
    ['_rels/.rels', PACKAGE_RELS],
    ['xl/workbook.xml', workbookXml(content.sheet)],
    ['xl/_rels/workbook.xml.rels', WORKBOOK_RELS],
    ['xl/worksheets/sheet1.xml', sheetXml],
    ['xl/sharedStrings.xml', stringsXml],
    ['xl/styles.xml', STYLES],
  ];
  for (const [name, xml] of parts) zip.addBuffer(Buffer.from(xml, 'utf8'), name, { mtime: PART_TIME, compressionLevel: 6 });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
