import { entriesToTsv } from '../lib/entries-tsv.js';
import type { EntryList } from '../model/entries.js';

/** Entry file text in TSV: one `source<TAB>target` line per entry, LF, trailing newline (the same text the client uploads). */
export function formatTsv(entries: EntryList): string {
  return entriesToTsv(entries);
}

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Entry file text in CSV (RFC 4180 quoting where needed), LF, trailing newline. */
export function formatCsv(entries: EntryList): string {
  let text = '';
  for (const [source, target] of entries) text += `${csvField(source)},${csvField(target)}\n`;
  return text;
}
