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

/** Appends `items` to `list` one by one: a spread into `push` overflows the call stack beyond about 100,000 items. */
export function appendDiagnostics(list: Diagnostic[], items: readonly Diagnostic[]): void {
  for (const item of items) list.push(item);
}

/** Diagnostics of one rule listed for one file at most; the rest are counted in one closing diagnostic. */
export const MAX_SAME_RULE_PER_FILE = 100;

/**
 * The diagnostics of one file, at most MAX_SAME_RULE_PER_FILE per rule: a file of a million blank
 * or duplicate lines gives a readable report (and bounded memory) instead of a million lines.
 * `close()` adds, for each rule over the limit, one diagnostic of the same rule and severity that
 * says how many more there are and where the first of them is.
 */
export class CappedDiagnostics extends Array<Diagnostic> {
  /** Per rule: how many are listed, and the ones left out as runs of [list length then, how many, the first]. */
  private readonly counts = new Map<string, { listed: number; left: [number, number, Diagnostic][] }>();

  override push(...items: Diagnostic[]): number {
    for (const d of items) {
      let count = this.counts.get(d.code);
      if (count === undefined) this.counts.set(d.code, (count = { listed: 0, left: [] }));
      if (count.listed < MAX_SAME_RULE_PER_FILE) {
        count.listed++;
        super.push(d);
        continue;
      }
      const run = count.left[count.left.length - 1];
      if (run !== undefined && run[0] === this.length) run[1]++;
      else count.left.push([this.length, 1, d]);
    }
    return this.length;
  }

  /** Forgets every diagnostic from position `length` on, the ones left out after it included. */
  truncate(length: number): void {
    this.length = Math.min(this.length, length);
    for (const count of this.counts.values()) {
      count.listed = 0;
      count.left = count.left.filter((run) => run[0] < this.length);
    }
    for (const d of this) (this.counts.get(d.code) as { listed: number }).listed++;
  }

  /** The diagnostics as a plain array, with one closing diagnostic per rule over the limit. */
  close(): Diagnostic[] {
    const all: Diagnostic[] = Array.from(this);
    for (const { left } of this.counts.values()) {
      const first = left[0];
      if (first === undefined) continue;
      const more = left.reduce((sum, run) => sum + run[1], 0);
      all.push({ ...first[2], message: `and ${more} more like this from here on in this file (the first ${MAX_SAME_RULE_PER_FILE} are listed)` });
    }
    return all;
  }
}

/** Drops the diagnostics from position `length` on (of a capped list, its left-out ones after it too). */
export function truncateDiagnostics(list: Diagnostic[], length: number): void {
  if (list instanceof CappedDiagnostics) list.truncate(length);
  else list.length = length;
}
