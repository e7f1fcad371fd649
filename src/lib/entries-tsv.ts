import type { Entries, EntryList } from '../model/index.js';
import { PackedEntries } from '../model/packed-entries.js';

/** A TSV entries file as `import` and `pull` write it: `source\ttarget\n` per entry. */
export function entriesToTsv(entries: EntryList): string {
  let out = '';
  for (const [source, target] of entries) out += `${source}\t${target}\n`;
  return out;
}

/** Upload bodies by list: a dictionary's body is built once, whoever asks (the plan's byte count, the client). */
const bodies = new WeakMap<EntryList, string>();

/** Entries a list was sorted from that can give its upload body and byte count themselves (PackedEntries). */
export interface UploadSource {
  /** The upload body of the sorted entries (see entriesBody). */
  sortedBody(): string;
  /** Its UTF-8 bytes, without building it. */
  utf8Bytes(): number;
  /** The lines of the body (`source TAB target`), sorted: the body is them joined by LF. */
  sortedLines(): readonly string[];
  /** The entries' lines in any order, each ended by LF: the body's characters, but for one LF. */
  readonly text: string;
  readonly size: number;
}

/**
 * An upload body of many entries kept as its sorted lines rather than joined into one string of
 * megabytes: the client writes the lines into the request's bytes a block at a time (see
 * api/json-body.ts), so the body is never held whole as text beside its bytes. `toJSON` is the
 * body itself, for any other JSON.stringify.
 */
export class UploadBody {
  constructor(
    readonly lines: readonly string[],
    /** The lines' characters in any order, each ended by LF (what characters the body holds). */
    readonly text: string,
    /** UTF-8 bytes of the body. */
    readonly bytes: number,
  ) {}

  toJSON(): string {
    return this.lines.join('\n');
  }
}

/** Bodies of fewer characters are built as a string (entriesBody). */
const UPLOAD_BODY_CHARS = 64 * 1024;

/**
 * The upload body of a large sorted list of packed entries (toEntryList) as an UploadBody, when
 * its body is not built already; undefined otherwise (entriesBody then gives it).
 */
export function uploadBodyOf(entries: EntryList): UploadBody | undefined {
  const source = sources.get(entries);
  if (source === undefined || bodies.has(entries) || source.text.length < UPLOAD_BODY_CHARS) return undefined;
  return new UploadBody(source.sortedLines(), source.text, source.utf8Bytes());
}

const sources = new WeakMap<EntryList, UploadSource>();

/** `list` is the sorted list of `source`'s entries: its body and bytes come from `source` (toEntryList). */
export function rememberUploadSource(list: EntryList, source: UploadSource): void {
  sources.set(list, source);
}

/**
 * Canonical entries as a list sorted by source phrase (code-unit order), sorted once: the order of
 * the plan, the upload and every file termsync writes. Of packed entries, their own sorted order,
 * whose upload body they give too (a slice of their text when in order).
 */
export function toEntryList(entries: Entries): EntryList {
  if (entries instanceof PackedEntries) {
    const list = entries.sortedList();
    rememberUploadSource(list, entries);
    return list;
  }
  return [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * The entries of a dictionary as the client uploads them: `source\ttarget` lines joined by LF, no
 * final newline. Built once per list and kept as long as the list is.
 */
export function entriesBody(entries: EntryList): string {
  let body = bodies.get(entries);
  if (body === undefined) {
    const source = sources.get(entries);
    if (source !== undefined) body = source.sortedBody();
    else {
      const lines: string[] = new Array<string>(entries.length);
      for (let i = 0; i < entries.length; i++) {
        const [s, target] = entries[i] as readonly [string, string];
        lines[i] = `${s}\t${target}`;
      }
      body = lines.join('\n');
    }
    bodies.set(entries, body);
  }
  return body;
}

/** The upload text's name where the plan counts it (see entriesBody). */
export const entriesUploadText = entriesBody;

/** The UTF-8 bytes of the upload text: the plan's figure is the figure uploaded (the body is not built for it when its entries can count it). */
export function entriesTsvBytes(entries: EntryList): number {
  const body = bodies.get(entries);
  if (body !== undefined) return Buffer.byteLength(body, 'utf8');
  const source = sources.get(entries);
  if (source !== undefined) return source.utf8Bytes();
  return Buffer.byteLength(entriesBody(entries), 'utf8');
}

/**
 * Visits the entries of a TSV text as the service sends them, without splitting it into lines
 * first: lines end with LF or CRLF, empty lines are skipped, a line's source ends at its first tab.
 * `visit` returns false to stop early; without it the lines are only checked. Returns the 1-based
 * number of the first non-empty line without a tab (nothing visited from there on), or 0.
 */
export function visitTsvEntries(text: string, visit?: (source: string, target: string) => boolean): number {
  let line = 0;
  for (let start = 0; start < text.length; ) {
    line++;
    const newline = text.indexOf('\n', start);
    let end = newline === -1 ? text.length : newline;
    const next = end + 1;
    if (newline !== -1 && end > start && text.charCodeAt(end - 1) === 13) end--;
    if (end > start) {
      const tab = text.indexOf('\t', start);
      if (tab === -1 || tab >= end) return line;
      if (visit !== undefined && !visit(text.slice(start, tab), text.slice(tab + 1, end))) return 0;
    }
    start = next;
  }
  return 0;
}

/**
 * visitTsvEntries over TSV text still escaped as in a JSON string whose only escapes are `\t` and
 * `\n` (the separators; see parseJsonWithLongStrings): the same entries, read in place. Every
 * backslash starts a separator, so one single-character search finds them all.
 */
export function visitEscapedTsvEntries(text: string, visit?: (source: string, target: string) => boolean): number {
  let line = 1;
  let start = 0;
  let tab = -1;
  let tabs = 0;
  for (let at = text.indexOf('\\'); ; at = text.indexOf('\\', at + 2)) {
    const end = at === -1 ? text.length : at;
    if (at !== -1 && text.charCodeAt(at + 1) === 0x74) {
      if (tabs++ === 0) tab = at;
      continue;
    }
    // A line ends here (an escaped LF, or the end of the text).
    if (end > start) {
      if (tabs === 0) return line;
      if (visit !== undefined) {
        // A tab after the first one belongs to the target, escaped like the separator.
        const target = tabs > 1 ? text.slice(tab + 2, end).replaceAll('\\t', '\t') : text.slice(tab + 2, end);
        if (!visit(text.slice(start, tab), target)) return 0;
      }
    }
    if (at === -1) return 0;
    line++;
    start = at + 2;
    tabs = 0;
  }
}
