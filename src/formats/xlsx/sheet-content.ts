/** A workbook to write: one sheet of rows (a null cell stays empty), made into bytes when it is written. */
export class SheetContent {
  constructor(
    readonly sheet: string,
    readonly rows: readonly (readonly (string | null)[])[],
  ) {}

  /** The .xlsx file's bytes (its writer is loaded only when a workbook is written). */
  async bytes(): Promise<Uint8Array> {
    const { createWorkbook } = await import('./create-workbook.js');
    return createWorkbook(this);
  }
}
