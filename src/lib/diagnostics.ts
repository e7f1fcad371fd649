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
