// pull's TBX writer on the TBX exports of test/fixtures/real-files (the shapes each tool writes):
// a changed term, a removed one and an added entry written with the smallest change. The lines that
// differ are exactly the changed term's line, the removed term group (or language section), and the
// appended concept; the file read back holds the service's entries.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedHunks, loadGlossary, pullInto, removeTemps } from './concepts-round-trip.js';

afterEach(removeTemps);

const TBX = join(import.meta.dirname, '..', 'fixtures', 'real-files', 'tbx');
const resource = (languages: string): string => `kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [${languages}]\n`;

interface Case {
  readonly file: string;
  readonly languages: string;
  /** The source phrases of the entry the service changed and of the one it removed (none: the file's only entry has another term that would take its place). */
  readonly change: string;
  readonly remove?: string;
}

const CASES: readonly Case[] = [
  { file: 'translate-toolkit', languages: 'en, de', change: 'sleeping bag', remove: 'ground sheet' },
  { file: 'lokalize', languages: 'en, de', change: 'head lamp', remove: 'head lamp' },
  { file: 'memoq', languages: 'en, de', change: 'hiking boot', remove: 'rain jacket' },
  { file: 'multiterm', languages: 'en, de', change: 'tent', remove: 'camping stove' },
  { file: 'microsoft-terminology', languages: 'en, de', change: 'shopping cart', remove: 'sign in' },
  { file: 'tbx-basic-v2', languages: 'en, fr', change: 'sleeping mat', remove: 'tent' },
  { file: 'tbx-core-v3-dca', languages: 'en, ja', change: 'map case', remove: 'map case' },
  { file: 'tbx-basic-v3-dca', languages: 'en, de', change: 'carabiner' },
  { file: 'tbx-basic-v3-dct', languages: 'en, de', change: 'belay device', remove: 'rope bag' },
  { file: 'tbx-min-v3-dct', languages: 'en, fr', change: 'trekking pole', remove: 'gaiters' },
  { file: 'tbx-min-1.0', languages: 'en, de', change: 'flashlight', remove: 'backpack' },
];

/** The lines [from, to] of the element around a term that a removal takes: its term group, or its language section when that holds only this term. */
function removedBlock(lines: readonly string[], term: string): [number, number] {
  const at = lines.findIndex((l) => l.includes(`>${term}</`));
  const up = (pattern: RegExp): number => {
    for (let i = at; i >= 0; i--) if (pattern.test(lines[i] as string)) return i;
    return -1;
  };
  const down = (pattern: RegExp): number => lines.findIndex((l, i) => i >= at && pattern.test(l));
  const section: [number, number] = [up(/<(langSet|langSec|langGroup)\b/), down(/<\/(langSet|langSec|langGroup)>/)];
  const terms = lines.slice(section[0], section[1] + 1).filter((l) => /<term[\s>]/.test(l)).length;
  return terms === 1 ? section : [up(/<(\w+:)?(tig|ntig|termSec|termGroup)\b/), down(/<\/(\w+:)?(tig|ntig|termSec|termGroup)>/)];
}

/** The last concept of a file's lines (the one pull appends), and the other lines. */
function lastConcept(lines: readonly string[]): { concept: string[]; rest: string[] } {
  let from = -1;
  lines.forEach((l, i) => {
    if (/^\s*<(termEntry|conceptEntry|entry)[\s>]/.test(l)) from = i;
  });
  const to = lines.findIndex((l, i) => i > from && /^\s*<\/(termEntry|conceptEntry|entry)>/.test(l));
  return { concept: lines.slice(from, to + 1), rest: [...lines.slice(0, from), ...lines.slice(to + 1)] };
}

describe('pull writes into TBX files with the smallest change', () => {
  it.each(CASES.map((c) => [c.file, c] as const))('%s: a changed, a removed and an added entry', async (_, c) => {
    const bytes = await readFile(join(TBX, `${c.file}.tbx`));
    const before = bytes.toString('utf8');
    const { dictionaries, errors } = await loadGlossary(resource(c.languages), 't.tbx', bytes);
    expect(errors).toEqual([]);
    const [pair, entries] = Object.entries(dictionaries)[0] as [string, Record<string, string>];
    const old = entries[c.change] as string;
    const removed = c.remove === undefined ? undefined : (entries[c.remove] as string);
    // The two edits on different entries, or on the same one (a single-entry file): removed wins there.
    const live: Record<string, string> = { ...entries, [c.change]: `${old} <neu>` };
    if (c.remove !== undefined) delete live[c.remove];
    live['gift card'] = 'Geschenkkarte & Co';
    const out = await pullInto(resource(c.languages), 't.tbx', bytes, { [pair]: live });
    expect(out.refused).toEqual([]);
    const after = Buffer.from(out.bytes).toString('utf8');
    const again = await loadGlossary(resource(c.languages), 't.tbx', Buffer.from(out.bytes));
    expect(again.errors).toEqual([]);
    expect(again.dictionaries[pair]).toEqual(live);

    // Every line but these as it was: the changed term's line, the removed group or section, the appended concept.
    const lines = before.split('\n');
    const expected = lines.map((l) => (c.change !== c.remove && l.includes(`>${old}</`) ? l.replace(`>${old}</`, `>${old} &lt;neu&gt;</`) : l));
    if (removed !== undefined) {
      const [from, to] = removedBlock(lines, removed);
      expected.splice(from, to - from + 1);
    }
    const { concept, rest } = lastConcept(after.split('\n'));
    expect(rest).toEqual(expected);
    // The appended concept: in the file's own element names, one language section per language.
    expect(concept[0]).toMatch(/^\s*<(termEntry|conceptEntry|entry) id="[^"]+">$/);
    expect(concept.join('\n')).toContain('>gift card<');
    expect(concept.join('\n')).toContain('>Geschenkkarte &amp; Co<');
    expect(changedHunks(before, after).length).toBeLessThanOrEqual(4);
  });

  it('keeps the byte order mark, CRLF line breaks and the DOCTYPE, and writes UTF-16 back as UTF-16', async () => {
    const text = (await readFile(join(TBX, 'translate-toolkit.tbx'), 'utf8')).replace(/\n/g, '\r\n');
    for (const bytes of [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])]) {
      const out = await pullInto(resource('en, de'), 't.tbx', bytes, { 'en-de': { 'sleeping bag': 'Schlafsack XL', 'tent pole': 'Zeltstange', 'ground sheet': 'Zeltunterlage' } });
      const written = Buffer.from(out.bytes);
      expect(written.subarray(0, 2)).toEqual(bytes.subarray(0, 2));
      const utf16 = bytes[0] === 0xff;
      const expected = text.replace('<term>Schlafsack</term>', '<term>Schlafsack XL</term>');
      expect(utf16 ? written.subarray(2).toString('utf16le') : written.subarray(3).toString('utf8')).toBe(expected);
    }
  });

  it('with `pull.tbx_removed: deprecate`, keeps a removed term and marks it deprecated in the file\'s dialect', async () => {
    for (const [file, languages, source, marked] of [
      ['memoq', 'en, de', 'rain jacket', '<termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>'],
      ['tbx-basic-v3-dct', 'en, de', 'rope bag', '<basic:administrativeStatus>deprecatedTerm-admn-sts</basic:administrativeStatus>'],
      ['tbx-min-1.0', 'en, de', 'flashlight', '<termStatus>notRecommended</termStatus>'],
    ] as const) {
      const bytes = await readFile(join(TBX, `${file}.tbx`));
      const { dictionaries } = await loadGlossary(resource(languages), 't.tbx', bytes);
      const live = { ...(dictionaries['en-de'] as Record<string, string>) };
      delete live[source];
      const out = await pullInto(resource(languages), 't.tbx', bytes, { 'en-de': live }, 'deprecate');
      expect(out.refused).toEqual([]);
      const after = Buffer.from(out.bytes).toString('utf8');
      expect(after).toContain(marked);
      // Only the status: no line removed, every term still in the file.
      expect(changedHunks(bytes.toString('utf8'), after).every((h) => h.added.length === 1 && h.removed.length <= 1)).toBe(true);
      expect((await loadGlossary(resource(languages), 't.tbx', Buffer.from(out.bytes))).dictionaries['en-de']).toEqual(live);
    }
  });

  it('writes nothing for an entry whose concept has several terms of equal status, or another term that would take a removed one\'s place, and says so', async () => {
    const bytes = await readFile(join(TBX, 'tbx-core-v3-dca.tbx'));
    const changed = await pullInto(resource('en, ja'), 't.tbx', bytes, { 'en-ja': { compass: '羅針盤', 'map case': 'マップケース' } });
    expect(changed.refused).toEqual([
      'pull cannot write the entry "compass" of en-ja into glossaries/t.tbx faithfully: concept "c1" has several ja terms of equal status, and which one the service changed cannot be told; left as it is',
    ]);
    expect(Buffer.from(changed.bytes)).toEqual(bytes);
    const lokalize = await readFile(join(TBX, 'lokalize.tbx'));
    const removed = await pullInto(resource('en, de'), 't.tbx', lokalize, { 'en-de': { 'head lamp': 'Kopflampe' } });
    expect(removed.refused).toEqual([
      'pull cannot write the entry "water bottle" of en-de into glossaries/t.tbx faithfully: concept "lokalize-2" has another de term, which would take the place of the one removed; left as it is',
    ]);
    expect(changedHunks(lokalize.toString('utf8'), Buffer.from(removed.bytes).toString('utf8'))).toEqual([{ removed: ['       <term>Stirnlampe</term>'], added: ['       <term>Kopflampe</term>'] }]);
  });

  it('writes into a TBX file named by one dictionary (its pair taken from the file) alike', async () => {
    const bytes = await readFile(join(TBX, 'translate-toolkit.tbx'));
    const perDictionary = 'kind: glossary\nname: T\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: t.tbx\n';
    const live = { 'sleeping bag': 'Schlafsack', 'tent pole': 'Zeltstab', 'ground sheet': 'Zeltunterlage' };
    const out = await pullInto(perDictionary, 't.tbx', bytes, { 'en-de': live });
    expect(changedHunks(bytes.toString('utf8'), Buffer.from(out.bytes).toString('utf8'))).toEqual([{ removed: ['<term>Zeltstange</term>'], added: ['<term>Zeltstab</term>'] }]);
    expect((await loadGlossary(perDictionary, 't.tbx', Buffer.from(out.bytes))).dictionaries['en-de']).toEqual(live);
  });

  describe('an added entry whose source term is in exactly one concept without a term in the languages added', () => {
    const resource3 = 'kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [en, de, fr]\n';
    const tig = (lang: string, term: string, note = ''): string[] => [`        <langSet xml:lang="${lang}">`, '          <tig>', `            <term>${term}</term>`, ...(note === '' ? [] : [`            ${note}`]), '          </tig>', '        </langSet>'];
    const entry = (id: string, ...sections: string[][]): string[] => [`      <termEntry id="${id}">`, ...sections.flat(), '      </termEntry>'];
    const file = (...entries: string[][]): string => ['<?xml version="1.0" encoding="UTF-8"?>', '<martif type="TBX" xml:lang="en">', '  <text>', '    <body>', ...entries.flat(), '    </body>', '  </text>', '</martif>', ''].join('\n');
    const deprecated = '<termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>';
    const originals = [
      entry('c1', tig('en-US', 'invoice'), tig('fr-FR', 'facture')),
      entry('c2', tig('en-US', 'receipt'), tig('de-DE', 'Quittung')),
      entry('c3', tig('en-US', 'credit note'), tig('fr-FR', 'note de crédit', deprecated)),
      entry('c4', tig('en-US', 'tax')),
      entry('c5', tig('en-US', 'tax')),
    ];
    const before = file(...originals);

    it('gets the terms as language sections of that concept, in the file\'s shape and xml:lang spelling, in the order of the declared languages', async () => {
      const bytes = Buffer.from(before);
      const { dictionaries, errors } = await loadGlossary(resource3, 't.tbx', bytes);
      expect(errors).toEqual([]);
      const live = { 'en-de': { ...dictionaries['en-de'], invoice: 'Rechnung' }, 'en-fr': { ...dictionaries['en-fr'], receipt: 'reçu & co' } };
      const out = await pullInto(resource3, 't.tbx', bytes, live);
      expect(out.refused).toEqual([]);
      const expected = file(
        entry('c1', tig('en-US', 'invoice'), tig('de-DE', 'Rechnung'), tig('fr-FR', 'facture')),
        entry('c2', tig('en-US', 'receipt'), tig('de-DE', 'Quittung'), tig('fr-FR', 'reçu &amp; co')),
        ...originals.slice(2),
      );
      expect(Buffer.from(out.bytes).toString('utf8')).toBe(expected);
      expect((await loadGlossary(resource3, 't.tbx', Buffer.from(out.bytes))).dictionaries).toEqual(live);
    });

    it('the same source added to two dictionaries: both terms in one concept, a new one when its source is in two concepts or the concept has only deprecated terms in a language added', async () => {
      const bytes = Buffer.from(before);
      const live = { 'en-de': { receipt: 'Quittung', tax: 'Steuer', 'credit note': 'Gutschrift', gift: 'Geschenk' }, 'en-fr': { invoice: 'facture', 'credit note': 'avoir', tax: 'taxe', gift: 'cadeau' } };
      const out = await pullInto(resource3, 't.tbx', bytes, live);
      expect(out.refused).toEqual([]);
      const after = Buffer.from(out.bytes).toString('utf8');
      // c3 has only a deprecated fr term, c4 and c5 share their source: each added entry a new concept, in one concept per source.
      const expected = file(
        ...originals,
        entry('c6', tig('en-US', 'tax'), tig('de-DE', 'Steuer'), tig('fr-FR', 'taxe')),
        entry('c7', tig('en-US', 'credit note'), tig('de-DE', 'Gutschrift'), tig('fr-FR', 'avoir')),
        entry('c8', tig('en-US', 'gift'), tig('de-DE', 'Geschenk'), tig('fr-FR', 'cadeau')),
      );
      expect(after).toBe(expected);
      expect((await loadGlossary(resource3, 't.tbx', Buffer.from(out.bytes))).dictionaries).toEqual(live);
      // Once c5 is gone, c4 alone has "tax": both of its new terms go into it.
      const single = Buffer.from(before.replace(entry('c5', tig('en-US', 'tax')).join('\n') + '\n', ''));
      const filled = await pullInto(resource3, 't.tbx', single, { 'en-de': { receipt: 'Quittung', tax: 'Steuer' }, 'en-fr': { invoice: 'facture', tax: 'taxe' } });
      expect(Buffer.from(filled.bytes).toString('utf8')).toContain(entry('c4', tig('en-US', 'tax'), tig('de-DE', 'Steuer'), tig('fr-FR', 'taxe')).join('\n'));
      expect(changedHunks(single.toString('utf8'), Buffer.from(filled.bytes).toString('utf8'))).toHaveLength(1);
    });

    it('in a TBX 3 file with namespaced fields, placed after the concept\'s last section, a removed one taken into account', async () => {
      const bytes = await readFile(join(TBX, 'tbx-basic-v3-dct.tbx'));
      const out = await pullInto(resource3, 't.tbx', bytes, { 'en-de': { 'belay device': 'Sicherungsgerät' }, 'en-fr': { 'rope bag': 'sac à corde' } });
      expect(out.refused).toEqual([]);
      const after = Buffer.from(out.bytes).toString('utf8');
      const section = (lang: string, lines: string[]): string => [`        <langSec xml:lang="${lang}">`, '          <termSec>', ...lines.map((l) => `            ${l}`), '          </termSec>', '        </langSec>'].join('\n');
      expect(after).toBe(bytes.toString('utf8').replace(section('de', ['<term>Seilsack</term>', '<basic:administrativeStatus>admittedTerm-admn-sts</basic:administrativeStatus>']), section('fr', ['<term>sac à corde</term>'])));
      expect((await loadGlossary(resource3, 't.tbx', Buffer.from(out.bytes))).dictionaries).toEqual({ 'en-de': { 'belay device': 'Sicherungsgerät' }, 'en-fr': { 'rope bag': 'sac à corde' } });
    });

    it('on one line, a concept written without line breaks gets its section without any', async () => {
      const bytes = Buffer.from('<martif type="TBX"><text><body><termEntry id="a"><langSet xml:lang="en"><tig><term>invoice</term></tig></langSet><langSet xml:lang="fr"><tig><term>facture</term></tig></langSet></termEntry></body></text></martif>');
      const out = await pullInto(resource3, 't.tbx', bytes, { 'en-de': { invoice: 'Rechnung' } });
      expect(Buffer.from(out.bytes).toString('utf8')).toBe(
        '<martif type="TBX"><text><body><termEntry id="a"><langSet xml:lang="en"><tig><term>invoice</term></tig></langSet><langSet xml:lang="de"><tig><term>Rechnung</term></tig></langSet><langSet xml:lang="fr"><tig><term>facture</term></tig></langSet></termEntry></body></text></martif>',
      );
    });
  });
});
