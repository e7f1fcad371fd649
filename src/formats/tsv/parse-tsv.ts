import type { Diagnostic } from '../../lib/diagnostics.js';
import { canonicalLang } from '../../lib/canonical.js';
import { error, warning } from '../../lib/diagnostics.js';
import type { LanguagePair } from '../../model/entries.js';
import type { PackedEntries } from '../../model/packed-entries.js';
import type { EntryCollector } from '../common/collect-entries.js';
import { blankLine, isBlank, readTextEntries, separatorHint } from '../common/text-entries.js';

/**
 * Parses the text of a TSV entries file (as the spec defines it) into the canonical entries of one
 * dictionary (see readTextEntries).
 */
export function parseTsvEntries(text: string, pair: LanguagePair, file: string, also?: (diagnostics: Diagnostic[]) => void): { entries: PackedEntries; diagnostics: Diagnostic[] } {
  return readTextEntries(text, file, (body, collector, diagnostics) => parseTsvInto(body, pair, file, collector, diagnostics), also);
}

/**
 * Whether a TSV line is a header: exactly the pair's language codes (`en<TAB>de`, any case,
 * surrounding spaces aside), as spreadsheets save a table with column titles.
 */
export function isTsvHeader(line: string, pair: LanguagePair): boolean {
  const tab = line.indexOf('\t');
  if (tab === -1 || tab > 40 || line.length > 80 || line.indexOf('\t', tab + 1) !== -1) return false;
  return canonicalLang(line.slice(0, tab)) === canonicalLang(pair.sourceLang) && canonicalLang(line.slice(tab + 1)) === canonicalLang(pair.targetLang);
}

/**
 * One pass over the text: the next tab and the next newline are each searched for once per
 * occurrence (cached positions), so a file without tabs stays linear. The first line that is not
 * blank may be a header (isTsvHeader), never an entry.
 */
function parseTsvInto(body: string, pair: LanguagePair, file: string, collector: EntryCollector, diagnostics: Diagnostic[]): void {
  collector.verbatim(body);
  let line = 0;
  let nextTab = body.indexOf('\t');
  let nextUnusual = nextUnusualAt(body, 0);
  let first = true;
  for (let start = 0; start < body.length; ) {
    line++;
    let end = body.indexOf('\n', start);
    if (end === -1) end = body.length;
    const lineStart = start;
    start = end + 1;
    if (first && !isBlank(body.slice(lineStart, end))) {
      first = false;
      if (isTsvHeader(body.slice(lineStart, end), pair)) {
        diagnostics.push(
          warning(
            'entries/tsv-header',
            `header line ignored (not an entry): a first line that is exactly the pair's language codes \`${canonicalLang(pair.sourceLang)}<TAB>${canonicalLang(pair.targetLang)}\` (any case) is taken as column titles`,
            file,
            line,
            1,
          ),
        );
        continue;
      }
    }
    if (nextTab !== -1 && nextTab < lineStart) nextTab = body.indexOf('\t', lineStart);
    if (nextUnusual < lineStart) nextUnusual = nextUnusualAt(body, lineStart);
    if (nextTab === -1 || nextTab >= end) {
      const text = body.slice(lineStart, end);
      if (isBlank(text)) diagnostics.push(blankLine(file, line));
      else diagnostics.push(error('entries/field-count', `expected a source and a target phrase separated by a tab, found no tab${separatorHint(text)}`, file, line, 1));
      continue;
    }
    const tab = nextTab;
    nextTab = body.indexOf('\t', tab + 1);
    if (nextTab !== -1 && nextTab < end) {
      const text = body.slice(lineStart, end);
      if (isBlank(text)) diagnostics.push(blankLine(file, line));
      else {
        diagnostics.push(
          error('entries/field-count', `found ${text.split('\t').length} tab-separated fields, expected 2 (a tab cannot appear inside a phrase)`, file, line, nextTab - lineStart + 1),
        );
      }
      continue;
    }
    if (collector.addPlainLine(body, lineStart, tab, end, line, nextUnusual >= end)) continue;
    const source = body.slice(lineStart, tab);
    const target = body.slice(tab + 1, end);
    if (isBlank(source) && isBlank(target)) {
      diagnostics.push(blankLine(file, line));
      continue;
    }
    collector.add(source, target, line, 1, line, tab - lineStart + 2, nextUnusual >= end, lineStart, end);
  }
}

// A control character other than tab and LF (the TSV separators), or a code unit from U+0300 up:
// what EntryCollector.add otherwise looks for phrase by phrase (see its `usual` parameter).
// eslint-disable-next-line no-control-regex, no-misleading-character-class
const UNUSUAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u0300-\uffff]/g;

/** Offset of the first unusual code unit at or after `from`, or Infinity: one scan per file, not per phrase. */
function nextUnusualAt(body: string, from: number): number {
  UNUSUAL.lastIndex = from;
  return UNUSUAL.test(body) ? UNUSUAL.lastIndex - 1 : Infinity;
}
