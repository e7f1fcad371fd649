// Entries files built to make a format's reader pay for far more than their size: the deep TBX
// file and the amplified workbook of the bounded-cost item, and a large workbook that is not
// hostile at all but takes seconds to read (for a SIGTERM in the middle of it). Used by
// bench/hostile-formats.js and test/reliability/bounded-formats.test.ts.
import { Buffer } from 'node:buffer';
import yazl from 'yazl';

/** A TBX file of `count` unclosed `<a>` elements inside its root (3 bytes each). */
export function deepTbx(count) {
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n<martif type="TBX-Basic">';
  const bytes = Buffer.alloc(head.length + count * 3);
  bytes.write(head, 0, 'latin1');
  bytes.fill('<a>', head.length, bytes.length, 'latin1');
  return bytes;
}

function zip(parts) {
  const file = new yazl.ZipFile();
  for (const [name, content] of Object.entries(parts)) file.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name, { compressionLevel: 9 });
  file.end();
  return new Promise((resolve, reject) => {
    const chunks = [];
    file.outputStream.on('data', (chunk) => chunks.push(chunk));
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    file.outputStream.on('error', reject);
  });
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${MAIN}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Terms" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>';

function workbook(strings, rows) {
  const sst = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;
  const sheet = Buffer.concat([Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${MAIN}"><sheetData>`), ...rows, Buffer.from('</sheetData></worksheet>')]);
  return zip({ 'xl/workbook.xml': WORKBOOK, 'xl/_rels/workbook.xml.rels': RELS, 'xl/sharedStrings.xml': sst, 'xl/worksheets/sheet1.xml': sheet });
}

const HEADER = '<row r="1"><c r="A1" t="s"><v>1</v></c><c r="B1" t="s"><v>2</v></c></row>';

/**
 * A workbook whose one shared string of `stringBytes` characters fills both language columns of
 * `rows` rows (after a header row en, de): about a megabyte of file that expands to rows × 2 ×
 * stringBytes characters.
 */
export function amplifiedWorkbook(rows, stringBytes) {
  const body = [Buffer.from(HEADER)];
  for (let r = 2; r <= rows + 1; r++) body.push(Buffer.from(`<row r="${r}"><c r="A${r}" t="s"><v>0</v></c><c r="B${r}" t="s"><v>0</v></c></row>`));
  return workbook(['x'.repeat(stringBytes), 'en', 'de'], body);
}

/**
 * A large workbook that is not hostile: a header row en, de, one term, then `rows` rows of
 * `cells` note cells (columns C on, not read as terms): tens of megabytes of XML, seconds to read.
 */
export function longWorkbook(rows, cells) {
  const body = [Buffer.from(`${HEADER}<row r="2"><c r="A2" t="s"><v>3</v></c><c r="B2" t="s"><v>4</v></c></row>`)];
  const rest = '<c t="s"><v>0</v></c>'.repeat(cells - 1);
  for (let r = 3; r <= rows + 2; r++) body.push(Buffer.from(`<row r="${r}"><c r="C${r}" t="s"><v>0</v></c>${rest}</row>`));
  return workbook(['note', 'en', 'de', 'cart', 'Wagen'], body);
}
