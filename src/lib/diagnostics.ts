import { displayJson } from './display.js';

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
  /**
   * Per rule and severity: how many are listed, and the ones left out as runs of [list length
   * then, mark then, how many, the first].
   */
  readonly #counts = new Map<string, { listed: number; left: [number, number, number, Diagnostic][] }>();
  #marks = 0;

  override push(...items: Diagnostic[]): number {
    for (const d of items) {
      const key = `${d.severity}\u0000${d.code}`;
      let count = this.#counts.get(key);
      if (count === undefined) this.#counts.set(key, (count = { listed: 0, left: [] }));
      if (count.listed < MAX_SAME_RULE_PER_FILE) {
        count.listed++;
        super.push(d);
        continue;
      }
      const run = count.left[count.left.length - 1];
      if (run !== undefined && run[0] === this.length && run[1] === this.#marks) run[2]++;
      else count.left.push([this.length, this.#marks, 1, d]);
    }
    return this.length;
  }

  /** A point to truncate back to (see truncateDiagnostics). */
  mark(): DiagnosticsMark {
    return { length: this.length, mark: ++this.#marks };
  }

  /** Forgets every diagnostic added since `at`, the ones left out included. */
  truncate(at: DiagnosticsMark): void {
    this.length = Math.min(this.length, at.length);
    for (const count of this.#counts.values()) {
      count.listed = 0;
      count.left = count.left.filter(([length, mark]) => length < at.length || (length === at.length && mark < at.mark));
    }
    for (const d of this) (this.#counts.get(`${d.severity}\u0000${d.code}`) as { listed: number }).listed++;
  }

  /** The diagnostics as a plain array, with one closing diagnostic per rule over the limit. */
  close(): Diagnostic[] {
    const all: Diagnostic[] = Array.from(this);
    for (const { left } of this.#counts.values()) {
      const first = left[0];
      if (first === undefined) continue;
      const more = left.reduce((sum, run) => sum + run[2], 0);
      all.push({ ...first[3], message: `and ${more} more like this from here on in this file (the first ${MAX_SAME_RULE_PER_FILE} are listed)` });
    }
    return all;
  }
}

/** Where a list of diagnostics stood (markDiagnostics), to truncate it back to. */
export interface DiagnosticsMark {
  readonly length: number;
  readonly mark: number;
}

/** A point of `list` to truncate back to (truncateDiagnostics). */
export function markDiagnostics(list: Diagnostic[]): DiagnosticsMark {
  return list instanceof CappedDiagnostics ? list.mark() : { length: list.length, mark: 0 };
}

/** Drops the diagnostics added since `at` (of a capped list, its left-out ones too). */
export function truncateDiagnostics(list: Diagnostic[], at: DiagnosticsMark): void {
  if (list instanceof CappedDiagnostics) list.truncate(at);
  else list.length = at.length;
}

export function error(code: string, message: string, file: string, line: number, column: number): Diagnostic {
  return { severity: 'error', code, message, file, line, column };
}

export function warning(code: string, message: string, file: string, line: number, column: number): Diagnostic {
  return { severity: 'warning', code, message, file, line, column };
}

/** Quotes a value for a message, shortened; values that may be secrets are never passed here. */
export function show(value: string, max = 60): string {
  const visible = value.length > max ? `${value.slice(0, max)}…` : value;
  return displayJson(JSON.stringify(visible));
}
