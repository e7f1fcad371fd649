import type { SheetContent } from './sheet-content.js';

/** A workbook import writes: its sheet, made into the bytes of an .xlsx file when the file is written. */
export class SheetFile implements SheetContent {
  constructor(
    readonly sheet: string,
    readonly rows: readonly (readonly (string | null)[])[],
  ) {}

  /** The file's bytes (the writer and its library are loaded only when a workbook is written). */
  async bytes(): Promise<Uint8Array> {
    const { createWorkbook } = await import('./create-workbook.js');
    return createWorkbook(this);
  }
}
