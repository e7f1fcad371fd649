import { describe, expect, it } from 'vitest';
import { parseEntries } from '../../src/config/index.js';
import { createCsv } from '../../src/formats/csv/rewrite-csv.js';
import { createTsv } from '../../src/formats/tsv/rewrite-tsv.js';
import { toEntryList } from '../../src/plan/index.js';

const pair = { sourceLang: 'en', targetLang: 'de' };

function codes(diagnostics: readonly { code: string }[]): string[] {
  return diagnostics.map((d) => d.code);
}

describe('parseEntries (TSV)', () => {
  it('reads tab-separated entries and canonicalises them with a located warning per change', () => {
    const text = '\uFEFFcart\tWarenkorb\r\n  checkout\tKasse\u00a0\r\nsize guide\tGro\u0308\u00dfentabelle\r\n';
    const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 'g/terms.tsv');
    expect([...entries]).toEqual([
      ['cart', 'Warenkorb'],
      ['checkout', 'Kasse'],
      ['size guide', 'Gr\u00f6\u00dfentabelle'],
    ]);
    expect(diagnostics.map((d) => [d.code, d.line, d.column, d.severity])).toEqual([
      ['entries/bom', 1, 1, 'warning'],
      ['entries/line-ending', 1, 15, 'warning'],
      ['entries/whitespace-trimmed', 2, 1, 'warning'],
      ['entries/whitespace-trimmed', 2, 12, 'warning'],
      ['entries/not-nfc', 3, 12, 'warning'],
    ]);
  });

  it('names the whitespace it trimmed unless it was plain spaces', () => {
    const text = 'nb\u00a0\tnbsp\n  padded \tgepolstert\n\u3000\u3000wide\u2009\u2009 \tbreit\n';
    const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
    expect([...entries.keys()]).toEqual(['nb', 'padded', 'wide']);
    expect(diagnostics.map((d) => d.message)).toEqual([
      'source phrase "nb": surrounding whitespace trimmed (removed U+00A0 NO-BREAK SPACE at the end)',
      'source phrase "padded": surrounding whitespace trimmed',
      'source phrase "wide": surrounding whitespace trimmed (removed U+3000 IDEOGRAPHIC SPACE ×2 at the start; U+2009 THIN SPACE ×2, U+0020 SPACE at the end)',
    ]);
    const blank = parseEntries('\u00a0 \tleer\n', 'tsv', pair, 't.tsv');
    expect(blank.diagnostics.map((d) => d.message)).toEqual([
      'source phrase "": surrounding whitespace trimmed (removed U+00A0 NO-BREAK SPACE, U+0020 SPACE: the whole phrase)',
      'empty source phrase',
    ]);
  });

  it('treats old Mac CR line breaks as line breaks', () => {
    const { entries } = parseEntries('cart\tWarenkorb\rcheckout\tKasse\r', 'tsv', pair, 't.tsv');
    expect(entries.size).toBe(2);
  });

  it('stays linear on a file without any tab (every line an error, no rescanning; the first 100 listed, the rest counted)', () => {
    const text = 'no tab here\n'.repeat(50_000);
    const { diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
    expect(diagnostics).toHaveLength(101);
    expect(new Set(codes(diagnostics))).toEqual(new Set(['entries/field-count']));
    expect(diagnostics.at(-1)).toMatchObject({ severity: 'error', line: 101, message: 'and 49900 more like this from here on in this file (the first 100 are listed)' });
  });

  it('hints that a comma-separated file was given a .tsv name', () => {
    const { diagnostics } = parseEntries('cart,Warenkorb\n', 'tsv', pair, 't.tsv');
    expect(diagnostics[0]?.message).toMatch(/looks like CSV/);
  });

  it('keeps the first of duplicate sources and names both lines', () => {
    const { entries, diagnostics } = parseEntries('cart\tWarenkorb\ncart\tEinkaufswagen\n', 'tsv', pair, 't.tsv');
    expect(entries.get('cart')).toBe('Warenkorb');
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'entries/duplicate-source', line: 2, severity: 'error', message: expect.stringMatching(/lines 1 and 2/) as unknown })]);
  });

  it('keeps case twins (a warning: the service accepts them) and still catches a duplicate of a twin', () => {
    const { entries, diagnostics } = parseEntries('Apple\tApfel\napple\tApfel\napple\tApfel (Obst)\n', 'tsv', pair, 't.tsv');
    expect(entries.size).toBe(2);
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['entries/case-twin', 2],
      ['entries/duplicate-source', 3],
    ]);
    expect(diagnostics[1]?.message).toMatch(/lines 2 and 3/);
  });
});

describe('parseEntries (CSV)', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, with the line of each record', () => {
    const text = '"waterproof, breathable","wasserdicht, atmungsaktiv"\n"3-layer ""Storm"" shell",Hardshell\n"two\nlines",x\nlast,Letzte\n';
    const { entries, diagnostics } = parseEntries(text, 'csv', pair, 't.csv');
    expect(entries.get('waterproof, breathable')).toBe('wasserdicht, atmungsaktiv');
    expect(entries.get('3-layer "Storm" shell')).toBe('Hardshell');
    expect(entries.get('last')).toBe('Letzte');
    expect(diagnostics.map((d) => [d.code, d.line])).toEqual([['entries/tab-or-newline', 3]]);
  });

  it('accepts matching language columns and skips mismatching ones with a warning', () => {
    const { entries, diagnostics } = parseEntries('cart,Warenkorb,EN,de\ncheckout,paiement,en,fr\n', 'csv', pair, 't.csv');
    expect([...entries]).toEqual([['cart', 'Warenkorb']]);
    expect(diagnostics.map((d) => [d.code, d.line, d.severity])).toEqual([['entries/language-columns-mismatch', 2, 'warning']]);
  });

  it('reports malformed quoting with its line, without echoing csv-parse internals', () => {
    const { diagnostics } = parseEntries('ok,fine\nalso,fine\n"open,never closed\n', 'csv', pair, 't.csv');
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'entries/malformed-quote', line: 3 })]);
  });

  it('skips a header row that exactly matches a known list, and only on the first row', () => {
    for (const header of ['source,target', 'Source,Target', 'EN,DE', 'term,translation', 'source_lang,target_lang', 'Source,Target,Source_Lang,Target_Lang']) {
      const { entries, diagnostics } = parseEntries(`${header}\ncart,Warenkorb\n`, 'csv', pair, 't.csv');
      expect([...entries], header).toEqual([['cart', 'Warenkorb']]);
      expect(diagnostics.map((d) => [d.code, d.line, d.column]), header).toEqual([['entries/csv-header', 1, 1]]);
    }
    // Not a header: other words, a later row, or the codes of another pair.
    for (const text of ['source phrase,target\ncart,Warenkorb\n', 'cart,Warenkorb\nsource,target\n', 'en,fr\ncart,Warenkorb\n']) {
      const { entries, diagnostics } = parseEntries(text, 'csv', pair, 't.csv');
      expect(entries.size, text).toBe(2);
      expect(diagnostics, text).toEqual([]);
    }
  });

  it('points CSV diagnostics at the field concerned, following quotes', () => {
    const { diagnostics } = parseEntries('"a, ""b""",  \n"x",y,en,fr\n', 'csv', pair, 't.csv');
    expect(diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([
      ['entries/whitespace-trimmed', 1, 12],
      ['entries/empty-target', 1, 12],
      ['entries/language-columns-mismatch', 2, 7],
    ]);
  });

  it('reports an unclosed quote at the line and column where the quoted field opens', () => {
    const { diagnostics } = parseEntries('ok,fine\nitem,"open\nmore,rows\nand,more\n', 'csv', pair, 't.csv');
    expect(diagnostics).toEqual([expect.objectContaining({ code: 'entries/malformed-quote', line: 2, column: 6 })]);
  });

  it('names a tab separator in a .csv file', () => {
    const { diagnostics } = parseEntries('cart\tWarenkorb\n', 'csv', pair, 't.csv');
    expect(diagnostics[0]).toEqual(expect.objectContaining({ code: 'entries/wrong-separator', line: 1, column: 5 }));
    expect(diagnostics[0]?.message).toMatch(/with a tab/);
  });
});

describe('createTsv / createCsv / toEntryList', () => {
  it('sorts by source in code-unit order and writes LF-terminated text', () => {
    const list = toEntryList(new Map([['b', 'B'], ['a', 'A'], ['Z', 'z'], ['ä', 'Ä']]));
    expect(list).toEqual([['Z', 'z'], ['a', 'A'], ['b', 'B'], ['ä', 'Ä']]);
    expect(createTsv(new Map(list), pair)).toBe('Z\tz\na\tA\nb\tB\nä\tÄ\n');
  });

  it('quotes CSV fields only where needed (RFC 4180)', () => {
    expect(createCsv(new Map([['a, b', 'say "hi"'], ['plain', 'x']]), pair)).toBe('"a, b","say ""hi"""\nplain,x\n');
  });
});

describe('canonicalisation warnings on a padded export', () => {
  it('lists the first 100 and summarises the rest in one located warning', () => {
    const text = Array.from({ length: 300 }, (_, i) => `term ${i} \tBegriff ${i}`).join('\n');
    const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
    expect(entries.size).toBe(300);
    expect(diagnostics.filter((d) => d.code === 'entries/whitespace-trimmed')).toHaveLength(100);
    expect(diagnostics.at(-1)).toEqual(expect.objectContaining({ code: 'entries/more-canonical-changes', line: 101, column: 1, severity: 'warning' }));
    expect(diagnostics.at(-1)?.message).toMatch(/^200 more phrases/);
  });
});
