import { canonicalPhrase } from '../lib/canonical.js';
import type { Entries } from '../model/entries.js';
import { joinLines, splitLines } from './split-lines.js';

/**
 * A TSV entries file rewritten to hold exactly `live` (canonical entries), changing as few lines as
 * it can: a line whose entry the service changed gets the new target (its source field is kept as
 * written), a line whose entry the service removed goes, entries new on the service are appended in
 * the service's order; blank lines, the byte order mark and the line breaks stay as they were.
 */
export function rewriteTsv(text: string, live: Entries): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const seen = new Set<string>();
  const lines = splitLines(text.slice(bom.length)).flatMap((line) => {
    const tab = line.text.indexOf('\t');
    // Not an entry (a blank line): kept. A valid repository has no other kind of line.
    if (tab === -1 || line.text.indexOf('\t', tab + 1) !== -1) return [line];
    const source = canonicalPhrase(line.text.slice(0, tab));
    if (source === '') return [line];
    const target = live.get(source);
    if (target === undefined || seen.has(source)) return [];
    seen.add(source);
    if (canonicalPhrase(line.text.slice(tab + 1)) === target) return [line];
    return [{ text: `${line.text.slice(0, tab + 1)}${target}`, eol: line.eol }];
  });
  const added = [...live].filter(([source]) => !seen.has(source)).map(([source, target]) => `${source}\t${target}`);
  return joinLines(bom, lines, added);
}

/** A new TSV entries file. */
export function createTsv(entries: Entries): string {
  return [...entries].map(([source, target]) => `${source}\t${target}\n`).join('');
}
