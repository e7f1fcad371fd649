import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createImportFiles, selectUndeclared, type ImportFile } from '../../src/cli/create-import-files.js';
import { pairSlug, slugify } from '../../src/lib/file-name.js';
import type { DesiredState } from '../../src/model/desired.js';
import type { LiveGlossary, LiveStyleRules } from '../../src/model/live.js';

const origin = { file: 'x.yaml', line: 1, column: 1 };

/** The text of an import file (a workbook is no text: the test fails). */
function text(file: ImportFile | undefined): string {
  if (typeof file?.content !== 'string') throw new Error(`${file?.name ?? 'no file'} holds no text`);
  return file.content;
}
const desired = {
  glossaries: [{ kind: 'glossary', name: 'Declared', api: 'v3', preventDestroy: false, renamedFrom: 'Old name', dictionaries: [], origin }],
  styleRules: [],
} as unknown as DesiredState;

const g = (id: string, name: string, creationTime: string, api: 'v2' | 'v3' = 'v3'): LiveGlossary => ({
  id,
  name,
  api,
  creationTime,
  dictionaries: [{ sourceLang: 'en', targetLang: 'de', entryCount: 1 }],
});
const style: LiveStyleRules = {
  id: 's1',
  name: 'Marketing (German)',
  language: 'de',
  version: 3,
  configuredRules: { punctuation: { apostrophe: 'use_curly_apostrophes' } },
  customInstructions: [{ id: 'i1', label: 'Formal', prompt: 'Be formal.', sourceLanguage: 'en' }],
  creationTime: 't',
  updatedTime: 't',
};

describe('slugify', () => {
  it('makes readable, safe file names', () => {
    expect(slugify('Café Terms (DE) / 2026')).toBe('cafe-terms-de-2026');
    expect(slugify('日本語')).toBe('resource');
  });

  it('leaves nothing of a path, a hidden name or a control character, for names and language pairs alike', () => {
    for (const name of ['../../../../etc/passwd', '.bashrc', 'a/b\\c', 'x\n::error title=PWNED::y', 'nul\u0000byte', '\u202eevil']) {
      expect(slugify(name)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
    expect(pairSlug({ sourceLang: 'en', targetLang: 'zh-hans' })).toBe('en-zh-hans');
    expect(pairSlug({ sourceLang: 'en', targetLang: '../../x' })).toBe('en-x');
    expect(pairSlug({ sourceLang: '', targetLang: '..' })).toBe('x-x');
  });
});

describe('import files', () => {
  it('selects undeclared resources (not the declared name, not its renamed_from), the oldest of duplicates', () => {
    const selection = selectUndeclared(desired, {
      glossaries: [g('a', 'Declared', '1'), g('b', 'Old name', '1'), g('c2', 'Twice', '2'), g('c1', 'Twice', '1')],
      styleRules: [style],
    });
    expect(selection.glossaries.map((x) => x.id)).toEqual(['c1']);
    expect(selection.duplicates).toEqual(['Twice']);
    expect(selection.styleRules).toEqual([style]);
  });

  it('writes resource YAML and TSV files, never reusing a taken name', () => {
    const files = createImportFiles(
      { glossaries: [g('v', 'Legacy', '1', 'v2')], styleRules: [style], duplicates: [] },
      new Map([['v/en-de', new Map([['sign in', 'anmelden']])]]),
      new Set(['legacy.yaml']),
    );
    expect(files.map((f) => f.name)).toEqual(['legacy-2.yaml', 'legacy-2.en-de.tsv', 'marketing-german.yaml']);
    expect(parse(text(files[0]))).toEqual({
      kind: 'glossary',
      name: 'Legacy',
      api: 'v2',
      dictionaries: [{ source_lang: 'en', target_lang: 'de', entries_file: 'legacy-2.en-de.tsv' }],
    });
    expect(files[1]?.content).toContain('sign in\tanmelden');
    expect(parse(text(files[2]))).toEqual({
      kind: 'style_rules',
      name: 'Marketing (German)',
      language: 'de',
      configured_rules: { punctuation: { apostrophe: 'use_curly_apostrophes' } },
      custom_instructions: [{ label: 'Formal', prompt: 'Be formal.', source_language: 'en' }],
    });
  });

  it('writes one TBX file or workbook per glossary whose dictionaries share a source language, TSV otherwise', () => {
    const multi: LiveGlossary = { ...g('m', 'Web shop', '1'), dictionaries: [{ sourceLang: 'en', targetLang: 'de', entryCount: 2 }, { sourceLang: 'en', targetLang: 'fr', entryCount: 1 }] };
    const mixed: LiveGlossary = { ...g('x', 'Both ways', '1'), dictionaries: [{ sourceLang: 'en', targetLang: 'de', entryCount: 1 }, { sourceLang: 'de', targetLang: 'en', entryCount: 1 }] };
    const entries = new Map([
      ['m/en-de', new Map([['cart', 'Wagen'], ['R&D <team>', 'F&E "Team"']])],
      ['m/en-fr', new Map([['cart', 'panier']])],
      ['x/en-de', new Map([['cart', 'Wagen']])],
      ['x/de-en', new Map([['Karren', 'cart']])],
    ]);
    const fellBack: string[] = [];
    const tbx = createImportFiles({ glossaries: [multi, mixed], styleRules: [], duplicates: [] }, entries, new Set(), 'tbx', (name) => fellBack.push(name));
    expect(tbx.map((f) => f.name)).toEqual(['web-shop.yaml', 'web-shop.tbx', 'both-ways.yaml', 'both-ways.en-de.tsv', 'both-ways.de-en.tsv']);
    expect(fellBack).toEqual(['Both ways']);
    expect(parse(text(tbx[0]))).toEqual({ kind: 'glossary', name: 'Web shop', api: 'v3', entries_file: 'web-shop.tbx', languages: ['en', 'de', 'fr'] });
    const tbxText = text(tbx[1]);
    expect(tbxText).toContain('<termEntry id="c1">\n        <langSet xml:lang="en"><tig><term>R&amp;D &lt;team&gt;</term></tig></langSet>\n        <langSet xml:lang="de"><tig><term>F&amp;E &quot;Team&quot;</term></tig></langSet>\n      </termEntry>');
    expect(tbxText).toContain('<langSet xml:lang="fr"><tig><term>panier</term></tig></langSet>');
    const xlsx = createImportFiles({ glossaries: [multi], styleRules: [], duplicates: [] }, entries, new Set(), 'xlsx');
    expect(xlsx.map((f) => f.name)).toEqual(['web-shop.yaml', 'web-shop.xlsx']);
    expect(xlsx[1]?.content).toEqual({
      sheet: 'Terms',
      rows: [
        ['en', 'de', 'fr'],
        ['R&D <team>', 'F&E "Team"', null],
        ['cart', 'Wagen', 'panier'],
      ],
    });
  });
});
