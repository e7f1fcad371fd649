/** A problem found in the repository, returned as data (never thrown). */
export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  /** Stable rule id, e.g. `entries/duplicate-source`. */
  readonly code: string;
  readonly message: string;
  /** Repository-relative path with forward slashes. */
  readonly file: string;
  /** 1-based; 0 when the problem concerns the whole file. */
  readonly line: number;
  readonly column: number;
  /**
   * A cell of a workbook (`Terms!B12`) for a problem in a spreadsheet, which has no lines: shown in
   * place of `line:column`. `line` and `column` then hold the row and the column number (B = 2),
   * so that sorting keeps the cells of a sheet in reading order.
   */
  readonly cell?: string;
}

/** Where in its file a diagnostic points: `12:5`, or the workbook cell (`Terms!B12`). */
export function diagnosticPlace(d: Diagnostic): string {
  if (d.cell !== undefined) return d.cell;
  return d.line > 0 ? `${d.line}:${Math.max(d.column, 1)}` : '1:1';
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Stable order for output: file, line, column, code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0),
  );
}
