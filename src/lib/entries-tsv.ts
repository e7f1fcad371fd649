import type { EntryList } from '../model/index.js';

/**
 * The TSV body the client sends for a dictionary: `source\ttarget\n` per entry. The plan counts its
 * UTF-8 bytes, so the figure shown is the figure uploaded.
 */
export function entriesToTsv(entries: EntryList): string {
  let out = '';
  for (const [source, target] of entries) out += `${source}\t${target}\n`;
  return out;
}

export function entriesTsvBytes(entries: EntryList): number {
  let bytes = 0;
  for (const [source, target] of entries) bytes += Buffer.byteLength(source, 'utf8') + Buffer.byteLength(target, 'utf8') + 2;
  return bytes;
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
