// planConceptEdits, the format-free part of pull's writers of multilingual files: where an entry
// the service added goes (into the one concept that has its source term and nothing in the
// languages added, or a new concept), and the read-back check that keeps the file faithful.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { planConceptEdits, type ConceptSpot } from '../../src/formats/common/concept-edits.js';
import { runs } from '../helpers/properties.js';
import { loadGlossary, pullInto, removeTemps } from './concepts-round-trip.js';

afterEach(removeTemps);

/** A concept of terms (language → text), each term's place its language. */
function concept(name: string, terms: Record<string, string>, refused: string[] = []): ConceptSpot<string> {
  return {
    name,
    terms: new Map(Object.entries(terms).map(([lang, text]) => [lang, { text, rivals: 'none' as const, at: lang }])),
    ...(refused.length === 0 ? {} : { refused: new Set(refused) }),
  };
}

const dictionary = (sourceLang: string, targetLang: string, live: Record<string, string>) => ({ pair: { sourceLang, targetLang }, live: new Map(Object.entries(live)) });
const plain = (plan: ReturnType<typeof planConceptEdits<string>>) => plan.edits.map((e) => (e.kind === 'add' ? { kind: 'add', terms: Object.fromEntries(e.terms) } : e.kind === 'fill' ? { kind: 'fill', concept: e.concept, terms: Object.fromEntries(e.terms) } : { kind: e.kind, concept: e.concept, lang: e.lang }));

describe('planConceptEdits: an added entry', () => {
  const languages = ['en', 'de', 'fr', 'es'];

  it('fills the one concept with its source term, every language added to it at once, in the declared order', () => {
    const concepts = [concept('c1', { en: 'invoice', de: 'Rechnung' }), concept('c2', { en: 'receipt', fr: 'reçu' })];
    const plan = planConceptEdits(concepts, languages, [dictionary('en', 'de', { invoice: 'Rechnung' }), dictionary('en', 'es', { invoice: 'factura' }), dictionary('en', 'fr', { receipt: 'reçu', invoice: 'facture' })], 'f');
    expect(plain(plan)).toEqual([{ kind: 'fill', concept: 0, terms: { fr: 'facture', es: 'factura' } }]);
    expect(plan.refused).toEqual([]);
  });

  it('is a new concept when its source is in several concepts, or the concept has terms there refused by their usage status, or one of the languages added already has a term', () => {
    const concepts = [concept('c1', { en: 'tax' }), concept('c2', { en: 'tax' }), concept('c3', { en: 'credit note', de: 'Gutschrift' }, ['fr']), concept('c4', { en: 'fee', es: 'tasa' }), concept('c5', { en: 'fee', es: 'cuota', de: 'Gebühr' })];
    const plan = planConceptEdits(concepts, languages, [dictionary('en', 'de', { tax: 'Steuer', 'credit note': 'Gutschrift', fee: 'Gebühr' }), dictionary('en', 'fr', { 'credit note': 'avoir', fee: 'frais' }), dictionary('en', 'es', { fee: 'tasa' })], 'f');
    expect(plain(plan)).toEqual([
      { kind: 'add', terms: { en: 'tax', de: 'Steuer' } },
      { kind: 'add', terms: { en: 'credit note', fr: 'avoir' } },
      { kind: 'add', terms: { en: 'fee', fr: 'frais' } },
    ]);
  });

  it('is a new concept when the concept\'s source term is changed or removed through another dictionary of the file', () => {
    const concepts = [concept('c1', { en: 'invoice', de: 'Rechnung' })];
    const plan = planConceptEdits(concepts, languages, [dictionary('de', 'en', { Rechnung: 'bill' }), dictionary('en', 'fr', { invoice: 'facture' })], 'f');
    expect(plain(plan)).toEqual([{ kind: 'set', concept: 0, lang: 'en' }, { kind: 'add', terms: { en: 'invoice', fr: 'facture' } }]);
  });

  it('is a new concept when filling would give another dictionary of the file an entry the service does not hold (the read-back check)', () => {
    // fr → de would gain "facture" → "Rechnung" from c1 filled.
    const concepts = [concept('c1', { en: 'invoice', de: 'Rechnung' }), concept('c2', { fr: 'reçu', de: 'Quittung' })];
    const plan = planConceptEdits(concepts, languages, [dictionary('en', 'fr', { invoice: 'facture' }), dictionary('fr', 'de', { reçu: 'Quittung' })], 'f');
    expect(plain(plan)).toEqual([{ kind: 'add', terms: { en: 'invoice', fr: 'facture' } }]);
    expect(plan.refused).toEqual([]);
    // When the service holds that entry too, the fill is faithful and made.
    const both = planConceptEdits(concepts, languages, [dictionary('en', 'fr', { invoice: 'facture' }), dictionary('fr', 'de', { reçu: 'Quittung', facture: 'Rechnung' })], 'f');
    expect(plain(both)).toEqual([{ kind: 'fill', concept: 0, terms: { fr: 'facture' } }]);
  });

  it('keeps a concept whose other target term is removed in the same pull, and fills it', () => {
    const concepts = [concept('c1', { en: 'invoice', de: 'Rechnung' })];
    const plan = planConceptEdits(concepts, languages, [dictionary('en', 'de', {}), dictionary('en', 'fr', { invoice: 'facture' })], 'f');
    expect(plain(plan)).toEqual([{ kind: 'remove', concept: 0, lang: 'de' }, { kind: 'fill', concept: 0, terms: { fr: 'facture' } }]);
  });
});

/*
 * Property, through the writers and the loader: a table of concepts (rows of en, de, fr terms, some
 * empty) written as CSV with language columns and as TBX, the service's dictionaries edited at
 * random (entries removed, changed, added, most added sources already in the file), then pulled.
 * When nothing is refused, the file reads back to exactly the service's dictionaries, and every
 * added source that exactly one concept had, with nothing in the languages added, is still in one
 * concept only.
 */
describe('planConceptEdits through the writers (property)', () => {
  const LANGS = ['en', 'de', 'fr'] as const;
  const word = fc.constantFrom('a', 'b', 'c', 'd', 'a b', 'ä');
  const cell = fc.option(word, { nil: '', freq: 2 });
  const table = fc.array(fc.tuple(word, cell, cell), { minLength: 1, maxLength: 6 });
  const edit = fc.array(fc.tuple(fc.constantFrom('de', 'fr'), word, fc.constantFrom('remove', 'x', 'y')), { maxLength: 6 });

  function csvOf(rows: readonly (readonly string[])[]): Buffer {
    return Buffer.from(['en,de,fr', ...rows.map((r) => r.join(','))].join('\n') + '\n');
  }

  function tbxOf(rows: readonly (readonly string[])[]): Buffer {
    const concepts = rows.map((r, i) => [`  <termEntry id="c${i + 1}">`, ...LANGS.flatMap((l, k) => (r[k] === '' ? [] : [`    <langSet xml:lang="${l}">`, `      <tig><term>${r[k] as string}</term></tig>`, '    </langSet>'])), '  </termEntry>']);
    return Buffer.from(['<martif type="TBX"><text><body>', ...concepts.flat(), '</body></text></martif>', ''].join('\n'));
  }

  /** The concepts of a file read back (rows, or TBX concepts): each one's en term. */
  function sourcesOf(text: string, file: string): string[] {
    if (file.endsWith('.csv')) return text.split('\n').slice(1).filter((l) => l !== '').map((l) => l.split(',')[0] as string);
    return [...text.matchAll(/<termEntry[^>]*>([\s\S]*?)<\/termEntry>/g)].map((m) => /xml:lang="en">\s*<tig><term>([^<]*)</.exec(m[1] as string)?.[1] ?? '');
  }

  for (const file of ['t.csv', 't.tbx']) {
    it(`${file}: reads back to the service's dictionaries; an added source in one concept with room for it stays in one concept`, async () => {
      const resource = `kind: glossary\nname: T\nentries_file: ${file}\nlanguages: [en, de, fr]\n`;
      await fc.assert(
        fc.asyncProperty(table, edit, async (rows, edits) => {
          const bytes = file.endsWith('.csv') ? csvOf(rows) : tbxOf(rows);
          const { dictionaries, errors } = await loadGlossary(resource, file, bytes);
          fc.pre(errors.length === 0);
          const live: Record<string, Record<string, string>> = { 'en-de': { ...dictionaries['en-de'] }, 'en-fr': { ...dictionaries['en-fr'] } };
          const added = new Map<string, Set<string>>();
          for (const [lang, source, what] of edits) {
            const d = live[`en-${lang}`] as Record<string, string>;
            if (what === 'remove') delete d[source];
            else {
              if (!(source in (dictionaries[`en-${lang}`] ?? {}))) added.set(source, (added.get(source) ?? new Set()).add(lang));
              d[source] = `${source} ${what}`;
            }
          }
          fc.pre(Object.values(live).every((d) => Object.keys(d).length > 0));
          const out = await pullInto(resource, file, bytes, live);
          if (out.refused.length > 0) return;
          const again = await loadGlossary(resource, file, Buffer.from(out.bytes));
          expect(again.errors).toEqual([]);
          expect(again.dictionaries).toEqual(live);
          const after = sourcesOf(Buffer.from(out.bytes).toString('utf8'), file);
          for (const [source, langs] of added) {
            const holders = rows.filter((r) => r[0] === source);
            const room = holders.length === 1 && [...langs].every((l) => (holders[0] as string[])[LANGS.indexOf(l as 'de')] === '');
            const removedToo = edits.some(([, s, what]) => s === source && what === 'remove');
            if (room && !removedToo) expect(after.filter((s) => s === source), `${source} in ${file}`).toHaveLength(1);
          }
        }),
        { numRuns: runs(40) },
      );
    });
  }
});
