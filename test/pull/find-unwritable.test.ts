import { describe, expect, it } from 'vitest';
import { writtenTextErrors } from '../../src/config/check-written-text.js';
import { planFileEdits, unwritableEntries, unwritableInstruction, unwritableLines, unwritableName } from '../../src/pull/index.js';

/**
 * What the service holds that the repository's files cannot: found with the validator's rules,
 * named where it is on the service, before pull or import write anything.
 */

const live = (o: Record<string, string>): Map<string, string> => new Map(Object.entries(o));
const shop = { kind: 'glossary' as const, name: 'Shop', id: 'g1' };
const de = { sourceLang: 'en', targetLang: 'de' };

describe('unwritableEntries', () => {
  it('names each entry the files cannot hold by glossary, id, pair, position and source, with the rule', () => {
    const problems = unwritableEntries(
      shop,
      de,
      live({ cart: 'Waren\tkorb', 'a\u2028b': 'x', 'nel\u0085': 'y', blank: '', long: 'x'.repeat(1100), ok: 'fine', 'bidi\u202e': 'z' }),
    );
    expect(problems).toEqual([
      'glossary "Shop" (id "g1") on the service, dictionary en → de, entry 1 ("cart"): target phrase "Waren\\tkorb" contains a tab, which the entry formats cannot carry [entries/tab-or-newline]',
      'glossary "Shop" (id "g1") on the service, dictionary en → de, entry 2 ("a\\u2028b"): source phrase contains the control character U+2028 at character 2; the service rejects the dictionary [entries/control-character]',
      'glossary "Shop" (id "g1") on the service, dictionary en → de, entry 3 ("nel\\u0085"): source phrase contains the control character U+0085 at character 4; the service rejects the dictionary [entries/control-character]',
      'glossary "Shop" (id "g1") on the service, dictionary en → de, entry 4 ("blank"): empty target phrase [entries/empty-target]',
      'glossary "Shop" (id "g1") on the service, dictionary en → de, entry 5 ("long"): target phrase is 1100 UTF-8 bytes; the limit is 1024 [entries/phrase-too-long]',
    ]);
  });

  it('an empty dictionary, and a credential never shown', () => {
    expect(unwritableEntries(shop, de, new Map())).toEqual(['glossary "Shop" (id "g1") on the service, dictionary en → de: holds no entries, and a dictionary of the repository may not be empty']);
    const key = '0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865';
    const problems = unwritableEntries(shop, de, live({ token: key }));
    expect(problems).toEqual(['glossary "Shop" (id "g1") on the service, dictionary en → de, entry 1: looks like a credential (not shown), which never belongs in a repository']);
  });

  it('names, labels and prompts: one line of plain text, a prompt may span lines', () => {
    expect(unwritableName({ kind: 'style_rules', name: 'Voice\n::error::x', id: 's1' })[0]).toContain('its name contains the control character U+000A at character 6');
    expect(unwritableInstruction({ kind: 'style_rules', name: 'Voice', id: 's1' }, { id: 'i', label: 'ok', prompt: 'line one\nline two\tand a tab' })).toEqual([]);
    expect(unwritableInstruction({ kind: 'style_rules', name: 'Voice', id: 's1' }, { id: 'i', label: 'ok', prompt: 'bell\u0007' })[0]).toContain('the prompt contains the control character U+0007');
  });

  it('the lines printed: every value escaped, the first 100 named, the rest counted', () => {
    const many = Array.from({ length: 130 }, (_, i) => `problem ${i}\n::error::x`);
    const lines = unwritableLines(many);
    expect(lines).toHaveLength(101);
    expect(lines.at(-1)).toBe('  … and 30 more');
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
  });
});

describe('planFileEdits: what it would write, checked', () => {
  const origin = { file: 'glossaries/shop.yaml', line: 1, column: 1 };
  const declared = { sourceLang: 'en', targetLang: 'de', entries: live({ a: 'A' }), origin, entriesFile: 'glossaries/shop.en-de.tsv' };
  const drift = (dictionaries: object[]): Parameters<typeof planFileEdits>[0] =>
    ({
      target: 'default',
      glossaries: [{ declared: { kind: 'glossary', name: 'Shop', api: 'v3', preventDestroy: false, origin, dictionaries: [declared] }, liveId: 'g1', dictionaries }],
      styleRules: [],
      notOnService: [],
      onlyOnService: [],
      skipped: [],
    }) as never;

  it('an updated, an added and an inline dictionary are checked, all of their entries', () => {
    const { unwritable } = planFileEdits(
      drift([
        { ...de, action: 'update', declared, live: live({ a: 'A', b: 'tab\there' }), entryChanges: [{ source: 'b', after: 'tab\there' }] },
        { sourceLang: 'en', targetLang: 'fr', action: 'add', live: live({ 'x\u0000': 'y' }), entryChanges: [{ source: 'x\u0000', after: 'y' }] },
      ]),
      () => false,
    );
    expect(unwritable).toHaveLength(2);
    expect(unwritable[0]).toContain('dictionary en → de, entry 2 ("b"): target phrase "tab\\there" contains a tab');
    expect(unwritable[1]).toContain('dictionary en → fr, entry 1 ("x\\u0000"): source phrase contains the control character U+0000');
  });

  it('a dictionary pull leaves as it is (a format it cannot write) is not its concern', () => {
    const tbx = { ...declared, entriesFile: 'glossaries/shop.tbx' };
    const { unwritable, notes } = planFileEdits(drift([{ ...de, action: 'update', declared: tbx, live: live({ b: 'tab\there' }), entryChanges: [] }]), () => false);
    expect(unwritable).toEqual([]);
    expect(notes).toHaveLength(1);
  });
});

describe('writtenTextErrors: the files as they would be written, by validate\'s rules', () => {
  it('finds what the file-level rules refuse, located in the file; a good file has none', () => {
    expect(writtenTextErrors('glossaries/s.yaml', 'kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - label: " "\n    prompt: p\n', [])).toMatchObject([
      { code: 'style/blank-text', file: 'glossaries/s.yaml', line: 5 },
    ]);
    expect(writtenTextErrors('glossaries/t.tsv', 'a\tb\tc\n', [{ pair: de }])).toMatchObject([{ code: 'entries/field-count', line: 1 }]);
    expect(writtenTextErrors('glossaries/t.tsv', 'a\tb\n', [{ pair: de }])).toEqual([]);
    // A CSV file is read with its declared delimiter, as the loader reads it.
    expect(writtenTextErrors('glossaries/t.csv', 'a;b\n', [{ pair: de }])).toMatchObject([{ code: 'entries/wrong-separator' }]);
    expect(writtenTextErrors('glossaries/t.csv', 'a;b\n', [{ pair: de, delimiter: ';' }])).toEqual([]);
    expect(writtenTextErrors('glossaries/s.yaml', 'kind: glossary\nname: G\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries: {a: b}\n', [])).toEqual([]);
  });
});
