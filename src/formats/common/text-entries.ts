import type { Diagnostic } from '../../lib/diagnostics.js';
import { canonicalPhrase } from '../../lib/canonical.js';
import { CappedDiagnostics, warning } from '../../lib/diagnostics.js';
import type { PackedEntries } from '../../model/packed-entries.js';
import { EntryCollector } from './collect-entries.js';

/**
 * Reads the text of an entries file of one dictionary into canonical entries (TSV, CSV: each
 * format's `parse` reads the body), with a located diagnostic for every problem and every
 * canonicalisation change. Pure: `file` only labels the diagnostics. `also` adds further
 * diagnostics of the same file (its credential scan) before the list is capped.
 */
export function readTextEntries(
  text: string,
  file: string,
  parse: (body: string, collector: EntryCollector, diagnostics: Diagnostic[]) => void,
  also?: (diagnostics: Diagnostic[]) => void,
): { entries: PackedEntries; diagnostics: Diagnostic[] } {
  const diagnostics = new CappedDiagnostics();
  const collector = new EntryCollector(file, diagnostics);
  parse(normaliseText(text, file, diagnostics), collector, diagnostics);
  collector.finish();
  also?.(diagnostics);
  return { entries: collector.packed(), diagnostics: diagnostics.close() };
}

/** BOM stripped, CR/CRLF → LF, each reported once per file (a spreadsheet export has them on every line). */
function normaliseText(text: string, file: string, diagnostics: Diagnostic[]): string {
  let body = text;
  if (body.charCodeAt(0) === 0xfeff) {
    diagnostics.push(warning('entries/bom', 'byte order mark removed (canonical form is UTF-8 without BOM)', file, 1, 1));
    body = body.slice(1);
  }
  const cr = body.indexOf('\r');
  if (cr !== -1) {
    const { line, column } = positionOf(body, cr);
    const kind = body.charCodeAt(cr + 1) === 10 ? 'CRLF' : 'CR';
    diagnostics.push(warning('entries/line-ending', `${kind} line endings converted to LF`, file, line, column));
    body = body.replace(/\r\n?/g, '\n');
  }
  return body;
}

export function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export function blankLine(file: string, line: number): Diagnostic {
  return warning('entries/blank-line', 'blank line ignored', file, line, 1);
}

export function separatorHint(text: string): string {
  if (text.includes(',')) return ' (this looks like CSV: name the file .csv)';
  if (text.includes(';')) return ' (this looks like a CSV saved with `;` separators)';
  return '';
}

/** Blank after canonicalisation: only then can the first code unit be whitespace (or the text empty). */
export function isBlank(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  return (c <= 0x20 || c === 0xa0 || c >= 0x1680) && canonicalPhrase(text) === '';
}

