/**
 * Glossary entries as the service reads them (spec, "Glossary entry formats"): one entry per
 * line, TSV (tab) or CSV (RFC 4180 quoting, optional language columns). Linear in the input:
 * duplicates are found with a map, never by rescanning.
 */

export const MAX_PHRASE_BYTES = 1024;

export interface DictionaryEntries {
  /** source → target, in submission order. */
  readonly entries: Map<string, string>;
  /** Size of the entries serialised as TSV (`source\ttarget` lines joined by `\n`), UTF-8 bytes. */
  readonly bytes: number;
}

export type EntriesResult =
  | { readonly ok: true; readonly value: DictionaryEntries }
  | { readonly ok: false; readonly detail: string };

export const INVALID_ENTRIES_MESSAGE = 'Invalid glossary entries provided';

// C0 and C1 controls, DEL and the Unicode line/paragraph separators: a stored phrase must be
// representable in the TSV that entries retrieval returns.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

interface Record_ {
  readonly fields: string[];
  readonly position: number;
}

/**
 * Facts about the whole input, each found in one scan, that let the per-entry work skip steps:
 * `ascii` — UTF-8 bytes equal UTF-16 units, so a phrase's size is its length; `clean` — no phrase
 * can hold an invalid character (the caller knows which separators the format removes).
 */
interface InputFacts {
  readonly ascii: boolean;
  readonly clean: boolean;
}

class EntryCollector {
  readonly entries = new Map<string, string>();
  /** positions[index] is where entry `index` starts (entries are only added, so map order = index). */
  private readonly positions: number[] = [];
  bytes = 0;
  problem: string | undefined;

  constructor(private readonly facts: InputFacts) {}

  add(source: string, target: string, position: number): boolean {
    const index = this.positions.length;
    const s = checkPhrase(source, this.facts.clean);
    if (s === undefined) return this.fail(describePhraseProblem(source, 'source', index, position));
    const t = checkPhrase(target, this.facts.clean);
    if (t === undefined) return this.fail(describePhraseProblem(target, 'target', index, position));
    // One hash operation per entry: a set that does not grow the map found a duplicate.
    const sizeBefore = this.entries.size;
    this.entries.set(s, t);
    if (this.entries.size === sizeBefore) {
      // Error path only: one scan finds the first occurrence.
      let first = 0;
      for (const key of this.entries.keys()) {
        if (key === s) break;
        first += 1;
      }
      return this.fail(
        `Key with the index ${index} (starting at position ${position}) duplicates key with the index ${first} (starting at position ${this.positions[first] ?? 0})`,
      );
    }
    this.positions.push(position);
    this.bytes += (index > 0 ? 2 : 1) + (this.facts.ascii ? s.length + t.length : utf8Bytes(s) + utf8Bytes(t));
    return true;
  }

  private fail(problem: string): false {
    this.problem = problem;
    return false;
  }
}

/** The phrase as stored, or undefined when it is invalid (the reason is worked out only then). */
function checkPhrase(raw: string, clean: boolean): string | undefined {
  // String.prototype.trim removes Unicode White_Space and U+FEFF, linear and without regex backtracking.
  const phrase = raw.trim();
  if (phrase === '' || (!clean && INVALID_CHARACTER.test(phrase))) return undefined;
  // Up to 341 UTF-16 units cannot exceed 1024 UTF-8 bytes: skip the count for ordinary phrases.
  if (phrase.length > 341 && utf8Bytes(phrase) > MAX_PHRASE_BYTES) return undefined;
  return phrase;
}

function describePhraseProblem(raw: string, side: 'source' | 'target', index: number, position: number): string {
  const where = `Entry with the index ${index} (starting at position ${position})`;
  const phrase = raw.trim();
  if (phrase === '') return `${where} has an empty ${side} phrase`;
  if (CONTROL.test(phrase)) return `${where} has a control character (tab, newline or similar) in its ${side} phrase`;
  if (hasLoneSurrogate(phrase)) return `${where} has an unpaired surrogate in its ${side} phrase`;
  return `${where} has a ${side} phrase of ${utf8Bytes(phrase)} UTF-8 bytes; the limit is ${MAX_PHRASE_BYTES}`;
}

// With the `u` flag, a surrogate range only matches surrogates that are not part of a pair.
const LONE_SURROGATE = /[\ud800-\udfff]/u;
// Both checks in one scan for the common path.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/u;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

// Invalid characters other than the TSV separators tab and newline: when the whole text has none,
// no TSV phrase can hold one (a CR does count here, so CRLF input takes the per-phrase check).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const INVALID_BESIDES_TSV_SEPARATORS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ud800-\udfff]/u;

function isAscii(text: string): boolean {
  // Byte count equals length exactly when every code unit is below U+0080 (native, no JS loop).
  return Buffer.byteLength(text, 'utf8') === text.length;
}

function finish(collector: EntryCollector): EntriesResult {
  if (collector.problem !== undefined) return { ok: false, detail: collector.problem };
  if (collector.entries.size === 0) return { ok: false, detail: 'The dictionary holds no entries' };
  return { ok: true, value: { entries: collector.entries, bytes: collector.bytes } };
}

export function parseTsvEntries(text: string): EntriesResult {
  const collector = new EntryCollector({ ascii: isAscii(text), clean: !INVALID_BESIDES_TSV_SEPARATORS.test(text) });
  let pos = 0;
  const length = text.length;
  while (pos < length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = length;
    let lineEnd = end;
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13) lineEnd -= 1;
    if (lineEnd > pos) {
      const tab = text.indexOf('\t', pos);
      if (tab === -1 || tab >= lineEnd) {
        collector.problem = `Entry starting at position ${pos} has no tab separating source and target`;
        break;
      }
      const secondTab = text.indexOf('\t', tab + 1);
      if (secondTab !== -1 && secondTab < lineEnd) {
        collector.problem = `Entry starting at position ${pos} has more than one tab; expected exactly two columns`;
        break;
      }
      if (!collector.add(text.slice(pos, tab), text.slice(tab + 1, lineEnd), pos)) break;
    }
    pos = end + 1;
  }
  return finish(collector);
}

/** Splits CSV into records of fields (RFC 4180). Returns a problem string on malformed quoting. */
function* csvRecords(text: string): Generator<Record_, string | undefined> {
  const length = text.length;
  let pos = 0;
  while (pos < length) {
    const start = pos;
    const fields: string[] = [];
    // Blank line: skip it.
    const c0 = text.charCodeAt(pos);
    if (c0 === 10) {
      pos += 1;
      continue;
    }
    if (c0 === 13 && text.charCodeAt(pos + 1) === 10) {
      pos += 2;
      continue;
    }
    for (;;) {
      if (text.charCodeAt(pos) === 34) {
        // Quoted field: "" is a literal quote; the field ends at the closing quote.
        let value = '';
        let chunk = pos + 1;
        for (;;) {
          const q = text.indexOf('"', chunk);
          if (q === -1) return `Entry starting at position ${start} has a quoted field that is never closed`;
          if (text.charCodeAt(q + 1) === 34) {
            value += text.slice(chunk, q + 1);
            chunk = q + 2;
            continue;
          }
          value += text.slice(chunk, q);
          pos = q + 1;
          break;
        }
        fields.push(value);
        const next = text.charCodeAt(pos);
        if (pos >= length || next === 10 || (next === 13 && text.charCodeAt(pos + 1) === 10)) break;
        if (next === 44) {
          pos += 1;
          continue;
        }
        return `Entry starting at position ${start} has characters after a closing quote at position ${pos}`;
      }
      // Unquoted field: up to the next comma or line end; a quote inside it is malformed.
      let i = pos;
      for (; i < length; i++) {
        const c = text.charCodeAt(i);
        if (c === 44 || c === 10 || (c === 13 && text.charCodeAt(i + 1) === 10)) break;
        if (c === 34) return `Entry starting at position ${start} has a double quote inside an unquoted field at position ${i}; enclose the field in double quotes`;
      }
      fields.push(text.slice(pos, i));
      pos = i;
      if (i < length && text.charCodeAt(i) === 44) {
        pos += 1;
        continue;
      }
      break;
    }
    // Consume the line break.
    if (text.charCodeAt(pos) === 13) pos += 1;
    if (text.charCodeAt(pos) === 10) pos += 1;
    yield { fields, position: start };
  }
  return undefined;
}

export function parseCsvEntries(text: string, pair: { sourceLang: string; targetLang: string }): EntriesResult {
  // A quoted CSV field may hold a tab or newline, which must be caught per phrase: never `clean`.
  const collector = new EntryCollector({ ascii: isAscii(text), clean: false });
  const records = csvRecords(text);
  for (;;) {
    const step = records.next();
    if (step.done) {
      if (step.value !== undefined) collector.problem = step.value;
      break;
    }
    const { fields, position } = step.value;
    if (fields.length !== 2 && fields.length !== 4) {
      collector.problem = `Entry starting at position ${position} has ${fields.length} fields; expected source,target or source,target,source_lang,target_lang`;
      break;
    }
    if (fields.length === 4) {
      const [, , sl, tl] = fields;
      // Rule 4: language columns that do not match the dictionary's pair make the entry ignored.
      if ((sl ?? '').toLowerCase() !== pair.sourceLang || (tl ?? '').toLowerCase() !== pair.targetLang) continue;
    }
    if (!collector.add(fields[0] ?? '', fields[1] ?? '', position)) break;
  }
  return finish(collector);
}

export function parseEntries(text: string, format: 'tsv' | 'csv', pair: { sourceLang: string; targetLang: string }): EntriesResult {
  return format === 'tsv' ? parseTsvEntries(text) : parseCsvEntries(text, pair);
}

/** TSV as entries retrieval returns it: one `source\ttarget` line per entry, no trailing newline. */
export function renderTsv(entries: ReadonlyMap<string, string>): string {
  const lines: string[] = [];
  for (const [s, t] of entries) lines.push(`${s}\t${t}`);
  return lines.join('\n');
}
