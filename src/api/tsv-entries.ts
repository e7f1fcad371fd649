import type { EntryList } from '../model/entries.js';
import { isUsualText } from '../lib/canonical.js';
import { entriesBody, uploadBodyOf, visitEscapedTsvEntries, visitTsvEntries, type UploadBody } from '../lib/entries-tsv.js';
import { InputError } from '../lib/errors.js';
import { ServiceError } from './errors.js';

/**
 * Entries travel as TSV: one entry per line, source and target separated by a tab. A phrase holding
 * a tab or a line break fits no entries format (the service rejects control characters in
 * phrases), so it is refused here, before anything is sent. The body is built once (entriesBody)
 * and checked as a whole: each entry brings exactly one tab and each but the last one LF, so any
 * other tab, LF or CR is inside a phrase; only then are the phrases looked at one by one.
 */
export function encodeEntries(entries: EntryList): { entries: string; entries_format: 'tsv' } {
  const body = entriesBody(entries);
  if (count(body, '\t') !== entries.length || count(body, '\n') !== Math.max(entries.length - 1, 0) || body.includes('\r')) refuseSeparators(entries);
  return { entries: body, entries_format: 'tsv' };
}

/**
 * encodeEntries for a request's body: the entries of a large sorted list of packed entries as an
 * UploadBody (their sorted lines, written into the request's bytes as they are: see
 * api/json-body.ts), checked as encodeEntries checks the text, on the packed text (the same lines).
 */
export function encodeEntriesForUpload(entries: EntryList): { entries: string | UploadBody; entries_format: 'tsv' } {
  const body = uploadBodyOf(entries);
  if (body === undefined) return encodeEntries(entries);
  const { text } = body;
  if (count(text, '\t') !== entries.length || count(text, '\n') !== entries.length || text.includes('\r')) refuseSeparators(entries);
  return { entries: body, entries_format: 'tsv' };
}

function count(text: string, char: string): number {
  let n = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Throws for the first phrase that holds a tab or a line break. */
function refuseSeparators(entries: EntryList): void {
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
}

/** Raw pairs in the order the service returned them; canonical form is the live layer's job. */
export function parseTsvEntries(text: string, where: { method: string; path: string }): EntryList {
  const out: (readonly [string, string])[] = [];
  checkTsvEntries(text, where, (source, target) => {
    out.push([source, target]);
    return true;
  });
  return out;
}

/**
 * Checks that every non-empty line of an entries answer has a tab (`visit`, when given, sees each
 * entry as it goes); the text itself is what the live layer reads (visitTsvEntries), without an
 * intermediate list.
 */
export function checkTsvEntries(text: string, where: { method: string; path: string }, visit?: (source: string, target: string) => boolean): void {
  const bad = visitTsvEntries(text, visit);
  if (bad !== 0) throw new ServiceError('invalid_response', where, `unexpected response: entries line ${bad} has no tab`);
}

/**
 * The TSV text of one dictionary as the service sent it, checked line by line as it is read: the
 * live layer visits it once (compare, or read into a map) and the check rides along, instead of a
 * pass of its own. `escaped`: the text is still escaped as in the answer's JSON string, with `\t`
 * and `\n` its only escapes (see parseJsonWithLongStrings), and is read in place.
 */
export class EntriesText {
  constructor(
    readonly text: string,
    private readonly where: { method: string; path: string; traceId?: string },
    readonly escaped = false,
  ) {}

  /** Whether every phrase may go through canonicalUsualPhrase (isUsualText; the escapes are plain ASCII). */
  get usual(): boolean {
    return isUsualText(this.text);
  }

  /**
   * Visits the entries in order (`visit` returns false to stop); throws invalid_response at the
   * first non-empty line without a tab (the entries before it were visited).
   */
  readonly visit = (visit: (source: string, target: string) => boolean): void => {
    const bad = this.escaped ? visitEscapedTsvEntries(this.text, visit) : visitTsvEntries(this.text, visit);
    if (bad !== 0) throw new ServiceError('invalid_response', this.where, `unexpected response: entries line ${bad} has no tab`);
  };

  /** The raw pairs in the order sent. */
  toList(): EntryList {
    const out: (readonly [string, string])[] = [];
    this.visit((source, target) => out.push([source, target]) > 0);
    return out;
  }
}
