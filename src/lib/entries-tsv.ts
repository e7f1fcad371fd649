import type { EntryList } from '../model/index.js';

/** A TSV entries file as `import` and `pull` write it: `source\ttarget\n` per entry. */
export function entriesToTsv(entries: EntryList): string {
  let out = '';
  for (const [source, target] of entries) out += `${source}\t${target}\n`;
  return out;
}

/**
 * The `entries` the client sends for a dictionary: `source\ttarget` lines joined by LF, without a
 * final line break.
 */
export function entriesUploadText(entries: EntryList): string {
  return entries.map(([s, t]) => `${s}\t${t}`).join('\n');
}

/** The UTF-8 bytes of `entriesUploadText`, counted without building it: the plan's figure is the figure uploaded. */
export function entriesTsvBytes(entries: EntryList): number {
  let bytes = entries.length > 0 ? -1 : 0;
  for (const [source, target] of entries) bytes += Buffer.byteLength(source, 'utf8') + Buffer.byteLength(target, 'utf8') + 2;
  return bytes;
}
