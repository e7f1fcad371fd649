import type { Diagnostic } from '../lib/diagnostics.js';
import { canonicalChanges, canonicalPhrase, type CanonicalChange } from '../lib/canonical.js';
import { error, show, warning } from './diagnostic.js';

/** The service's limit for each source and target text (spec, "Limits"). */
export const MAX_PHRASE_BYTES = 1024;

/** Where a raw entry was written: the source phrase and the target phrase. */
export interface EntryPosition {
  readonly line: number;
  readonly column: number;
  readonly targetLine: number;
  readonly targetColumn: number;
}

const CHANGE_RULES: Record<CanonicalChange, { code: string; text: string }> = {
  'line-endings': { code: 'entries/line-ending', text: 'CR/CRLF line breaks converted to LF' },
  nfc: { code: 'entries/not-nfc', text: 'normalised to Unicode NFC' },
  whitespace: { code: 'entries/whitespace-trimmed', text: 'surrounding whitespace trimmed' },
};

/** UTF-8 length without allocating: only phrases that might exceed the limit are measured. */
function exceedsBytes(phrase: string, limit: number): boolean {
  // Each UTF-16 code unit encodes to at most 3 UTF-8 bytes.
  if (phrase.length * 3 <= limit) return false;
  return Buffer.byteLength(phrase, 'utf8') > limit;
}

/**
 * Canonicalises entries one at a time and checks every rule the service applies to a dictionary:
 * empty phrases, tabs and newlines, the byte limit, duplicate sources (after canonicalisation)
 * and case-only twins. Linear: two map look-ups per entry.
 */
export class EntryCollector {
  readonly entries = new Map<string, string>();
  /** Lowercased source → line of the first source of that spelling (one more map operation per entry). */
  private readonly folded = new Map<string, number>();
  /** Lines of the case twins, the only sources `folded` does not record. */
  private readonly twinLines = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
  ) {}

  add(rawSource: string, rawTarget: string, at: EntryPosition): void {
    const source = this.canonical(rawSource, 'source', at.line, at.column);
    const target = this.canonical(rawTarget, 'target', at.targetLine, at.targetColumn);
    let ok = this.checkPhrase(source, 'source', at.line, at.column);
    ok = this.checkPhrase(target, 'target', at.targetLine, at.targetColumn) && ok;
    if (!ok) return;
    const lower = source.toLowerCase();
    const firstLine = this.folded.get(lower);
    if (firstLine === undefined) {
      this.folded.set(lower, at.line);
      this.entries.set(source, target);
      return;
    }
    if (this.entries.has(source)) {
      const line = this.twinLines.get(source) ?? firstLine;
      this.diagnostics.push(
        error('entries/duplicate-source', `duplicate source phrase ${show(source)} on lines ${line} and ${at.line}; the service rejects the whole dictionary`, this.file, at.line, at.column),
      );
      return;
    }
    this.diagnostics.push(
      warning('entries/case-twin', `source phrase ${show(source)} differs only in case from the source phrase on line ${firstLine}`, this.file, at.line, at.column),
    );
    this.twinLines.set(source, at.line);
    this.entries.set(source, target);
  }

  private canonical(raw: string, role: 'source' | 'target', line: number, column: number): string {
    const phrase = canonicalPhrase(raw);
    if (phrase !== raw) {
      for (const change of canonicalChanges(raw)) {
        const rule = CHANGE_RULES[change];
        this.diagnostics.push(warning(rule.code, `${role} phrase ${show(phrase)}: ${rule.text}`, this.file, line, column));
      }
    }
    return phrase;
  }

  private checkPhrase(phrase: string, role: 'source' | 'target', line: number, column: number): boolean {
    if (phrase === '') {
      this.diagnostics.push(error(`entries/empty-${role}`, `empty ${role} phrase`, this.file, line, column));
      return false;
    }
    if (phrase.includes('\t') || phrase.includes('\n')) {
      const what = phrase.includes('\t') ? 'a tab' : 'a line break';
      this.diagnostics.push(error('entries/tab-or-newline', `${role} phrase ${show(phrase)} contains ${what}, which the entry formats cannot carry`, this.file, line, column));
      return false;
    }
    if (exceedsBytes(phrase, MAX_PHRASE_BYTES)) {
      this.diagnostics.push(
        error('entries/phrase-too-long', `${role} phrase is ${Buffer.byteLength(phrase, 'utf8')} UTF-8 bytes; the limit is ${MAX_PHRASE_BYTES}`, this.file, line, column),
      );
      return false;
    }
    return true;
  }
}
