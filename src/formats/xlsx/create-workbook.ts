import type { SheetContent } from './sheet-content.js';

/** The bytes of an .xlsx workbook holding one sheet of text cells (exceljs writes it; never a formula). */
export async function createWorkbook(content: SheetContent): Promise<Buffer> {
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet(content.sheet);
  for (const row of content.rows) sheet.addRow([...row]);
  sheet.getRow(1).font = { bold: true };
  return Buffer.from(await book.xlsx.writeBuffer());
}
