import type { EntryList } from '../model/entries.js';
import { InputError } from '../lib/errors.js';
import { ServiceError } from './errors.js';

/**
 * Entries travel as TSV: one entry per line, source and target separated by a tab. A phrase that
 * itself holds a tab cannot be written as TSV, so such a dictionary is sent as CSV (quoted fields)
 * instead; a line break inside a phrase fits neither format (one entry per line) and is refused.
 */
export function encodeEntries(entries: EntryList): { entries: string; entries_format: 'tsv' | 'csv' } {
  let needsCsv = false;
  for (const [source, target] of entries) {
    if (/[\r\n]/.test(source) || /[\r\n]/.test(target)) {
      throw new InputError('entries_line_break', `the entry "${source.slice(0, 40)}" contains a line break, which the service cannot store`);
    }
    if (source.includes('\t') || target.includes('\t')) needsCsv = true;
  }
  if (needsCsv) {
    const quote = (s: string): string => `"${s.replace(/"/g, '""')}"`;
    return { entries: entries.map(([s, t]) => `${quote(s)},${quote(t)}`).join('\n'), entries_format: 'csv' };
  }
  return { entries: entries.map(([s, t]) => `${s}\t${t}`).join('\n'), entries_format: 'tsv' };
}

/** Raw pairs in the order the service returned them; canonical form is the live layer's job. */
export function parseTsvEntries(text: string, where: { method: string; path: string }): EntryList {
  const out: (readonly [string, string])[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const tab = line.indexOf('\t');
    if (tab < 0) {
      throw new ServiceError('invalid_response', where, `unexpected response: entries line ${i + 1} has no tab`);
    }
    out.push([line.slice(0, tab), line.slice(tab + 1)]);
  }
  return out;
}
