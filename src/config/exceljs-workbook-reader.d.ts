/*
 * exceljs's streaming workbook reader on its own (read-workbook.ts): loading the whole library,
 * its writers and CSV support included, costs about twice the CPU time, paid by every command that
 * reads a workbook. The class is the one the library's own types describe.
 */
declare module 'exceljs/lib/stream/xlsx/workbook-reader.js' {
  import type { stream } from 'exceljs';

  const WorkbookReader: typeof stream.xlsx.WorkbookReader;
  export default WorkbookReader;
}
