import { type Diagnostic, error, show, warning } from '../../lib/diagnostics.js';
import { canonicalChanges, canonicalPhrase, codePointName, findControlCharacter, isCanonicalInNfcText, isNfcText, type CanonicalChange } from '../../lib/canonical.js';
import { PackedEntries } from '../../model/packed-entries.js';
import { CaseTwins } from './case-twins.js';
import { SourceSet } from './source-set.js';

/** The service's limit for each source and target text (spec, "Limits"). */
export const MAX_PHRASE_BYTES = 1024;

/** Canonicalisation warnings listed one by one per file; the rest are summarised in one warning. */
export const MAX_CANONICAL_WARNINGS = 100;

const CHANGE_RULES: Record<CanonicalChange, { code: string; text: string }> = {
  'line-endings': { code: 'entries/line-ending', text: 'CR/CRLF line breaks converted to LF' },
  nfc: { code: 'entries/not-nfc', text: 'normalised to Unicode NFC' },
  whitespace: { code: 'entries/whitespace-trimmed', text: 'surrounding whitespace trimmed' },
};

/** Names of the characters canonicalPhrase trims (exactly JavaScript's `\s` and U+FEFF), as Unicode names them. */
const SPACE_NAMES: Readonly<Record<number, string>> = {
  0x09: 'CHARACTER TABULATION',
  0x0a: 'LINE FEED',
  0x0b: 'LINE TABULATION',
  0x0c: 'FORM FEED',
  0x0d: 'CARRIAGE RETURN',
  0x20: 'SPACE',
  0xa0: 'NO-BREAK SPACE',
  0x1680: 'OGHAM SPACE MARK',
  0x2000: 'EN QUAD',
  0x2001: 'EM QUAD',
  0x2002: 'EN SPACE',
  0x2003: 'EM SPACE',
  0x2004: 'THREE-PER-EM SPACE',
  0x2005: 'FOUR-PER-EM SPACE',
  0x2006: 'SIX-PER-EM SPACE',
  0x2007: 'FIGURE SPACE',
  0x2008: 'PUNCTUATION SPACE',
  0x2009: 'THIN SPACE',
  0x200a: 'HAIR SPACE',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x205f: 'MEDIUM MATHEMATICAL SPACE',
  0x3000: 'IDEOGRAPHIC SPACE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+3000 IDEOGRAPHIC SPACE ×2, U+0020 SPACE`: a run of trimmed characters, repeats counted. */
function describeSpaces(run: string): string {
  const parts: string[] = [];
  let i = 0;
  while (i < run.length) {
    let n = 1;
    while (run[i + n] === run[i]) n++;
    const name = SPACE_NAMES[run.charCodeAt(i)];
    parts.push(`${codePointName(run, i)}${name === undefined ? '' : ` ${name}`}${n > 1 ? ` ×${n}` : ''}`);
    i += n;
  }
  return parts.join(', ');
}

/**
 * What the whitespace trim removed, for the warning: a no-break or ideographic space looks like
 * nothing in a message, so the characters are named unless all of them were plain spaces.
 * Only runs for phrases that produce a warning (never on the fast path of `add`).
 */
function trimmedDetail(raw: string): string {
  const text = raw.replace(/\r\n?/g, '\n');
  // Scanned from each end (a `[\s]*$` regex would retry at every inner space: quadratic).
  let a = 0;
  while (a < text.length && SPACE_NAMES[text.charCodeAt(a)] !== undefined) a++;
  let b = text.length;
  while (b > a && SPACE_NAMES[text.charCodeAt(b - 1)] !== undefined) b--;
  const start = text.slice(0, a);
  const rest = text.slice(a);
  const end = text.slice(b);
  if (/^ *$/.test(start + end)) return '';
  if (rest === '') return ` (removed ${describeSpaces(start)}: the whole phrase)`;
  const sides = [start === '' ? '' : `${describeSpaces(start)} at the start`, end === '' ? '' : `${describeSpaces(end)} at the end`].filter((side) => side !== '');
  return ` (removed ${sides.join('; ')})`;
}

// Any C0 control (tab, LF, CR included), DEL, C1, or any code unit from U+0300 up (a range of code
// units, not a combined character): everything the slow path must look at.
// eslint-disable-next-line no-control-regex, no-misleading-character-class
const NOT_PLAIN = /[\u0000-\u001f\u007f-\u009f\u0300-\uffff]/;

/**
 * True when a phrase needs no work at all: non-empty, no surrounding space, no tab or line break,
 * no control character, only code units below U+0300 (NFC-stable, see lib/canonical.ts) and short
 * enough for the limit.
 */
function isPlain(phrase: string): boolean {
  const n = phrase.length;
  if (n === 0 || n * 3 > MAX_PHRASE_BYTES) return false;
  const first = phrase.charCodeAt(0);
  const last = phrase.charCodeAt(n - 1);
  return first > 0x20 && first !== 0xa0 && last > 0x20 && last !== 0xa0 && !NOT_PLAIN.test(phrase);
}

/** isPlain for a phrase known to hold no control character and no code unit from U+0300 up. */
function isPlainUsual(phrase: string): boolean {
  const n = phrase.length;
  if (n === 0 || n * 3 > MAX_PHRASE_BYTES) return false;
  const first = phrase.charCodeAt(0);
  const last = phrase.charCodeAt(n - 1);
  return first > 0x20 && first !== 0xa0 && last > 0x20 && last !== 0xa0;
}

/** isPlainUsual of `text.slice(start, end)`, without slicing it. */
function isPlainAt(text: string, start: number, end: number): boolean {
  const n = end - start;
  if (n <= 0 || n * 3 > MAX_PHRASE_BYTES) return false;
  const first = text.charCodeAt(start);
  const last = text.charCodeAt(end - 1);
  return first > 0x20 && first !== 0xa0 && last > 0x20 && last !== 0xa0;
}

/**
 * What makes a (canonical) phrase unusable, by the rules of an entries file: empty, a tab or a line
 * break (no entries format carries one), a control character the service refuses (C0, DEL, C1 with
 * U+0085, U+2028/U+2029, an unpaired surrogate), or over the service's length. Undefined for a good
 * phrase. The one table of these rules: the loader reports them at the file's line, `pull` and
 * `import` at the entry on the service before they would write it.
 */
export function phraseProblem(phrase: string, role: 'source' | 'target'): { readonly code: string; readonly message: string } | undefined {
  if (phrase === '') return { code: `entries/empty-${role}`, message: `empty ${role} phrase` };
  if (phrase.includes('\t') || phrase.includes('\n')) {
    const what = phrase.includes('\t') ? 'a tab' : 'a line break';
    return { code: 'entries/tab-or-newline', message: `${role} phrase ${show(phrase)} contains ${what}, which the entry formats cannot carry` };
  }
  const bad = findControlCharacter(phrase);
  if (bad !== -1) {
    const name = codePointName(phrase, bad);
    const surrogate = /^U\+D[89A-F]/.test(name) ? ' (an unpaired surrogate)' : '';
    return { code: 'entries/control-character', message: `${role} phrase contains the control character ${name}${surrogate} at character ${bad + 1}; the service rejects the dictionary` };
  }
  if (exceedsBytes(phrase, MAX_PHRASE_BYTES)) {
    return { code: 'entries/phrase-too-long', message: `${role} phrase is ${Buffer.byteLength(phrase, 'utf8')} UTF-8 bytes; the limit is ${MAX_PHRASE_BYTES}` };
  }
  return undefined;
}

/** Texts longer than this (UTF-16 code units) are counted in lines before their entries are collected. */
const LARGE_TEXT = 256 * 1024;

/** Parts of packed entries (four per entry) joined into one block at a time (see EntryCollector.blocks). */
const BLOCK_PARTS = 4096;

/** A column, or how to compute it when a diagnostic needs it. */
export type Column = number | (() => number);

function columnOf(column: Column): number {
  return typeof column === 'number' ? column : column();
}

// What checkPhrase looks for besides emptiness and length: tab, LF and the control characters of
// findControlCharacter (a superset: any surrogate, so that the exact test runs).
// eslint-disable-next-line no-control-regex
const NEEDS_CHECK = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/;

// NEEDS_CHECK but tab and LF, which separate the phrases of a TSV text: searched for in the whole text (see nfcLine).
// eslint-disable-next-line no-control-regex
const CHECKED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/g;

/** UTF-8 length without allocating: only phrases that might exceed the limit are measured. */
function exceedsBytes(phrase: string, limit: number): boolean {
  // Each UTF-16 code unit encodes to at most 3 UTF-8 bytes.
  if (phrase.length * 3 <= limit) return false;
  return Buffer.byteLength(phrase, 'utf8') > limit;
}

/**
 * Canonicalises entries one at a time and checks every rule the service applies to a dictionary:
 * empty phrases, tabs and newlines, the byte limit, duplicate sources (after canonicalisation)
 * and case-only twins. Linear, and lean on the common path (one map insert per entry, plus one
 * per source with an uppercase letter): loading millions of entries is dominated by this loop.
 */
export class EntryCollector {
  /** Source of every entry kept: duplicates and twins are found here. Dropped by `packed()`. */
  private seen = new SourceSet();
  /** The case-twin check, over `seen` and the line of each of its sources. */
  private readonly twins = new CaseTwins(
    this.seen,
    (at) => this.lines[at] ?? 0,
    (source, twinLine, line, column) =>
      this.diagnostics.push(warning('entries/case-twin', `source phrase ${show(source)} differs only in case from the source phrase on ${this.unit} ${twinLine}`, this.file, line, column)),
  );
  /**
   * Line of each entry, by its index in `seen`: room made at once by `expect` (or for a large
   * text), else doubled; not an array grown a push at a time (each growth a copy in fresh memory).
   */
  private lines = new Int32Array(64);
  /**
   * The entries kept, packed (`source TAB target LF`), in the order added: `blocks` of joined
   * entries, then the `parts` of the entries since (four per entry). A block is joined every
   * BLOCK_PARTS parts: one join of a huge array costs several times more than these small ones.
   */
  private blocks: string[] = [];
  private parts: string[] = [];
  private packedEntries: PackedEntries | undefined;
  /**
   * A text whose lines are the entries so far, unchanged: `verbatim.slice(0, verbatimEnd)` is
   * their packed form (see `verbatim()`), so nothing is copied until an entry breaks the run.
   */
  private verbatimText: string | undefined;
  private verbatimEnd = 0;
  /** Whether the verbatim text is in NFC without CR (isNfcText), once a line needs to know. */
  private nfcText: boolean | undefined;
  /** Offset in the verbatim text of the next code unit CHECKED finds, at or after the line last asked about (Infinity: none). */
  private nextChecked = -1;

  constructor(
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
    /** What a `line` is, for messages: a line of text, or a row of a workbook sheet. */
    private readonly unit: 'line' | 'row' = 'line',
  ) {}

  /** Entries kept so far. */
  get size(): number {
    return this.packedEntries?.size ?? this.seen.size;
  }

  /**
   * The entries kept, packed (see model/packed-entries.ts); ends the collection: the maps the
   * checks needed are let go (one file's worth of short-lived strings, not the repository's).
   */
  packed(): PackedEntries {
    if (this.packedEntries === undefined) {
      const text = this.verbatimText;
      let packed: string;
      if (text === undefined) {
        this.blocks.push(this.parts.join(''));
        packed = this.blocks.length === 1 ? (this.blocks[0] as string) : this.blocks.join('');
      } else if (this.verbatimEnd === text.length) packed = text;
      else packed = this.verbatimEnd > text.length ? `${text}\n` : text.slice(0, this.verbatimEnd);
      // Every phrase kept passed isPlain (or a whole-text test for the same) or checkPhrase: none holds a control character.
      this.packedEntries = PackedEntries.fromText(packed, this.seen.size, true);
      this.verbatimText = undefined;
      this.parts = [];
      this.blocks = [];
      this.seen.release();
      this.lines = new Int32Array(0);
      this.twins.release();
    }
    return this.packedEntries;
  }

  /**
   * Entries are lines of `text` (TSV): while each entry added is the next line, unchanged
   * (`add`'s `lineStart`/`lineEnd`), the packed entries are a slice of `text`, not a copy.
   */
  verbatim(text: string): void {
    if (this.seen.size > 0 || this.verbatimText !== undefined) throw new Error('EntryCollector.verbatim must come first');
    this.verbatimText = text;
    // A large file: its lines counted once (a search per line), so that the set of sources is made at its size.
    if (text.length > LARGE_TEXT) {
      let lines = 1;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
      this.seen.expect(lines);
      this.roomForLines(lines);
    }
  }

  /** About how many entries will be added (a hint, before the first): room is made for them at once. */
  expect(entries: number): void {
    if (this.seen.size > 0) return;
    this.seen.expect(entries);
    this.roomForLines(entries);
  }

  /** Room for the lines of `n` entries in all. */
  private roomForLines(n: number): void {
    if (n <= this.lines.length) return;
    const lines = new Int32Array(n);
    lines.set(this.lines);
    this.lines = lines;
  }

  /** Records the line of the entry just kept (the last key of `seen`). */
  private keptAt(line: number): void {
    const index = this.seen.size - 1;
    if (index >= this.lines.length) this.roomForLines(Math.max(this.lines.length * 2, index + 1));
    this.lines[index] = line;
  }

  /** Ends the run of unchanged lines: the entries so far are copied from the text once. */
  private endVerbatim(): void {
    if (this.verbatimText === undefined) return;
    if (this.verbatimEnd > 0) this.blocks.push(this.verbatimText.slice(0, this.verbatimEnd));
    this.verbatimText = undefined;
  }

  /**
   * `targetColumn` may be a function: computed only when a diagnostic needs it (CSV fields).
   * `usual`: the caller has checked that neither phrase holds a control character or a code unit
   * from U+0300 up (one scan of a whole TSV file is cheaper than a test per phrase).
   * `lineStart`/`lineEnd`: where the entry's line is in the text given to `verbatim()`.
   */
  add(rawSource: string, rawTarget: string, line: number, column: number, targetLine: number, targetColumn: Column, usual = false, lineStart = -1, lineEnd = -1): void {
    if (this.packedEntries !== undefined) throw new Error('EntryCollector.add after packed()');
    let source = rawSource;
    let target = rawTarget;
    // Fast path for the common case: both phrases already canonical, short, without tab or line break.
    const plain = usual ? isPlainUsual(source) && isPlainUsual(target) : isPlain(source) && isPlain(target);
    if (!plain || lineStart !== this.verbatimEnd) this.endVerbatim();
    if (!plain) {
      source = this.canonical(rawSource, 'source', line, column);
      target = this.canonical(rawTarget, 'target', targetLine, targetColumn);
      let ok = this.checkPhrase(source, 'source', line, column);
      ok = this.checkPhrase(target, 'target', targetLine, targetColumn) && ok;
      if (!ok) return;
    }
    if (this.keep(source, line, column)) {
      if (this.verbatimText !== undefined) this.verbatimEnd = lineEnd + 1;
      else {
        const { parts } = this;
        parts.push(source, '\t', target, '\n');
        if (parts.length >= BLOCK_PARTS) {
          this.blocks.push(parts.join(''));
          parts.length = 0;
        }
      }
    }
  }

  /**
   * The line `source TAB target` at [start, end) of the text given to `verbatim()`, its tab at
   * `tab`, when both phrases are plain and it continues the run of unchanged lines (the usual
   * case of a TSV file): `add` without slicing the target. False, with nothing done, otherwise.
   * `usual` as for `add`.
   */
  addPlainLine(text: string, start: number, tab: number, end: number, line: number, usual: boolean): boolean {
    if (text !== this.verbatimText || start !== this.verbatimEnd || !isPlainAt(text, start, tab) || !isPlainAt(text, tab + 1, end)) return false;
    if (!usual && !this.nfcLine(text, start, tab, end)) return false;
    const seen = this.seen;
    const twin = seen.addRange(text, start, tab);
    if (twin !== -1) {
      this.duplicate(seen.keyAt(twin), twin, line, 1);
      return true;
    }
    this.keptAt(line);
    // A source without a letter that lowercasing changes is its own lowercase form: it can only
    // be the twin of a source seen before with an uppercase letter.
    if (seen.lastRangeMayHaveCase) this.twins.checkAt(text, start, tab, line);
    else this.twins.checkUncasedAt(text, start, tab, line);
    this.verbatimEnd = end + 1;
    return true;
  }

  /**
   * Whether a line of the verbatim text that holds code units from U+0300 up (CJK, Cyrillic,
   * combining marks…) is two phrases `add` would keep as they are, without normalising each
   * phrase: the text is in NFC as a whole (isNfcText, tested once, on the first such line), the
   * line holds no character checkPhrase looks at (one search through the text, not one per
   * phrase), and neither phrase begins or ends with a space. Length is isPlainAt's to check.
   */
  private nfcLine(text: string, start: number, tab: number, end: number): boolean {
    this.nfcText ??= isNfcText(text);
    if (!this.nfcText || !isCanonicalInNfcText(text, start, tab) || !isCanonicalInNfcText(text, tab + 1, end)) return false;
    if (this.nextChecked < start) {
      CHECKED.lastIndex = start;
      this.nextChecked = CHECKED.test(text) ? CHECKED.lastIndex - 1 : Infinity;
    }
    return this.nextChecked >= end;
  }

  /** Keeps a canonical, checked source unless it is a duplicate (reported); warns of a case twin. */
  private keep(source: string, line: number, column: number): boolean {
    const twin = this.seen.addString(source);
    if (twin !== -1) {
      this.duplicate(source, twin, line, column);
      return false;
    }
    this.keptAt(line);
    this.twins.check(source, line, column);
    return true;
  }

  private duplicate(source: string, first: number, line: number, column: number): void {
    this.diagnostics.push(
      error('entries/duplicate-source', `duplicate source phrase ${show(source)} on ${this.unit}s ${this.lines[first] ?? 0} and ${line}; the service rejects the whole dictionary`, this.file, line, column),
    );
  }

  /** Ends the file: summarises the canonicalisation warnings beyond the cap. */
  finish(): void {
    if (this.suppressed === 0 || this.firstSuppressed === undefined) return;
    const { line, column } = this.firstSuppressed;
    this.diagnostics.push(
      warning('entries/more-canonical-changes', `${this.suppressed} more phrases from here on were changed by canonicalisation (whitespace, line breaks or Unicode normalisation); the first ${MAX_CANONICAL_WARNINGS} are listed`, this.file, line, column),
    );
  }

  private canonicalWarnings = 0;
  private suppressed = 0;
  private firstSuppressed: { line: number; column: number } | undefined;

  private canonical(raw: string, role: 'source' | 'target', line: number, column: Column): string {
    const phrase = canonicalPhrase(raw);
    if (phrase !== raw) {
      // A file where every line changes (a padded export) would otherwise print a warning per line.
      if (this.canonicalWarnings >= MAX_CANONICAL_WARNINGS) {
        if (this.suppressed++ === 0) this.firstSuppressed = { line, column: columnOf(column) };
        return phrase;
      }
      this.canonicalWarnings++;
      for (const change of canonicalChanges(raw)) {
        const rule = CHANGE_RULES[change];
        const detail = change === 'whitespace' ? trimmedDetail(raw) : '';
        this.diagnostics.push(warning(rule.code, `${role} phrase ${show(phrase)}: ${rule.text}${detail}`, this.file, line, columnOf(column)));
      }
    }
    return phrase;
  }

  private checkPhrase(phrase: string, role: 'source' | 'target', line: number, at: Column): boolean {
    if (phrase !== '' && !(phrase.length * 3 > MAX_PHRASE_BYTES) && !NEEDS_CHECK.test(phrase)) return true;
    const problem = phraseProblem(phrase, role);
    if (problem === undefined) return true;
    this.diagnostics.push(error(problem.code, problem.message, this.file, line, columnOf(at)));
    return false;
  }
}
