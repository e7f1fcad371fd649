import { parse as parseCsvSync } from 'csv-parse/sync';
import { canonicalLang, canonicalPhrase } from '../lib/canonical.js';
import type { Entries, LanguagePair } from '../model/entries.js';
import { isHeaderRow } from '../config/parse-entries.js';
import { joinLines, type Line } from './split-lines.js';

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
function fieldSpans(record: string): { start: number; end: number; quoted: boolean }[] {
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
    while (i < record.length && record[i] !== ',') i++;
    spans.push({ start, end: i, quoted });
    if (i >= record.length) return spans;
    i++;
  }
}

function csvField(value: string, quote: boolean): string {
  return quote || /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function fieldsOf(record: string): string[] {
  const rows: string[][] = parseCsvSync(record, { relax_column_count: true, record_delimiter: '\n' });
  return rows[0] ?? [];
}

/**
 * A CSV entries file rewritten to hold exactly `live` for its dictionary's pair, changing as little
 * as it can: a changed entry gets its new target field (quoted as the old one was), a removed
 * entry's record goes, new entries are appended in the file's style (language columns and quoting
 * as its other records). Header rows, blank lines, rows of other language pairs (which the service
 * ignores), the byte order mark and the line breaks stay as they were.
 */
export function rewriteCsv(text: string, pair: LanguagePair, live: Entries): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const wantSource = canonicalLang(pair.sourceLang);
  const wantTarget = canonicalLang(pair.targetLang);
  const seen = new Set<string>();
  let first = true;
  let languageColumns: string | undefined;
  let dataRecords = 0;
  let allQuoted = true;
  const records = splitRecords(text.slice(bom.length)).flatMap((line): Line[] => {
    if (line.text.trim() === '') return [line];
    const fields = fieldsOf(line.text);
    const header = first && isHeaderRow(fields, wantSource, wantTarget);
    first = false;
    if (header || (fields.length !== 2 && fields.length !== 4)) return [line];
    const spans = fieldSpans(line.text);
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
    return [{ text: `${line.text.slice(0, span.start)}${csvField(target, span.quoted)}${line.text.slice(span.end)}`, eol: line.eol }];
  });
  const quote = dataRecords > 0 && allQuoted;
  const added = [...live]
    .filter(([source]) => !seen.has(source))
    .map(([source, target]) => `${csvField(source, quote)},${csvField(target, quote)}${languageColumns === undefined ? '' : `,${languageColumns}`}`);
  return joinLines(bom, records, added);
}

/** A new CSV entries file (quoting only where needed). */
export function createCsv(entries: Entries): string {
  return [...entries].map(([source, target]) => `${csvField(source, false)},${csvField(target, false)}\n`).join('');
}
