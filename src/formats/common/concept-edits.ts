import { canonicalPhrase, pairKey } from '../../lib/canonical.js';
import type { Entries, LanguagePair } from '../../model/entries.js';

/*
 * What pull changes in a multilingual file (a TBX file, a workbook, CSV/TSV with language columns)
 * to make the dictionaries it feeds hold what the service holds, as edits of its concepts: a term
 * set to a new text, a term removed, a concept added. Pure and format-free: each format's writer
 * finds its concepts (with where each term is in its bytes), asks for the edits here, and applies
 * them to its bytes, touching nothing else.
 */

/** The term of a language that a dictionary takes from a concept, where it is in the file (`at`, the format's own). */
export interface TermSpot<T> {
  /** As written in the file (before canonicalisation). */
  readonly text: string;
  /**
   * The concept's other terms in this language that are not refused by their usage status:
   * `equal` when one has the status of this one (which of them the service's entry stands for
   * cannot be told), `lower` when all rank below it.
   */
  readonly rivals: 'none' | 'lower' | 'equal';
  readonly at: T;
}

/** A concept (a TBX concept entry, a row of a table): the term each language's dictionaries take. */
export interface ConceptSpot<T> {
  readonly terms: ReadonlyMap<string, TermSpot<T>>;
  /** How messages name it: `concept "c3"`, `row 12`. */
  readonly name: string;
  /** Languages in which it has terms, all refused by their usage status (forbidden, deprecated): no term is added there. */
  readonly refused?: ReadonlySet<string>;
}

export type ConceptEdit<T> =
  /** The term of `lang` gets the text `text` (canonical). */
  | { readonly kind: 'set'; readonly concept: number; readonly lang: string; readonly term: TermSpot<T>; readonly text: string }
  /** The term of `lang` goes (the pair's `source` term is the other one of the entry). */
  | { readonly kind: 'remove'; readonly concept: number; readonly lang: string; readonly term: TermSpot<T>; readonly source: string }
  /** A new concept with these terms, language → text, in the order of the declared languages. */
  | { readonly kind: 'add'; readonly terms: ReadonlyMap<string, string> }
  /** Terms added to an existing concept in languages where it has none, language → text, in the order of the declared languages. */
  | { readonly kind: 'fill'; readonly concept: number; readonly terms: ReadonlyMap<string, string> };

/** The entries a dictionary of the file must hold once written. */
export interface DictionaryTarget {
  readonly pair: LanguagePair;
  readonly live: Entries;
}

export interface ConceptEditPlan<T> {
  readonly edits: readonly ConceptEdit<T>[];
  /** Entries (or the whole file) pull leaves as they are, each with why: a line for the user. */
  readonly refused: readonly string[];
}

interface FileEntry<T> {
  readonly concept: number;
  readonly target: TermSpot<T>;
  readonly targetText: string;
}

/** The entries of one pair as the loader derives them from the concepts: canonical source → concept and target term. */
function entriesOf<T>(concepts: readonly ConceptSpot<T>[], pair: LanguagePair): Map<string, FileEntry<T>> {
  const entries = new Map<string, FileEntry<T>>();
  concepts.forEach((c, concept) => {
    const source = c.terms.get(pair.sourceLang);
    const target = c.terms.get(pair.targetLang);
    if (source === undefined || target === undefined || source.text.trim() === '' || target.text.trim() === '') return;
    const key = canonicalPhrase(source.text);
    if (!entries.has(key)) entries.set(key, { concept, target, targetText: canonicalPhrase(target.text) });
  });
  return entries;
}

function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** The dictionaries the concepts would feed once the edits are made (canonical texts). */
function simulate<T>(concepts: readonly ConceptSpot<T>[], edits: readonly ConceptEdit<T>[], pairs: readonly LanguagePair[]): Map<string, string>[] {
  const model = concepts.map((c) => new Map([...c.terms].filter(([, t]) => t.text.trim() !== '').map(([lang, t]) => [lang, canonicalPhrase(t.text)])));
  for (const edit of edits) {
    if (edit.kind === 'set') model[edit.concept]?.set(edit.lang, edit.text);
    else if (edit.kind === 'remove') model[edit.concept]?.delete(edit.lang);
    else if (edit.kind === 'fill') for (const [lang, text] of edit.terms) model[edit.concept]?.set(lang, text);
    else model.push(new Map(edit.terms));
  }
  return pairs.map((pair) => {
    const out = new Map<string, string>();
    for (const terms of model) {
      const source = terms.get(pair.sourceLang);
      const target = terms.get(pair.targetLang);
      if (source !== undefined && target !== undefined && !out.has(source)) out.set(source, target);
    }
    return out;
  });
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/**
 * The concept an added entry's terms go into: the one concept whose `lang` term is `source`, when it
 * has no term, not even a refused one, in any of the languages added (undefined otherwise: a new
 * concept). Not one whose `lang` term an edit changes or removes, nor one already filled.
 */
function conceptToFill<T>(concepts: readonly ConceptSpot<T>[], bySource: Map<string, Map<string, number>>, lang: string, source: string, terms: ReadonlyMap<string, string>, busy: ReadonlySet<string>, filled: ReadonlySet<number>): number | undefined {
  let index = bySource.get(lang);
  if (index === undefined) {
    const made = new Map<string, number>();
    concepts.forEach((c, i) => {
      const term = c.terms.get(lang);
      if (term === undefined || term.text.trim() === '') return;
      const key = canonicalPhrase(term.text);
      made.set(key, made.has(key) ? -1 : i);
    });
    bySource.set(lang, made);
    index = made;
  }
  const concept = index.get(source);
  if (concept === undefined || concept === -1 || filled.has(concept) || busy.has(`${concept}\u0000${lang}`)) return undefined;
  const spot = concepts[concept] as ConceptSpot<T>;
  for (const added of terms.keys()) if (added !== lang && (spot.terms.has(added) || spot.refused?.has(added) === true)) return undefined;
  return concept;
}

/**
 * The edits that make every dictionary of the file hold `dictionaries[i].live` (pure):
 * - a changed target: its term set to the new text (never when another term of the language has
 *   the same status: which one the service changed cannot be told);
 * - a removed entry: its target term removed (never when another term of the language would take
 *   its place); a removal that the change of its source term (through another dictionary of the
 *   file) explains is no edit of its own;
 * - an added entry: its terms added to the concept that has its source term, when exactly one
 *   concept has it and that concept has no term (none refused by its usage status either) in the
 *   languages added, one term in each language the service added it to; otherwise a new concept,
 *   one per source phrase and source language.
 * The concepts as edited are read back as the loader reads them; when a dictionary would then
 * differ from what it must hold (beyond the entries refused), the added entries go into new
 * concepts instead of existing ones, and when it still differs, nothing of the file is edited.
 */
export function planConceptEdits<T>(concepts: readonly ConceptSpot<T>[], languages: readonly string[], dictionaries: readonly DictionaryTarget[], file: string): ConceptEditPlan<T> {
  const indexes = dictionaries.map((d) => entriesOf(concepts, d.pair));
  const filling = planWith(concepts, languages, dictionaries, file, indexes, true);
  if (filling.ok || !filling.edits.some((e) => e.kind === 'fill')) return filling.plan;
  return planWith(concepts, languages, dictionaries, file, indexes, false).plan;
}

function planWith<T>(
  concepts: readonly ConceptSpot<T>[],
  languages: readonly string[],
  dictionaries: readonly DictionaryTarget[],
  file: string,
  indexes: readonly Map<string, FileEntry<T>>[],
  fill: boolean,
): { ok: boolean; edits: readonly ConceptEdit<T>[]; plan: ConceptEditPlan<T> } {
  const refused: string[] = [];
  /** Per dictionary: sources left as the file has them (refused entries). */
  const kept = dictionaries.map(() => new Set<string>());
  const sets = new Map<string, ConceptEdit<T> & { kind: 'set' }>();
  const refuse = (i: number, source: string, why: string): void => {
    kept[i]?.add(source);
    refused.push(`pull cannot write the entry ${quoted(source)} of ${pairKey((dictionaries[i] as DictionaryTarget).pair)} into ${file} faithfully: ${why}; left as it is`);
  };
  dictionaries.forEach(({ pair, live }, i) => {
    for (const [source, entry] of indexes[i] as Map<string, FileEntry<T>>) {
      const text = live.get(source);
      if (text === undefined || text === entry.targetText) continue;
      const concept = (concepts[entry.concept] as ConceptSpot<T>).name;
      if (entry.target.rivals === 'equal') {
        refuse(i, source, `${concept} has several ${pair.targetLang} terms of equal status, and which one the service changed cannot be told`);
        continue;
      }
      const key = `${entry.concept}\u0000${pair.targetLang}`;
      const other = sets.get(key);
      if (other !== undefined && other.text !== text) {
        refuse(i, source, `the service gives the ${pair.targetLang} term of ${concept} two texts (${quoted(other.text)} and ${quoted(text)}) in two dictionaries`);
        continue;
      }
      sets.set(key, { kind: 'set', concept: entry.concept, lang: pair.targetLang, term: entry.target, text });
    }
  });
  const removes = new Map<string, ConceptEdit<T> & { kind: 'remove' }>();
  dictionaries.forEach(({ pair, live }, i) => {
    for (const [source, entry] of indexes[i] as Map<string, FileEntry<T>>) {
      if (live.has(source) || sets.has(`${entry.concept}\u0000${pair.sourceLang}`)) continue;
      const concept = (concepts[entry.concept] as ConceptSpot<T>).name;
      const key = `${entry.concept}\u0000${pair.targetLang}`;
      if (entry.target.rivals !== 'none') refuse(i, source, `${concept} has another ${pair.targetLang} term, which would take the place of the one removed`);
      else if (sets.has(key)) refuse(i, source, `the service changes the ${pair.targetLang} term of ${concept} in one dictionary and removes it in another`);
      else removes.set(key, { kind: 'remove', concept: entry.concept, lang: pair.targetLang, term: entry.target, source: pair.sourceLang });
    }
  });
  // A concept whose source term another dictionary changes feeds the entry under its new source.
  const renamed = new Map<string, number>();
  for (const edit of sets.values()) renamed.set(`${edit.lang}\u0000${edit.text}`, edit.concept);
  const added = new Map<string, Map<string, string>>();
  dictionaries.forEach(({ pair, live }, i) => {
    const index = indexes[i] as Map<string, FileEntry<T>>;
    for (const [source, target] of live) {
      if (index.has(source)) continue;
      const concept = renamed.get(`${pair.sourceLang}\u0000${source}`);
      if (concept !== undefined) {
        const now = sets.get(`${concept}\u0000${pair.targetLang}`)?.text ?? concepts[concept]?.terms.get(pair.targetLang)?.text;
        if (now !== undefined && canonicalPhrase(now) === target) continue;
      }
      const key = `${pair.sourceLang}\u0000${source}`;
      const terms = added.get(key) ?? new Map([[pair.sourceLang, source]]);
      const other = terms.get(pair.targetLang);
      if (other !== undefined && other !== target) {
        refuse(i, source, `the service adds it with two ${pair.targetLang} terms (${quoted(other)} and ${quoted(target)}) in two dictionaries`);
        continue;
      }
      terms.set(pair.targetLang, target);
      added.set(key, terms);
    }
  });
  const order = (terms: Map<string, string>): Map<string, string> => new Map(languages.filter((l) => terms.has(l)).map((l) => [l, terms.get(l) as string]));
  const busy = new Set([...sets.keys(), ...removes.keys()]);
  const bySource = new Map<string, Map<string, number>>();
  const filled = new Set<number>();
  const grown: ConceptEdit<T>[] = [];
  const fresh: Map<string, string>[] = [];
  /** The terms of each concept filled, as filled (canonical): language and text → concept. */
  const grownTerms = new Map<string, number>();
  for (const [key, terms] of added) {
    const lang = key.slice(0, key.indexOf('\u0000'));
    const concept = fill ? conceptToFill(concepts, bySource, lang, terms.get(lang) as string, terms, busy, filled) : undefined;
    if (concept === undefined) {
      fresh.push(terms);
      continue;
    }
    filled.add(concept);
    for (const [l, t] of (concepts[concept] as ConceptSpot<T>).terms) if (t.text.trim() !== '') grownTerms.set(`${l}\u0000${canonicalPhrase(t.text)}`, concept);
    for (const [l, text] of terms) grownTerms.set(`${l}\u0000${text}`, concept);
    terms.delete(lang);
    grown.push({ kind: 'fill', concept, terms: order(terms) });
  }
  // An entry a filled concept now gives (through another dictionary of the file) needs no concept of its own.
  for (const terms of fresh) {
    const [lang, source] = [...terms][0] as [string, string];
    const concept = grownTerms.get(`${lang}\u0000${source}`);
    if (concept !== undefined && [...terms].every(([l, text]) => grownTerms.get(`${l}\u0000${text}`) === concept)) continue;
    grown.push({ kind: 'add', terms: order(terms) });
  }
  const edits: ConceptEdit<T>[] = [...sets.values(), ...removes.values(), ...grown];
  // Read back as the loader would: every dictionary must hold the service's entries, but for those refused.
  const after = simulate(concepts, edits, dictionaries.map((d) => d.pair));
  const wrong = dictionaries.filter((d, i) => {
    const expected = new Map(d.live);
    for (const source of kept[i] as Set<string>) {
      const entry = (indexes[i] as Map<string, FileEntry<T>>).get(source);
      if (entry === undefined) expected.delete(source);
      else expected.set(source, entry.targetText);
    }
    return !sameEntries(after[i] as Map<string, string>, expected);
  });
  if (wrong.length > 0) {
    const pairs = wrong.map((d) => pairKey(d.pair)).join(', ');
    const plan = { edits: [], refused: [`pull cannot write the service's edits into ${file} faithfully: its concepts would then give other dictionaries (${pairs}) than the service holds (a term shared by several dictionaries changed in only some of them); left as it is`] };
    return { ok: false, edits, plan };
  }
  return { ok: true, edits, plan: { edits, refused } };
}
