import { parse as parseCsvSync } from 'csv-parse/sync';
import type { CsvError } from 'csv-parse';
import type { Diagnostic } from '../../lib/diagnostics.js';
import { canonicalLang } from '../../lib/canonical.js';
import { error, warning } from '../../lib/diagnostics.js';
import type { LanguagePair } from '../../model/entries.js';
import type { PackedEntries } from '../../model/packed-entries.js';
import type { EntryCollector } from '../common/collect-entries.js';
import { languageNameHeader } from '../common/language-name-header.js';
import { blankLine, isBlank, positionOf, readTextEntries, separatorHint } from '../common/text-entries.js';
import type { CsvDelimiter } from '../entries-format.js';

/** How a delimiter is named in messages and settings. */
export function delimiterName(delimiter: CsvDelimiter): string {
  return delimiter === '\t' ? 'tab' : `\`${delimiter}\``;
}

/**
 * Parses the text of a CSV entries file (as the spec defines it) into the canonical entries of one
 * dictionary (see readTextEntries). `delimiter`: the file's declared one (default a comma).
 */
export function parseCsvEntries(text: string, pair: LanguagePair, file: string, also?: (diagnostics: Diagnostic[]) => void, delimiter?: CsvDelimiter): { entries: PackedEntries; diagnostics: Diagnostic[] } {
  return readTextEntries(text, file, (body, collector, diagnostics) => parseCsvInto(body, pair, file, collector, diagnostics, delimiter), also);
}

/** Counts separators outside double quotes in a line, to tell a `;`- or tab-separated file from CSV. */
function countSeparators(text: string, delimiter: CsvDelimiter): { own: number; semicolon: number; tab: number; comma: number; firstOther: number } {
  let quoted = false;
  let own = 0;
  let comma = 0;
  let semicolon = 0;
  let tab = 0;
  let firstOther = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted) {
      if (c === delimiter) own++;
      else if (c === ',' || c === ';' || c === '\t') {
        if (c === ';') semicolon++;
        else if (c === ',') comma++;
        else tab++;
        if (firstOther === -1) firstOther = i;
      }
    }
  }
  return { own, semicolon, tab, comma, firstOther };
}

/** The first line that is not blank separates fields with `delimiter`, or the file is refused (naming the one it uses). */
function checkSeparator(body: string, file: string, diagnostics: Diagnostic[], delimiter: CsvDelimiter, declared: boolean): boolean {
  let line = 0;
  for (let start = 0; start < body.length; ) {
    line++;
    let end = body.indexOf('\n', start);
    if (end === -1) end = body.length;
    const text = body.slice(start, end);
    start = end + 1;
    if (isBlank(text)) continue;
    const counts = countSeparators(text, delimiter);
    if (counts.own === 0 && (counts.semicolon > 0 || counts.tab > 0 || counts.comma > 0)) {
      const found = counts.semicolon >= Math.max(counts.tab, counts.comma) ? ';' : counts.comma >= counts.tab ? ',' : '\t';
      const name = found === ';' ? 'semicolon `;`' : found === ',' ? 'comma `,`' : 'tab';
      const setting = found === '\t' ? '`delimiter: tab`' : `\`delimiter: "${found}"\``;
      const fix = declared
        ? `not the ${delimiterName(delimiter)} its \`delimiter\` says: set ${found === ',' ? 'it to "," (or remove it)' : setting}`
        : `termsync reads CSV with a comma \`,\` unless told otherwise: set ${setting} next to \`entries_file\` (Excel writes \`;\` in many locales), or export as "CSV (comma delimited)"`;
      diagnostics.push(error('entries/wrong-separator', `this CSV file separates fields with a ${name}, ${fix}`, file, line, counts.firstOther + 1));
      return false;
    }
    return true;
  }
  return true;
}

interface CsvRecord {
  readonly record: string[];
  readonly info: { readonly lines: number };
}

const QUOTE_ERRORS = new Set(['CSV_INVALID_CLOSING_QUOTE', 'CSV_QUOTE_NOT_CLOSED', 'INVALID_OPENING_QUOTE', 'CSV_INVALID_OPENING_QUOTE']);

function countNewlines(fields: readonly string[]): number {
  let n = 0;
  for (const field of fields) for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * The records of a CSV body with the line each ends on; every malformed record is reported (once
 * per line) and left out. Undefined when the text cannot be read at all.
 */
function readRecords(body: string, file: string, diagnostics: Diagnostic[], delimiter: CsvDelimiter): CsvRecord[] | undefined {
  const reported = new Set<number>();
  // The fast pass only tells whether any record is malformed; the pass with `info` reports them.
  let fast = true;
  let malformed = false;
  const onError = (err: CsvError | undefined): void => {
    if (fast) {
      malformed = true;
      return;
    }
    let line = typeof err?.lines === 'number' && err.lines > 0 ? err.lines : 1;
    let column = 1;
    // csv-parse reports an unclosed quote where the text ends; the user needs the line it opens on.
    if (err?.code === 'CSV_QUOTE_NOT_CLOSED') {
      const open = unclosedQuote(body, delimiter);
      if (open !== undefined) ({ line, column } = positionOf(body, open));
    }
    if (reported.has(line)) return;
    reported.add(line);
    const what = err !== undefined && QUOTE_ERRORS.has(err.code)
      ? err.code === 'CSV_QUOTE_NOT_CLOSED'
        ? 'malformed quoting: this quoted field is never closed (every later line was read into it); close it with a double quote'
        : 'malformed quoting: a field with a comma or a double quote must be enclosed in double quotes, and a double quote inside it doubled (`""`)'
      : 'malformed CSV record';
    diagnostics.push(error('entries/malformed-quote', what, file, line, column));
  };
  // Fast pass without csv-parse's per-record `info` (a third of its time): with no error, every
  // record spans one line plus the line breaks inside its quoted fields, so lines can be counted.
  // Only a file with a malformed record is parsed again with `info`, for exact error lines.
  const parse = (info: boolean): string[][] | CsvRecord[] =>
    parseCsvSync(body, {
      // normaliseText took the byte order mark off and reported it; a second U+FEFF is the
      // first phrase's (trimmed and reported as every phrase's), not csv-parse's to drop silently.
      bom: false,
      delimiter,
      info,
      record_delimiter: '\n',
      relax_column_count: true,
      skip_empty_lines: false,
      skip_records_with_error: true,
      on_skip: (err) => {
        onError(err);
        return undefined;
      },
    });
  let records: CsvRecord[];
  try {
    let plain: string[][] | undefined;
    try {
      plain = parse(false) as string[][];
    } catch {
      malformed = true;
    }
    if (!malformed && plain !== undefined) {
      let lines = 0;
      records = plain.map((record) => {
        lines += 1 + countNewlines(record);
        return { record, info: { lines } };
      });
    } else {
      fast = false;
      records = parse(true) as CsvRecord[];
    }
  } catch (caught) {
    // csv-parse's own messages quote the offending text; the located rule message is enough.
    onError(caught as CsvError);
    return undefined;
  }
  return records;
}

function parseCsvInto(body: string, pair: LanguagePair, file: string, collector: EntryCollector, diagnostics: Diagnostic[], declared?: CsvDelimiter): void {
  const delimiter = declared ?? ',';
  if (!checkSeparator(body, file, diagnostics, delimiter, declared !== undefined)) return;
  const records = readRecords(body, file, diagnostics, delimiter);
  if (records === undefined) return;
  const wantSource = canonicalLang(pair.sourceLang);
  const wantTarget = canonicalLang(pair.targetLang);
  let lineStarts: number[] | undefined;
  // Column of the field `index` (0-based) on a line, for diagnostics; 1 when it is not on that line.
  // The line index is built on the first diagnostic that needs a column (most files need none).
  const columnOf = (line: number, index: number): number => {
    lineStarts ??= lineOffsets(body);
    return fieldColumn(body, lineStarts[line - 1] ?? 0, index, delimiter);
  };
  let first = true;
  for (const { record, info } of records) {
    const line = info.lines - countNewlines(record);
    if (record.length === 1 && isBlank(record[0] ?? '')) {
      diagnostics.push(blankLine(file, line));
      continue;
    }
    if (first) {
      first = false;
      if (isHeaderRow(record, wantSource, wantTarget)) {
        diagnostics.push(
          warning('entries/csv-header', `header row ignored (not an entry): a first row that is exactly ${headerList(wantSource, wantTarget)} (any case) is taken as column titles`, file, line, 1),
        );
        continue;
      }
      const named = languageNameHeader(record, pair, delimiter === '\t' ? '<TAB>' : delimiter, file, line);
      if (named !== undefined) {
        diagnostics.push(named);
        continue;
      }
    }
    if (record.length === 2 || record.length === 4) {
      const [source = '', target = '', sourceLang, targetLang] = record;
      if (sourceLang !== undefined && targetLang !== undefined) {
        if (canonicalLang(sourceLang) !== wantSource || canonicalLang(targetLang) !== wantTarget) {
          diagnostics.push(
            warning(
              'entries/language-columns-mismatch',
              `language columns ${canonicalLang(sourceLang)}-${canonicalLang(targetLang)} do not match the dictionary pair ${wantSource}-${wantTarget}; the service ignores this entry`,
              file,
              line,
              columnOf(line, 2),
            ),
          );
          continue;
        }
      }
      if (record.length === 2 && isBlank(source) && isBlank(target)) {
        diagnostics.push(blankLine(file, line));
        continue;
      }
      // A source with a line break puts the target on a later line: its column is not worth a scan
      // (the entry is an error anyway), so the target is then located at the record's line, column 1.
      const targetColumn = source.includes('\n') ? 1 : (): number => columnOf(line, 1);
      collector.add(source, target, line, 1, line, targetColumn);
      continue;
    }
    const hint = record.length === 1 && delimiter === ',' ? separatorHint((record[0] ?? '').replace(/,/g, '')) : '';
    const d = delimiter === '\t' ? '<TAB>' : delimiter;
    diagnostics.push(
      error('entries/field-count', `found ${record.length} fields, expected 2 (source${d}target) or 4 (source${d}target${d}source_lang${d}target_lang)${hint}`, file, line, record.length > 4 ? columnOf(line, 4) : 1),
    );
  }
}

/** Offset of the start of every line (one pass; a line index for CSV diagnostics' columns). */
function lineOffsets(body: string): number[] {
  const starts = [0];
  for (let i = body.indexOf('\n'); i !== -1; i = body.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * 1-based column where field `index` of the CSV record starting at `start` begins, following
 * quoted fields (doubled quotes, commas inside). 1 when the record ends (or its line does) first.
 */
function fieldColumn(body: string, start: number, index: number, delimiter: CsvDelimiter): number {
  let i = start;
  for (let field = 0; field < index; field++) {
    if (body[i] === '"') {
      for (i++; i < body.length; i++) {
        if (body[i] !== '"') continue;
        if (body[i + 1] === '"') i++;
        else break;
      }
      i++;
    }
    while (i < body.length && body[i] !== delimiter && body[i] !== '\n') i++;
    if (body[i] !== delimiter) return 1;
    i++;
  }
  const lineStart = body.lastIndexOf('\n', i - 1) + 1;
  return lineStart === start ? i - start + 1 : 1;
}

/** Offset of the opening quote of a quoted field that is never closed, if any. */
function unclosedQuote(body: string, delimiter: CsvDelimiter): number | undefined {
  let fieldStart = true;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (fieldStart && c === '"') {
      const open = i;
      for (i++; ; i++) {
        if (i >= body.length) return open;
        if (body[i] !== '"') continue;
        if (body[i + 1] === '"') i++;
        else break;
      }
      fieldStart = false;
      continue;
    }
    fieldStart = c === delimiter || c === '\n';
  }
  return undefined;
}

/**
 * Header rows recognised in a CSV file, compared case-insensitively and exactly (a first row that
 * merely contains these words is an entry): the usual column titles, and the pair's own codes.
 */
function headerRows(source: string, target: string): string[][] {
  return [
    ['source', 'target'],
    ['term', 'translation'],
    ['source_lang', 'target_lang'],
    [source, target],
    ['source', 'target', 'source_lang', 'target_lang'],
  ];
}

export function isHeaderRow(record: readonly string[], source: string, target: string): boolean {
  const fields = record.map((field) => field.trim().toLowerCase());
  return headerRows(source, target).some((row) => row.length === fields.length && row.every((word, i) => word === fields[i]));
}

function headerList(source: string, target: string): string {
  return headerRows(source, target).map((row) => `\`${row.join(',')}\``).join(', ');
}
