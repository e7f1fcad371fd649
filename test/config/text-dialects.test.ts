// TSV and CSV as spreadsheets save them: encodings other than UTF-8 (declared with `encoding`), CSV
// delimiters (declared with `delimiter`, or found from a glossary-level file's header row), and a
// TSV file's header line of the pair's codes.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository, parseEntries } from '../../src/config/index.js';
import { detectDelimiter } from '../../src/formats/multilingual/parse-language-columns.js';

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function load(resource: string, name: string, content: string | Buffer) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-text-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), resource);
  await writeFile(path.join(dir, 'glossaries', name), content);
  const result = await loadRepository({ dir, parallel: false });
  const glossary = result.desired?.glossaries[0];
  const dictionaries = Object.fromEntries((glossary?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
  return { diagnostics: result.diagnostics, dictionaries, glossary, shown: result.diagnostics.map((d) => `${d.file}:${d.line}:${d.column} ${d.severity} ${d.code}`) };
}

const perDictionary = (file: string, extra = ''): string => `kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: ${file}\n${extra.replace(/^(.)/gm, '    $1')}`;
const columns = (file: string, extra = ''): string => `kind: glossary\nname: T\nentries_file: ${file}\nlanguages: [en, de]\n${extra}`;

describe('encodings', () => {
  // Every byte Windows-1252 defines above 0x7F, as Unicode names them (an independent table).
  const CP1252_80_9F = '€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ';
  const bytes1252 = Buffer.from([0x80, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8e, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9e, 0x9f]);

  it('windows-1252: every character Excel writes in 0x80–0x9F, and Latin-1 above', async () => {
    const file = Buffer.concat([Buffer.from('signs\t'), bytes1252, Buffer.from('\nsize\tGr'), Buffer.from([0xf6, 0xdf]), Buffer.from('e\n')]);
    const { diagnostics, dictionaries } = await load(perDictionary('t.tsv', 'encoding: windows-1252\n'), 't.tsv', file);
    expect(diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { signs: CP1252_80_9F, size: 'Größe' } });
  });

  it('iso-8859-1 is Latin-1 itself: 0x80–0x9F are the C1 controls, which no entry may hold', async () => {
    const file = Buffer.concat([Buffer.from('size\tGr'), Buffer.from([0xf6, 0xdf]), Buffer.from('e\nsign\t'), Buffer.from([0x80]), Buffer.from('\n')]);
    const { shown, dictionaries } = await load(perDictionary('t.tsv', 'encoding: iso-8859-1\n'), 't.tsv', file);
    expect(shown).toEqual(['glossaries/t.tsv:2:6 error entries/control-character']);
    expect(dictionaries['en-de']).toEqual({ size: 'Größe' });
  });

  it('utf-16, little- or big-endian by its byte order mark', async () => {
    const text = 'en\tde\ncompass\tKompass\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(Buffer.from(`\ufeff${text}`, 'utf16le')).swap16();
    for (const file of [le, be]) {
      const { diagnostics, dictionaries } = await load(columns('t.tsv', 'encoding: utf-16\n'), 't.tsv', file);
      expect(diagnostics).toEqual([]);
      expect(dictionaries).toEqual({ 'en-de': { compass: 'Kompass' } });
    }
  });

  it.each([
    ['a UTF-8 file declared windows-1252 (its accents would be read twice)', 'encoding: windows-1252\n', Buffer.from('cart\tWagen\nsize\tGröße\n'), 'glossaries/t.tsv:2:8', /^`encoding: windows-1252`, but the file is UTF-8 \(byte 19 starts a UTF-8 character\): read as windows-1252, each accented letter would become two \(Größe → GrÃ¶ÃŸe\); remove `encoding`$/],
    ['utf-16 without a byte order mark', 'encoding: utf-16\n', Buffer.from('cart\tWagen\n', 'utf16le'), 'glossaries/t.tsv:1:1', /does not start with a UTF-16 byte order mark/],
    ['utf-16 cut in the middle of a character', 'encoding: utf-16\n', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('cart\tWagen', 'utf16le'), Buffer.from([0x41])]), 'glossaries/t.tsv:1:1', /is not valid UTF-16/],
    ['a UTF-16 file declared windows-1252', 'encoding: windows-1252\n', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('cart\tWagen', 'utf16le')]), 'glossaries/t.tsv:1:1', /starts with a UTF-16 byte order mark: set `encoding: utf-16`/],
  ])('refuses %s, located, naming the fix', async (_, extra, file, at, message) => {
    const { diagnostics, shown } = await load(perDictionary('t.tsv', extra), 't.tsv', file);
    expect(shown).toEqual([`${at} error entries-file/encoding`]);
    expect(diagnostics[0]?.message).toMatch(message);
  });

  it('names what a file that is not UTF-8 looks like, and the settings when it cannot tell', async () => {
    const latin = await load(perDictionary('t.tsv'), 't.tsv', Buffer.concat([Buffer.from('size\tGr'), Buffer.from([0xf6, 0xdf]), Buffer.from('e\n')]));
    expect(latin.diagnostics[0]?.message).toMatch(/^not valid UTF-8 \(byte 8\): it looks like Windows-1252 .*: set `encoding: windows-1252` next to `entries_file`/);
    const other = await load(perDictionary('t.tsv'), 't.tsv', Buffer.concat([Buffer.from('size\tGr'), Buffer.from([0x81, 0xdf]), Buffer.from('e\n')]));
    expect(other.diagnostics[0]?.message).toBe('not valid UTF-8 (byte 8): if it is in another encoding, name it with `encoding` next to `entries_file` (utf-8, windows-1252, iso-8859-1, utf-16), or save it as UTF-8');
  });

  it('`encoding` and `delimiter` where they do not apply are warnings (a TBX file declares its own encoding)', async () => {
    const tbx = '<martif><text><body><termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry></body></text></martif>';
    const { shown, dictionaries } = await load(columns('t.tbx', 'encoding: windows-1252\ndelimiter: ";"\n'), 't.tbx', tbx);
    expect(shown).toEqual(['glossaries/g.yaml:5:1 warning glossary/unused-option', 'glossaries/g.yaml:6:1 warning glossary/unused-option']);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
  });
});

describe('CSV delimiters', () => {
  it('a glossary-level CSV finds its delimiter from its header row, wherever that row is', async () => {
    for (const [text, d] of [
      ['en,de\ncart,Wagen\n', ','],
      ['Glossary;;\n;;\nen;de;notes\ncart;Wagen;a, b\n', ';'],
      ['en\tde\ncart\tWagen\n', '\t'],
      ['"en";"de"\n"cart";"Wagen"\n', ';'],
    ] as const) {
      expect(detectDelimiter(text, ['en', 'de'], undefined)).toBe(d);
      const { diagnostics, dictionaries } = await load(columns('t.csv'), 't.csv', text);
      expect(diagnostics).toEqual([]);
      expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
    }
  });

  it('a declared delimiter wins over what the header row suggests', async () => {
    const text = 'en;de\nbag;Tasche, Beutel\n';
    expect((await load(columns('t.csv'), 't.csv', text)).dictionaries).toEqual({ 'en-de': { bag: 'Tasche, Beutel' } });
    const declared = await load(columns('t.csv', 'delimiter: ","\n'), 't.csv', text);
    expect(declared.shown).toEqual(['glossaries/t.csv:1:1 error entries/no-header-row']);
  });

  it('a dictionary\'s CSV reads a declared `;` or tab, quotes and all, and says so when the file uses another', async () => {
    for (const [delimiter, text] of [
      ['";"', 'cart;Wagen\n"a; b";"c ""d"""\n'],
      ['tab', 'cart\tWagen\n"a; b"\t"c ""d"""\n'],
      ['"\\t"', 'cart\tWagen\n"a; b"\t"c ""d"""\n'],
    ] as const) {
      const { diagnostics, dictionaries } = await load(perDictionary('t.csv', `delimiter: ${delimiter}\n`), 't.csv', text);
      expect(diagnostics).toEqual([]);
      expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen', 'a; b': 'c "d"' } });
    }
    const wrong = await load(perDictionary('t.csv', 'delimiter: ";"\n'), 't.csv', 'cart,Wagen\n');
    expect(wrong.shown).toEqual(['glossaries/t.csv:1:5 error entries/wrong-separator']);
    expect(wrong.diagnostics[0]?.message).toBe('this CSV file separates fields with a comma `,`, not the `;` its `delimiter` says: set it to "," (or remove it)');
  });
});

describe('a TSV file\'s header line', () => {
  const pair = { sourceLang: 'en', targetLang: 'de' };

  it('is the pair\'s codes, in any case, on the first line that is not blank: said, and not an entry', () => {
    for (const text of ['en\tde\ncart\tWagen\n', 'EN\tDe\ncart\tWagen\n', '\n  \nen\tde\ncart\tWagen\n', ' en \t de \ncart\tWagen\n']) {
      const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
      expect(Object.fromEntries(entries)).toEqual({ cart: 'Wagen' });
      expect(diagnostics.filter((d) => d.code === 'entries/tsv-header').map((d) => d.message)).toEqual([
        "header line ignored (not an entry): a first line that is exactly the pair's language codes `en<TAB>de` (any case) is taken as column titles",
      ]);
    }
  });

  it('further down, another pair\'s codes, or more than the codes, it is an entry', () => {
    for (const [text, expected] of [
      ['cart\tWagen\nen\tde\n', { cart: 'Wagen', en: 'de' }],
      ['de\ten\ncart\tWagen\n', { de: 'en', cart: 'Wagen' }],
      ['en-GB\tde\ncart\tWagen\n', { 'en-GB': 'de', cart: 'Wagen' }],
    ] as const) {
      const { entries, diagnostics } = parseEntries(text, 'tsv', pair, 't.tsv');
      expect(Object.fromEntries(entries)).toEqual(expected);
      expect(diagnostics.map((d) => d.code)).not.toContain('entries/tsv-header');
    }
  });
});
