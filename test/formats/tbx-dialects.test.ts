// TBX as the standards and the tools write it: every spelling and every place of a usage status, a
// document type declaration that only names its DTD, TBX-Min 1.0, nesting depth, a file that breaks
// off, and language variants.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyTimeout, runs } from '../helpers/properties.js';
import { loadRepository } from '../../src/config/index.js';
import { MAX_XML_DEPTH } from '../../src/formats/common/xml-text.js';
import { statusOf } from '../../src/formats/tbx/usage-status.js';

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function load(tbx: string, languages = 'en, de', extra = '') {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-tbx-'));
  temps.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), `kind: glossary\nname: T\nentries_file: t.tbx\nlanguages: [${languages}]\n${extra}`);
  await writeFile(path.join(dir, 'glossaries', 't.tbx'), tbx);
  const result = await loadRepository({ dir, parallel: false });
  const glossary = result.desired?.glossaries[0];
  const dictionaries = Object.fromEntries((glossary?.dictionaries ?? []).map((d) => [`${d.sourceLang}-${d.targetLang}`, Object.fromEntries(d.entries)]));
  return { diagnostics: result.diagnostics, dictionaries, shown: result.diagnostics.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}`) };
}

const martif = (body: string): string => `<?xml version="1.0"?>\n<martif type="TBX-Basic" xml:lang="en"><text><body>\n${body}\n</body></text></martif>`;

describe('usage status values, whatever their spelling', () => {
  it.each([
    ...['preferredTerm-admn-sts', 'preferredTerm', 'preferred', 'PREFERRED', 'Preferred', 'standardizedTerm-admn-sts', 'standardizedTerm', 'legalTerm', 'regulatedTerm-admn-sts'].map((v) => [v, 'preferred'] as const),
    ...['admittedTerm-admn-sts', 'admittedTerm', 'admitted', 'Admitted'].map((v) => [v, 'admitted'] as const),
    ...[
      'deprecatedTerm-admn-sts',
      'deprecatedTerm',
      'deprecated',
      'supersededTerm-admn-sts',
      'supersededTerm',
      'notRecommendedTerm-admn-sts',
      'notRecommended',
      'Not recommended',
      'not_recommended',
      'obsoleteTerm-admn-sts',
      'obsolete',
      'forbidden',
      'Forbidden',
      'FORBIDDEN',
      'forbiddenTerm',
      ' deprecated ',
    ].map((v) => [v, 'refused'] as const),
  ])('%s → %s', (value, usage) => {
    expect(statusOf(value)?.usage).toBe(usage);
  });

  it.each(['proposed', 'approved', 'Draft', '', 'preferredness', 'forbid'])('%s is none of them', (value) => {
    expect(statusOf(value)).toBeUndefined();
  });
});

// Where a status is written: the standards' places and the fields tools name themselves.
const PLACES: readonly ((value: string) => string)[] = [
  (v) => `<termNote type="administrativeStatus">${v}</termNote>`,
  (v) => `<termNote type="normativeAuthorization">${v}</termNote>`,
  (v) => `<descrip type="administrativeStatus">${v}</descrip>`,
  (v) => `<admin type="administrativeStatus">${v}</admin>`,
  (v) => `<basic:administrativeStatus>${v}</basic:administrativeStatus>`,
  (v) => `<min:administrativeStatus>${v}</min:administrativeStatus>`,
  (v) => `<termNote type="termStatus">${v}</termNote>`,
  (v) => `<termNote type="Usage">${v}</termNote>`,
  (v) => `<descrip type="usageStatus">${v}</descrip>`,
  (v) => `<termNote type="Status">${v}</termNote>`,
];
const SPELLINGS: Readonly<Record<'preferred' | 'admitted' | 'refused', readonly string[]>> = {
  preferred: ['preferredTerm-admn-sts', 'preferredTerm', 'Preferred'],
  admitted: ['admittedTerm-admn-sts', 'admitted'],
  refused: ['deprecatedTerm-admn-sts', 'supersededTerm', 'notRecommendedTerm-admn-sts', 'obsolete', 'Forbidden', 'Not recommended'],
};

describe('choosing a language\'s term by usage status (property, against a reference)', () => {
  type Usage = 'preferred' | 'admitted' | 'none' | 'refused';
  const term = fc.record({
    usage: fc.constantFrom<Usage>('preferred', 'admitted', 'none', 'refused'),
    spelling: fc.nat(5),
    place: fc.nat(PLACES.length - 1),
    // TBX 2 (tig, ntig with termGrp) or TBX 3 (termSec) structure around the term.
    wrap: fc.constantFrom('tig', 'ntig', 'termSec'),
  });
  const concept = fc.array(term, { minLength: 1, maxLength: 4 });

  /** The term a concept yields for `de` (its index), or undefined: what the contract says. */
  function reference(terms: readonly { usage: Usage }[], choice: 'preferred' | 'first'): number | undefined {
    const usable = terms.map((t, i) => ({ ...t, i })).filter((t) => t.usage !== 'refused');
    if (choice === 'first') return usable[0]?.i;
    return (usable.find((t) => t.usage === 'preferred') ?? usable.find((t) => t.usage === 'admitted') ?? usable[0])?.i;
  }

  it('takes what the reference takes, never a refused term, in every place a status is written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(concept, { minLength: 1, maxLength: 5 }), fc.constantFrom('preferred' as const, 'first' as const), async (concepts, choice) => {
        const body = concepts
          .map((terms, c) => {
            const de = terms
              .map((t, i) => {
                const status = t.usage === 'none' ? '' : (PLACES[t.place] as (v: string) => string)(SPELLINGS[t.usage][t.spelling % SPELLINGS[t.usage].length] as string);
                const inner = `<term>Begriff ${c}.${i}</term>${status}`;
                return t.wrap === 'ntig' ? `<ntig><termGrp>${inner}</termGrp></ntig>` : `<${t.wrap}>${inner}</${t.wrap}>`;
              })
              .join('');
            return `<termEntry id="c${c}"><langSet xml:lang="en"><tig><term>term ${c}</term></tig></langSet><langSet xml:lang="de">${de}</langSet></termEntry>`;
          })
          .join('\n');
        const { dictionaries, diagnostics } = await load(martif(body), 'en, de', `terms: ${choice}\n`);
        const expected: Record<string, string> = {};
        concepts.forEach((terms, c) => {
          const i = reference(terms, choice);
          if (i !== undefined) expected[`term ${c}`] = `Begriff ${c}.${i}`;
        });
        // A dictionary left without entries is an error of its own (every term refused).
        expect(diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual(Object.keys(expected).length === 0 ? ['entries/empty-dictionary'] : []);
        expect(dictionaries['en-de'] ?? {}).toEqual(expected);
        // A concept whose de terms were all refused is named in a warning.
        const named = diagnostics.filter((d) => d.code === 'entries/missing-term').map((d) => /^concept "(c\d+)"/.exec(d.message)?.[1]);
        expect(named).toEqual(concepts.flatMap((terms, c) => (terms.every((t) => t.usage === 'refused') ? [`c${c}`] : [])));
      }),
      { numRuns: runs(150) },
    );
  }, propertyTimeout(60_000));

  it('an unknown value of a standard status field is an error at the value; of a tool\'s own field a warning, once per value', async () => {
    const { shown, diagnostics, dictionaries } = await load(
      martif(
        '<termEntry id="a"><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Karre</term><termNote type="administrativeStatus">proposed</termNote></tig><tig><term>Wagen</term></tig></langSet></termEntry>\n' +
          '<termEntry id="b"><langSet xml:lang="en"><tig><term>bag</term><termNote type="Status">Draft</termNote></tig></langSet><langSet xml:lang="de"><tig><term>Tasche</term><termNote type="Status">draft</termNote></tig></langSet></termEntry>',
      ),
    );
    expect(shown).toEqual(['3:126 error entries/tbx-status', '4:63 warning entries/tbx-status-ignored']);
    expect(diagnostics[0]?.message).toMatch(/^unknown usage status "proposed" in <termNote type="administrativeStatus">: termsync cannot tell whether the term may be used, so it is not uploaded; use preferredTerm-admn-sts/);
    expect(diagnostics[1]?.message).toBe('the field <termNote type="Status"> holds "Draft", which is no usage status termsync knows, so it does not count as one (said once per value)');
    // The term of unknown status is not taken (the file is refused anyway); a tool's own field counts for nothing.
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen', bag: 'Tasche' } });
  });
});

describe('a document type declaration', () => {
  const body = '<termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry>';
  it.each([
    '<!DOCTYPE martif PUBLIC "ISO 12200:1999A//DTD MARTIF core (DXFcdV04)//EN" "TBXcdv04.dtd">',
    '<!DOCTYPE martif SYSTEM "TBXcoreStructV02.dtd">',
    "<!DOCTYPE martif SYSTEM 'TBXBasiccoreStructV02.dtd'>",
    '<!DOCTYPE martif PUBLIC "-//x//EN">',
    '<!DOCTYPE martif>',
    '<!DOCTYPE\n  martif\n  SYSTEM\n  "https://example.com/TBXcoreStructV02.dtd"\n>',
  ])('that only names its DTD is accepted, and the DTD never read: %s', async (doctype) => {
    const { diagnostics, dictionaries } = await load(`<?xml version="1.0"?>\n${doctype}\n<martif><text><body>${body}</body></text></martif>`);
    expect(diagnostics).toEqual([]);
    expect(dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
  });

  it.each([
    ['an empty internal subset', '<!DOCTYPE martif SYSTEM "TBXcoreStructV02.dtd" []>'],
    ['an entity declared', '<!DOCTYPE martif [<!ENTITY brand "Northwind">]>'],
    ['an external entity', '<!DOCTYPE martif SYSTEM "x.dtd" [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'],
    ['a parameter entity', '<!DOCTYPE martif [<!ENTITY % p SYSTEM "http://example.com/p.dtd"> %p;]>'],
  ])('with %s is refused at its start, nothing of the file read', async (_, doctype) => {
    const { shown, diagnostics, dictionaries } = await load(`<?xml version="1.0"?>\n${doctype}\n<martif><text><body>${body}</body></text></martif>`);
    expect(shown).toEqual(['2:1 error entries/xml-doctype']);
    expect(diagnostics[0]?.message).toMatch(/with an internal subset \(<!DOCTYPE … \[ … \]>\), which is refused/);
    expect(dictionaries).toEqual({ 'en-de': {} });
  });
});

describe('TBX-Min 1.0', () => {
  it('reads <TBX dialect="TBX-Min">: entry, langGroup, termGroup, termStatus', async () => {
    const tbx = `<TBX dialect="TBX-Min"><header><id>x</id><languages source="en" target="de"/></header><body>
<entry id="1"><langGroup xml:lang="en"><termGroup><term>torch</term><termStatus>admitted</termStatus></termGroup><termGroup><term>flashlight</term><termStatus>preferred</termStatus></termGroup></langGroup>
<langGroup xml:lang="de"><termGroup><term>Funzel</term><termStatus>notRecommended</termStatus></termGroup><termGroup><term>Taschenlampe</term></termGroup></langGroup></entry>
</body></TBX>`;
    expect(await load(tbx)).toMatchObject({ diagnostics: [], dictionaries: { 'en-de': { flashlight: 'Taschenlampe' } } });
  });

  it('an <entry> in another dialect is not a concept', async () => {
    const tbx = martif('<termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet><entry id="x"/></termEntry>');
    expect((await load(tbx)).dictionaries).toEqual({ 'en-de': { cart: 'Wagen' } });
  });
});

describe('nesting depth', () => {
  const nested = (depth: number): string => `<martif>${'<a>'.repeat(depth - 1)}${'</a>'.repeat(depth - 1)}<text><body><termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></langSet><langSet xml:lang="de"><tig><term>Wagen</term></tig></langSet></termEntry></body></text></martif>`;

  it(`accepts elements nested ${MAX_XML_DEPTH} deep, and refuses the one below, where it opens`, async () => {
    expect((await load(nested(MAX_XML_DEPTH))).diagnostics).toEqual([]);
    const { shown, diagnostics } = await load(nested(MAX_XML_DEPTH + 1));
    expect(shown).toEqual([`1:${'<martif>'.length + (MAX_XML_DEPTH - 1) * 3 + 1} error entries/xml-too-deep`]);
    expect(diagnostics[0]?.message).toBe(`elements nest more than ${MAX_XML_DEPTH} deep here (<a>, inside <a> opened at line 1): TBX needs about ten levels; the file is refused`);
  });
});

describe('a file that breaks off', () => {
  it.each([
    ['an element closed before the one inside it', '<termEntry><langSet xml:lang="en"><tig><term>cart</tig></langSet></termEntry>', '3:56', 'the close tag here does not match the <term> opened at line 3, column 40, which is not closed yet'],
    ['a close tag of an element never opened', '<termEntry><langSet xml:lang="en"><tig><term>cart</term></tig></x></langSet></termEntry>', '3:67', 'the close tag here does not match the <langSet> opened at line 3, column 12, which is not closed yet'],
  ])('%s names the element left open and where it opened', async (_, concept, at, message) => {
    const { shown, diagnostics } = await load(martif(concept));
    expect(shown).toEqual([`${at} error entries/malformed-xml`]);
    expect(diagnostics[0]?.message).toBe(`malformed XML: ${message}`);
  });

  it('a file that ends inside an element names the innermost one open', async () => {
    const { shown, diagnostics } = await load('<martif><text><body>\n<termEntry id="7">\n  <langSet xml:lang="en"><tig><term>cart</term></tig>\n');
    expect(shown).toEqual(['4:1 error entries/malformed-xml']);
    expect(diagnostics[0]?.message).toBe('malformed XML: the file ends before the <langSet> opened at line 3, column 3 is closed');
  });
});

describe('language variants', () => {
  const concept = (en: string, de: string, n: number): string =>
    `<termEntry id="${n}"><langSet xml:lang="${en}"><tig><term>term ${n}</term></tig></langSet><langSet xml:lang="${de}"><tig><term>Begriff ${n}</term></tig></langSet></termEntry>`;

  it('reads a variant as its base code, says so once for the file, and takes the base code alongside one variant', async () => {
    const { shown, diagnostics, dictionaries } = await load(martif([concept('en-GB', 'de_AT', 1), concept('en', 'de-at', 2), concept('EN-gb', 'fr-FR', 3)].join('\n')));
    expect(shown).toEqual(['3:19 warning entries/language-variant', '5:1 warning entries/missing-term']);
    expect(diagnostics[0]?.message).toBe('xml:lang "en-GB" and "de_AT" are read as the glossary languages en and de (the service\'s glossaries have one dictionary per language, for all its variants)');
    expect(dictionaries).toEqual({ 'en-de': { 'term 1': 'Begriff 1', 'term 2': 'Begriff 2' } });
  });

  it('refuses two variants of one declared language (zh-Hans and zh-Hant, en-US and en-GB), and minds no variant of a language not declared', async () => {
    const { shown, diagnostics } = await load(martif([concept('en', 'zh-Hans', 1), concept('en', 'zh-Hant', 2)].join('\n')), 'en, zh');
    expect(shown).toEqual(['4:82 error entries/mixed-variants']);
    expect(diagnostics[0]?.message).toMatch(/^xml:lang "zh-Hant" and "zh-Hans" \(line 3\) are both the glossary language zh: a dictionary cannot tell them apart/);
    expect((await load(martif([concept('en-US', 'de', 1), concept('en-GB', 'de', 2)].join('\n')))).shown).toEqual(['4:19 error entries/mixed-variants']);
    // fr is not declared: its variants are never read (the concepts without de are only left out).
    expect((await load(martif([concept('en', 'de', 1), concept('en', 'fr-FR', 2), concept('en', 'fr-CA', 3)].join('\n')))).shown).toEqual(['4:1 warning entries/missing-term', '5:1 warning entries/missing-term']);
  });
});
