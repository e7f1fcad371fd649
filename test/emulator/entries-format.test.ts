/* eslint-disable @typescript-eslint/no-unsafe-member-access -- answers are untyped JSON read off the wire */
import { describe, expect, it } from 'vitest';
import { parseCsvEntries, parseTsvEntries } from '../../src/emulator/parse-entries.js';
import { call, createV3, errorBody, start } from './helpers.js';

const pair = { sourceLang: 'en', targetLang: 'de' };

function entriesOf(result: ReturnType<typeof parseTsvEntries>): Array<[string, string]> {
  if (!result.ok) throw new Error(result.detail);
  return [...result.value.entries];
}

describe('entry formats (spec rules 1–5)', () => {
  it('TSV: one entry per line, tab-separated, CRLF and blank lines tolerated', () => {
    expect(entriesOf(parseTsvEntries('a\tA\r\nb\tB\n\nc\tC\n'))).toEqual([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]);
  });

  it('TSV: a line without a tab or with two tabs is invalid', () => {
    const none = parseTsvEntries('a\tA\nb B');
    expect(none.ok).toBe(false);
    expect(!none.ok && none.detail).toMatch(/position 4 has no tab/);
    const two = parseTsvEntries('a\tA\tx');
    expect(!two.ok && two.detail).toMatch(/more than one tab/);
  });

  it('CSV: RFC 4180 quoting, doubled quotes, every field quoted allowed', () => {
    expect(entriesOf(parseCsvEntries('"a, b","say ""hi"""\r\nplain,text\n"q","r"', pair))).toEqual([
      ['a, b', 'say "hi"'],
      ['plain', 'text'],
      ['q', 'r'],
    ]);
  });

  it('CSV: language columns that match are used, others make the entry ignored (rule 4)', () => {
    expect(entriesOf(parseCsvEntries('a,A,en,de\nb,B,EN,DE\nc,C,en,fr\nsource,target,source_lang,target_lang', pair))).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
  });

  it('CSV: malformed quoting and wrong field counts are invalid, with their position', () => {
    const cases: Array<[string, RegExp]> = [
      ['"open,A', /never closed/],
      ['"a"x,A', /after a closing quote/],
      ['a"b,A', /double quote inside an unquoted field/],
      ['a,b,c', /3 fields/],
      ['a', /1 fields/],
      ['a,b,en,de,x', /5 fields/],
    ];
    for (const [text, detail] of cases) {
      const result = parseCsvEntries(text, pair);
      expect(result.ok, text).toBe(false);
      expect(!result.ok && result.detail).toMatch(detail);
    }
  });

  it('a quoted newline or tab inside a phrase is rejected (TSV retrieval could not represent it)', () => {
    const result = parseCsvEntries('"two\nlines",x', pair);
    expect(!result.ok && result.detail).toMatch(/control character/);
  });

  it('TSV: control characters inside a phrase are rejected with or without CRLF; sizes count UTF-8 bytes', () => {
    for (const text of ['a\u0000b\tB', 'a\tB\rC', 'a\tB\r\nc\u0085\tC', 'x\ty\na\u2028b\tc', 'a\tB\r\nb\u0007\tC\r\n']) {
      const result = parseTsvEntries(text);
      expect(result.ok, JSON.stringify(text)).toBe(false);
      expect(!result.ok && result.detail, JSON.stringify(text)).toMatch(/control character/);
    }
    // Size of the stored entries as TSV, whether the input is ASCII or not (and whether it was trimmed).
    const ascii = parseTsvEntries(' ab \tcd\r\nef\tgh');
    expect(ascii.ok && ascii.value.bytes).toBe(Buffer.byteLength('ab\tcd\nef\tgh'));
    const mixed = parseTsvEntries('Grüße\tgreetings\n😀\tsmile');
    expect(mixed.ok && mixed.value.bytes).toBe(Buffer.byteLength('Grüße\tgreetings\n😀\tsmile'));
  });

  it('astral characters (paired surrogates) are fine; an unpaired surrogate is rejected', () => {
    expect(entriesOf(parseTsvEntries('smile 😀\tLächeln 😀'))).toEqual([['smile 😀', 'Lächeln 😀']]);
    const lone = parseTsvEntries('a\ud800\tb');
    expect(!lone.ok && lone.detail).toMatch(/unpaired surrogate in its source phrase/);
  });

  it('duplicate sources → detail naming both indexes and positions (rule 5)', () => {
    const result = parseTsvEntries('a\tA\nb\tB\na\tC');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail).toBe('Key with the index 2 (starting at position 8) duplicates key with the index 0 (starting at position 0)');
  });

  it('empty phrases are rejected; phrases are trimmed', () => {
    expect(!parseTsvEntries('a\t  ').ok).toBe(true);
    expect(!parseTsvEntries('\tA').ok).toBe(true);
    expect(entriesOf(parseTsvEntries('\u00a0a \t A\u3000'))).toEqual([['a', 'A']]);
  });

  it('each phrase at most 1024 UTF-8 bytes: 1024 passes, 1025 fails (multi-byte counted in bytes)', () => {
    expect(parseTsvEntries(`${'x'.repeat(1024)}\ty`).ok).toBe(true);
    const over = parseTsvEntries(`${'x'.repeat(1025)}\ty`);
    expect(!over.ok && over.detail).toMatch(/1025 UTF-8 bytes; the limit is 1024/);
    expect(parseTsvEntries(`a\t${'ü'.repeat(512)}`).ok).toBe(true);
    expect(parseTsvEntries(`a\t${'ü'.repeat(512)}x`).ok).toBe(false);
  });

  it('parses 100 000 entries in one pass', () => {
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) lines.push(`source ${i}\ttarget ${i}`);
    const result = parseTsvEntries(lines.join('\n'));
    expect(result.ok && result.value.entries.size).toBe(100_000);
  });

  it('over HTTP: duplicate entries → 400 with message and detail, nothing created', async () => {
    const emu = await start();
    const answer = await createV3(emu, 'Dup', [{ source_lang: 'en', target_lang: 'de', entries: 'x\tX\ny\tY\nx\tZ' }]);
    expect(answer.status).toBe(400);
    const body = errorBody(answer);
    expect(body.message).toBe('Invalid glossary entries provided');
    expect(body.detail).toBe('Key with the index 2 (starting at position 8) duplicates key with the index 0 (starting at position 0)');
    expect((await call(emu, 'GET', '/v3/glossaries')).json.glossaries).toEqual([]);
  });

  it('over HTTP: a dictionary whose entries are all ignored or empty is rejected', async () => {
    const emu = await start();
    const ignored = await createV3(emu, 'I', [{ source_lang: 'en', target_lang: 'de', entries: 'a,b,en,fr', entries_format: 'csv' }]);
    expect(ignored.status).toBe(400);
    expect(errorBody(ignored).detail).toMatch(/no entries/);
    const empty = await createV3(emu, 'E', [{ source_lang: 'en', target_lang: 'de', entries: '' }]);
    expect(empty.status).toBe(400);
  });
});
