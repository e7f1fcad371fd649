import { canonicalLang, canonicalPhrase } from '../../lib/canonical.js';
import type { Entries, LanguagePair } from '../../model/entries.js';
import { isTsvHeader } from './parse-tsv.js';
import { joinLines, lineBreakOf, splitLines, type Line } from '../common/split-lines.js';

/** A line the reader skips as blank (only spaces and tabs, after canonicalisation). */
function isBlankLine(text: string): boolean {
  return canonicalPhrase(text) === '';
}

/** The header line pull writes: the pair's language codes (see isTsvHeader). */
function headerLine(pair: LanguagePair): string {
  return `${canonicalLang(pair.sourceLang)}\t${canonicalLang(pair.targetLang)}`;
}

/**
 * A file's text with a header line put first when its first line that is not blank is an entry
 * the reader would take for a header (`en<TAB>de`, any case): a file pull writes reads back to
 * exactly the entries it was written from. Nothing changes for any other file.
 */
function guardFirstEntry(bom: string, lines: Line[], added: string[], pair: LanguagePair): string {
  const first = [...lines.map((l) => l.text), ...added].find((text) => !isBlankLine(text));
  if (first === undefined || !isTsvHeader(first, pair)) return joinLines(bom, lines, added);
  return joinLines(bom, [{ text: headerLine(pair), eol: lineBreakOf(lines) }, ...lines], added);
}

/**
 * A TSV entries file rewritten to hold exactly `live` (canonical entries), changing as few lines as
 * it can: a line whose entry the service changed gets the new target (its source field is kept as
 * written), a line whose entry the service removed goes, entries new on the service are appended in
 * the service's order; a header line (the pair's codes), blank lines, the byte order mark and the
 * line breaks stay as they were. When an entry would become the first line and read as a header,
 * a header line goes before it (guardFirstEntry).
 */
export function rewriteTsv(text: string, pair: LanguagePair, live: Entries): string {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const seen = new Set<string>();
  let first = true;
  let header = false;
  const lines = splitLines(text.slice(bom.length)).flatMap((line) => {
    if (first && !isBlankLine(line.text)) {
      first = false;
      header = isTsvHeader(line.text, pair);
      if (header) return [line];
    }
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
  return header ? joinLines(bom, lines, added) : guardFirstEntry(bom, lines, added, pair);
}

/** A new TSV entries file: a line per entry, after a header line when the first entry reads as one. */
export function createTsv(entries: Entries, pair: LanguagePair): string {
  const lines = [...entries].map(([source, target]) => `${source}\t${target}`);
  const first = lines[0];
  const head = first !== undefined && isTsvHeader(first, pair) ? `${headerLine(pair)}\n` : '';
  return head + lines.map((line) => `${line}\n`).join('');
}
