import { parse as parseCsvSync } from 'csv-parse/sync';
import { canonicalLang, canonicalPhrase } from '../../lib/canonical.js';
import type { Entries, LanguagePair } from '../../model/entries.js';
import type { CsvDelimiter } from '../entries-format.js';
import { isHeaderRow } from './parse-csv.js';
import { joinLines, lineBreakOf, type Line } from '../common/split-lines.js';

/**
 * The records of a CSV text with their line breaks: a line break inside double quotes belongs to
 * its field. Only the record boundaries are found here; csv-parse reads the fields.
 */
function splitRecords(text: string): Line[] {
  const records: Line[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) {
      const eol = c === '\r' && text[i + 1] === '\n' ? '\r\n' : c;
      records.push({ text: text.slice(start, i), eol });
      i += eol.length - 1;
      start = i + 1;
    }
  }
  if (start < text.length) records.push({ text: text.slice(start), eol: '' });
  return records;
}

/** Where each field of a record is written, and whether it is enclosed in double quotes. */
function fieldSpans(record: string, delimiter: CsvDelimiter): { start: number; end: number; quoted: boolean }[] {
  const spans: { start: number; end: number; quoted: boolean }[] = [];
  let i = 0;
  for (;;) {
    const start = i;
    const quoted = record[i] === '"';
    if (quoted) {
      for (i++; i < record.length; i++) {
        if (record[i] !== '"') continue;
        if (record[i + 1] === '"') i++;
        else break;
      }
      i++;
    }
    while (i < record.length && record[i] !== delimiter) i++;
    spans.push({ start, end: i, quoted });
    if (i >= record.length) return spans;
    i++;
  }
}

function csvField(value: string, quote: boolean, delimiter: CsvDelimiter): string {
  return quote || /["\r\n]/.test(value) || value.includes(delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}

function fieldsOf(record: string, delimiter: CsvDelimiter): string[] {
  const rows: string[][] = parseCsvSync(record, { delimiter, relax_column_count: true, record_delimiter: '\n' });
  return rows[0] ?? [];
}

/** A record the reader skips as blank: one field, blank after canonicalisation (`""` too). */
function isBlankRecord(fields: readonly string[]): boolean {
  return fields.length === 0 || (fields.length === 1 && canonicalPhrase(fields[0] ?? '') === '');
}

/**
 * A file's records with a header row put first when the first record that is not blank is an
 * entry the reader would take for a header (`source,target`, `term,translation`, the pair's own
 * codes, any case: isHeaderRow): a file pull writes reads back to exactly the entries it was
 * written from. The header names the language columns too when the file has them.
 */
function guardFirstEntry(bom: string, records: Line[], added: string[], pair: LanguagePair, delimiter: CsvDelimiter, languageColumns: boolean): string {
  const first = [...records.map((r) => r.text), ...added].map((text) => fieldsOf(text, delimiter)).find((fields) => !isBlankRecord(fields));
  if (first === undefined || !isHeaderRow(first, canonicalLang(pair.sourceLang), canonicalLang(pair.targetLang))) return joinLines(bom, records, added);
  const header = (languageColumns ? ['source', 'target', 'source_lang', 'target_lang'] : ['source', 'target']).join(delimiter);
  return joinLines(bom, [{ text: header, eol: lineBreakOf(records) }, ...records], added);
}

/**
 * A CSV entries file rewritten to hold exactly `live` for its dictionary's pair, changing as little
 * as it can: a changed entry gets its new target field (quoted as the old one was), a removed
 * entry's record goes, new entries are appended in the file's style (language columns and quoting
 * as its other records). Header rows, blank lines, rows of other language pairs (which the service
 * ignores), the byte order mark and the line breaks stay as they were. When an entry would become
 * the first record and read as a header, a header row goes before it (guardFirstEntry).
 * `delimiter`: the file's declared one.
 */
export function rewriteCsv(text: string, pair: LanguagePair, live: Entries, delimiter: CsvDelimiter = ','): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const wantSource = canonicalLang(pair.sourceLang);
  const wantTarget = canonicalLang(pair.targetLang);
  const seen = new Set<string>();
  let first = true;
  let header = false;
  let languageColumns: string | undefined;
  let dataRecords = 0;
  let allQuoted = true;
  const records = splitRecords(text.slice(bom.length)).flatMap((line): Line[] => {
    if (line.text.trim() === '') return [line];
    const fields = fieldsOf(line.text, delimiter);
    if (isBlankRecord(fields)) return [line];
    if (first) {
      first = false;
      header = isHeaderRow(fields, wantSource, wantTarget);
      if (header) return [line];
    }
    if (fields.length !== 2 && fields.length !== 4) return [line];
    const spans = fieldSpans(line.text, delimiter);
    if (fields.length === 4) {
      if (canonicalLang(fields[2] ?? '') !== wantSource || canonicalLang(fields[3] ?? '') !== wantTarget) return [line];
      const [, , langFrom, langTo] = spans;
      if (langFrom !== undefined && langTo !== undefined) languageColumns ??= line.text.slice(langFrom.start, langTo.end);
    }
    dataRecords++;
    allQuoted &&= spans.every((s) => s.quoted);
    const source = canonicalPhrase(fields[0] ?? '');
    const target = live.get(source);
    if (target === undefined || seen.has(source)) return [];
    seen.add(source);
    if (canonicalPhrase(fields[1] ?? '') === target) return [line];
    const span = spans[1];
    if (span === undefined) return [line];
    return [{ text: `${line.text.slice(0, span.start)}${csvField(target, span.quoted, delimiter)}${line.text.slice(span.end)}`, eol: line.eol }];
  });
  const quote = dataRecords > 0 && allQuoted;
  const added = [...live]
    .filter(([source]) => !seen.has(source))
    .map(([source, target]) => `${csvField(source, quote, delimiter)}${delimiter}${csvField(target, quote, delimiter)}${languageColumns === undefined ? '' : `${delimiter}${languageColumns}`}`);
  return header ? joinLines(bom, records, added) : guardFirstEntry(bom, records, added, pair, delimiter, languageColumns !== undefined);
}

/** A new CSV entries file (quoting only where needed), after a header row when the first entry reads as one. */
export function createCsv(entries: Entries, pair: LanguagePair, delimiter: CsvDelimiter = ','): string {
  const records = [...entries].map(([source, target]) => `${csvField(source, false, delimiter)}${delimiter}${csvField(target, false, delimiter)}`);
  const first = [...entries][0];
  const head = first !== undefined && isHeaderRow(first, canonicalLang(pair.sourceLang), canonicalLang(pair.targetLang)) ? `source${delimiter}target\n` : '';
  return head + records.map((record) => `${record}\n`).join('');
}
