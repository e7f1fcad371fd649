import type { EntryList } from '../model/entries.js';
import { entriesUploadText } from '../lib/entries-tsv.js';
import { InputError } from '../lib/errors.js';
import { ServiceError } from './errors.js';

/**
 * Entries travel as TSV: one entry per line, source and target separated by a tab. A phrase holding
 * a tab or a line break fits no entries format (the service rejects control characters in
 * phrases), so it is refused here, before anything is sent.
 */
export function encodeEntries(entries: EntryList): { entries: string; entries_format: 'tsv' } {
  for (const [source, target] of entries) {
    for (const [side, phrase] of [['source', source], ['target', target]] as const) {
      if (/[\t\r\n]/.test(phrase)) {
        throw new InputError(
          'entries_control_character',
          `the ${side} phrase of the entry "${source.replace(/[\t\r\n]/g, ' ').slice(0, 40)}" contains a tab or line break, which the service cannot store`,
        );
      }
    }
  }
  return { entries: entriesUploadText(entries), entries_format: 'tsv' };
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
