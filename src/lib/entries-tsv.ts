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
