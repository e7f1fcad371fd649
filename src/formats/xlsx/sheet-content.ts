/** A workbook to write: one sheet of rows (a null cell stays empty). */
export interface SheetContent {
  readonly sheet: string;
  readonly rows: readonly (readonly (string | null)[])[];
}
