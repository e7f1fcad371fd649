import { type Diagnostic, show, warning } from '../../lib/diagnostics.js';
import type { LanguagePair } from '../../model/entries.js';
import type { PackedEntries } from '../../model/packed-entries.js';
import { EntryCollector } from './collect-entries.js';
import { GLOSSARY_LANGUAGES } from '../../lib/languages.js';

/** A term as read from a multilingual file, where it stands (line and column, or row and column). */
export interface TermAt {
  readonly text: string;
  readonly line: number;
  readonly column: number;
}

/** Concepts without a term in a declared language listed one by one per file; the rest are summarised. */
export const MAX_MISSING_TERM_WARNINGS = 100;

const GLOSSARY_SET: ReadonlySet<string> = new Set(GLOSSARY_LANGUAGES);

/** No language refused by usage status (the usual case: not a map per concept). */
const NONE_REFUSED: ReadonlyMap<string, string> = new Map();

/**
 * The glossary language a file's language code stands for: `de`, `DE`, `de-DE`, `de_AT` and
 * `zh-Hans` are `de`, `de`, `de`, `de` and `zh`, since a glossary dictionary applies to every
 * variant of its target language. Undefined when the base is no glossary language.
 */
export function glossaryLanguageOf(code: string): string | undefined {
  const base = code.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return GLOSSARY_SET.has(base) ? base : undefined;
}

/**
 * Turns concepts (one term per language) into the entries of every dictionary a multilingual
 * file feeds: one EntryCollector per language pair, so each dictionary gets the same checks as
 * an entries file (canonical form, byte limit, duplicates after canonicalisation). A concept
 * without a term in a declared language is a warning: it is left out of the dictionaries that
 * need that language.
 */
export class ConceptCollector {
  private collectors: EntryCollector[];
  private readonly own: Diagnostic[] = [];
  private missingWarnings = 0;
  private missingSuppressed = 0;
  private firstSuppressed: { line: number; column: number } | undefined;

  constructor(
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
    private readonly pairs: readonly LanguagePair[],
    private readonly languages: readonly string[],
    /** What a `line` is in this file, for messages: a line of text or a row of a sheet. */
    private readonly unit: 'line' | 'row' = 'line',
    /** What holds one concept, for messages: a TBX concept entry, or a row of a table. */
    private readonly item: 'concept' | 'row' = 'concept',
    /**
     * Checks each term (the loader's credential scan: a text file is scanned as a whole instead),
     * returning its problems located in the term.
     */
    private readonly checkTerm?: (text: string) => readonly Diagnostic[],
  ) {
    this.collectors = pairs.map(() => new EntryCollector(file, this.own, unit));
  }

  /**
   * One concept: its terms by glossary language, where it starts, languages whose only terms were
   * refused by their usage status, and its id in the file if it has one (both named in the warning).
   */
  concept(terms: ReadonlyMap<string, TermAt>, line: number, column: number, refused: ReadonlyMap<string, string> = NONE_REFUSED, id?: string): void {
    // Runs once per concept (a row of a sheet): no array or iterator unless a language is missing.
    let missing: string[] | undefined;
    for (const lang of this.languages) if (!terms.has(lang)) (missing ??= []).push(lang);
    // A concept whose terms were all refused for a language is named even when it has no other term.
    if (missing !== undefined && (terms.size > 0 || refused.size > 0)) this.warnMissing(missing, refused, line, column, id);
    const { checkTerm } = this;
    if (checkTerm !== undefined) {
      for (const term of terms.values()) for (const found of checkTerm(term.text)) this.own.push({ ...found, line: term.line, column: term.column });
    }
    const { pairs, collectors } = this;
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i] as LanguagePair;
      const source = terms.get(pair.sourceLang);
      const target = terms.get(pair.targetLang);
      if (source === undefined || target === undefined) continue;
      (collectors[i] as EntryCollector).add(source.text, target.text, source.line, source.column, target.line, target.column);
    }
  }

  /** The language of each language column of a table (column number → language), once its header row is read; nothing by default (pull's workbook writer takes it). */
  languageColumns(columns: ReadonlyMap<number, string>): void {
    void columns;
  }

  private warnMissing(missing: readonly string[], refused: ReadonlyMap<string, string>, line: number, column: number, id: string | undefined): void {
    if (this.missingWarnings >= MAX_MISSING_TERM_WARNINGS) {
      if (this.missingSuppressed++ === 0) this.firstSuppressed = { line, column };
      return;
    }
    this.missingWarnings++;
    const names = missing.map((lang) => (refused.has(lang) ? `${lang} (only ${refused.get(lang)} terms)` : lang)).join(', ');
    const left = this.pairs.filter((p) => missing.includes(p.sourceLang) || missing.includes(p.targetLang)).map((p) => `${p.sourceLang}-${p.targetLang}`);
    const where = id === undefined ? `this ${this.item}` : `${this.item} ${show(id)}`;
    this.own.push(
      warning(
        'entries/missing-term',
        `${where} has no term in ${names}${left.length === 0 ? '' : `: it is left out of the dictionar${left.length === 1 ? 'y' : 'ies'} ${left.join(', ')}`}`,
        this.file,
        line,
        column,
      ),
    );
  }

  /**
   * About how many concepts the file holds (a hint: room is made for them before the first), with
   * room for at most `total` entries made across all dictionaries (a file with many declared
   * languages makes no table per dictionary at the size of the whole).
   */
  expect(concepts: number, total = Number.POSITIVE_INFINITY): void {
    const each = Math.min(concepts, Math.floor(total / Math.max(this.collectors.length, 1)));
    for (const collector of this.collectors) collector.expect(each);
  }

  /** Forgets every concept and diagnostic so far: the file was refused part way (nothing of it counts). */
  discard(): void {
    this.collectors = this.pairs.map(() => new EntryCollector(this.file, this.own, this.unit));
    this.own.length = 0;
    this.missingWarnings = 0;
    this.missingSuppressed = 0;
    this.firstSuppressed = undefined;
  }

  /** Ends the file: the entries of each pair, in the order of `pairs`. */
  finish(): PackedEntries[] {
    for (const collector of this.collectors) collector.finish();
    if (this.missingSuppressed > 0 && this.firstSuppressed !== undefined) {
      this.own.push(
        warning(
          'entries/more-missing-terms',
          `${this.missingSuppressed} more ${this.item}s from here on lack a term in a declared language; the first ${MAX_MISSING_TERM_WARNINGS} are listed`,
          this.file,
          this.firstSuppressed.line,
          this.firstSuppressed.column,
        ),
      );
    }
    // Pairs that share a language see its phrases alike: one diagnostic each, not one per pair.
    const seen = new Set<string>();
    for (const d of this.own) {
      const key = `${d.code}\u0000${d.line}\u0000${d.column}\u0000${d.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.diagnostics.push(d);
    }
    return this.collectors.map((collector) => collector.packed());
  }
}

/** `A`, `B`, … `Z`, `AA`: the letters of a 1-based column number. */
export function columnLetters(column: number): string {
  let letters = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
