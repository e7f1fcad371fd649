import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { TermChoice } from '../../model/entries.js';
import { glossaryLanguageOf } from '../common/collect-concepts.js';
import type { ConceptSpot, TermSpot } from '../common/concept-edits.js';
import { chooseTerm, FIELD_ELEMENTS, RANK, STATUS_ELEMENTS, statusField, statusOf, type Candidate, type Usage } from './usage-status.js';

/*
 * A TBX document read for pull (see rewrite-tbx.ts): the same concepts, language sections, term
 * groups, terms and usage statuses as parse-tbx.ts reads, with where each is in the text (offsets
 * of UTF-16 code units, from saxes' positions), so that a term's text, a term group or a language
 * section can be replaced or removed and nothing else touched. The file has passed the loader's
 * checks (pull runs on a repository validate accepts); a parse error here refuses the rewrite.
 */

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** An element's extent in the text: from its `<` to just after its end tag's `>`. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A term in the text: its element, its content, its term group (if any) and status field (if any). */
export interface TbxTerm {
  readonly element: Span;
  /** Between the start tag's `>` and the end tag's `<`. */
  readonly content: Span;
  /** The tig/ntig/termSec/termGroup that holds it (absent: a term directly in its language section). */
  readonly group?: Span;
  /** The content of the element that gives its usage status (absent: none). */
  readonly status?: Span & { readonly name: string };
  /** The language section that holds it, and how many terms that section holds. */
  readonly section: SectionSpan;
}

/** Element names and the nesting the file uses, read from its last concept: how an added concept is written. */
export interface TbxLayout extends TbxShape {
  readonly root: string;
  /** The root's `style` (TBX 3: dca or dct) and the namespace prefixes it declares (uri → prefix). */
  readonly style: string | undefined;
  readonly prefixes: ReadonlyMap<string, string>;
  /** The last concept: where it ends (a new one goes after it), its element's name and id. */
  readonly last: Span & { readonly name: string; readonly id: string | undefined };
  /** Every concept id in the file (a new one gets a fresh one). */
  readonly ids: ReadonlySet<string>;
  /** Each glossary language's `xml:lang` as the file writes it. */
  readonly codes: ReadonlyMap<string, string>;
  readonly newline: string;
}

/** A language section: its extent (known once it closes) and the terms it holds. */
export interface SectionSpan {
  start: number;
  end: number;
  terms: number;
}

/** How a concept nests a term: the names from the language section down, and each level's indentation (concept, section, groups…, term). */
export interface TbxShape {
  readonly section: string;
  readonly groups: readonly string[];
  readonly term: string;
  /** Undefined: on the line of its parent. */
  readonly indents: readonly (string | undefined)[];
}

/** A concept's place in the text: its extent, its language sections (each with its glossary language, if any) and how it nests a term. */
export interface TbxPlace {
  readonly span: Span;
  readonly sections: readonly { readonly lang: string | undefined; readonly span: SectionSpan }[];
  readonly shape: TbxShape | undefined;
}

export interface LocatedTbx {
  readonly concepts: ConceptSpot<TbxTerm>[];
  /** `places[i]` is where `concepts[i]` is. */
  readonly places: TbxPlace[];
  readonly layout: TbxLayout | undefined;
}

interface Open {
  readonly name: string;
  readonly start: number;
  contentStart: number;
}

interface GroupState {
  readonly open: Open;
  usage: Usage;
  term?: { element: Span; content: Span };
  status?: Span & { name: string };
  statusDepth: number;
}

/** The whitespace before `start` on its line when nothing else precedes it there; undefined otherwise. */
function indentOf(text: string, start: number): string | undefined {
  let at = start;
  while (at > 0 && (text[at - 1] === ' ' || text[at - 1] === '\t')) at--;
  return at === 0 || text[at - 1] === '\n' ? text.slice(at, start) : undefined;
}

/** Builds the located concepts as saxes reports the document (see locateTbx). */
class Locator {
  readonly concepts: ConceptSpot<TbxTerm>[] = [];
  readonly places: TbxPlace[] = [];
  private readonly stack: Open[] = [];
  private root: SaxesTagPlain | undefined;
  private minDialect = false;
  private concept:
    | { open: Open; id: string | undefined; langs: Map<string, (Candidate & { spot: TbxTerm })[]>; sections: { lang: string | undefined; span: SectionSpan }[]; shape?: { section: string; groups: string[]; term: string; opens: Open[] } }
    | undefined;
  private section: { open: Open; code: string | undefined; span: SectionSpan } | undefined;
  private group: GroupState | undefined;
  private lastConcept: { span: Span; name: string; id: string | undefined } | undefined;
  private readonly ids = new Set<string>();
  private readonly codes = new Map<string, string>();

  constructor(
    private readonly text: string,
    private readonly parser: SaxesParser,
    private readonly terms: TermChoice,
  ) {}

  openTagStart(name: string): void {
    this.stack.push({ name, start: this.text.lastIndexOf(`<${name}`, this.parser.position), contentStart: -1 });
  }

  openTag(tag: SaxesTagPlain): void {
    const open = this.stack[this.stack.length - 1] as Open;
    open.contentStart = this.parser.position;
    const name = localName(tag.name);
    if (this.root === undefined) {
      this.root = tag;
      this.minDialect = name === 'TBX';
      return;
    }
    if ((name === 'termEntry' || name === 'conceptEntry' || (name === 'entry' && this.minDialect)) && this.concept === undefined) {
      const id = typeof tag.attributes['id'] === 'string' ? tag.attributes['id'] : undefined;
      if (id !== undefined) this.ids.add(id);
      this.concept = { open, id, langs: new Map(), sections: [] };
    } else if ((name === 'langSet' || name === 'langSec' || name === 'langGroup') && this.concept !== undefined) {
      const raw = String(tag.attributes['xml:lang'] ?? '');
      const code = glossaryLanguageOf(raw);
      if (code !== undefined) this.codes.set(code, raw.trim());
      this.section = { open, code, span: { start: open.start, end: -1, terms: 0 } };
      this.concept.sections.push({ lang: code, span: this.section.span });
    } else if ((name === 'tig' || name === 'ntig' || name === 'termSec' || name === 'termGroup') && this.section !== undefined) {
      this.group ??= { open, usage: 'none', statusDepth: -1 };
    } else if (this.group !== undefined && name !== 'term') this.openField(name, tag);
  }

  private openField(name: string, tag: SaxesTagPlain): void {
    const group = this.group as GroupState;
    const type = tag.attributes['type'];
    if (STATUS_ELEMENTS.has(name) || (FIELD_ELEMENTS.has(name) && typeof type === 'string' && statusField(type) !== undefined)) group.statusDepth = this.stack.length;
  }

  closeTag(tag: SaxesTagPlain): void {
    const open = this.stack.pop() as Open;
    const end = this.parser.position;
    const contentEnd = tag.isSelfClosing ? open.contentStart : this.text.lastIndexOf('</', end - 1);
    const name = localName(tag.name);
    const group = this.group;
    if (group !== undefined && group.statusDepth === this.stack.length + 1) {
      const known = statusOf(decodeText(this.text.slice(open.contentStart, contentEnd)).trim());
      // As parse-tbx.ts: of two statuses, the one that refuses the term wins, else the better one.
      if (known !== undefined && group.usage !== 'refused' && (known.usage === 'refused' || group.usage === 'none' || RANK[known.usage] < RANK[group.usage])) group.usage = known.usage;
      if (known !== undefined) group.status ??= { start: open.contentStart, end: contentEnd, name: tag.name };
      group.statusDepth = -1;
      return;
    }
    if (name === 'term' && this.section !== undefined) {
      const spot = { element: { start: open.start, end }, content: { start: open.contentStart, end: contentEnd } };
      this.noteShape(open);
      if (group === undefined) this.addTerm(spot, 'none', undefined, undefined);
      else group.term ??= spot;
      return;
    }
    if (group !== undefined && group.open === open) {
      if (group.term !== undefined) this.addTerm(group.term, group.usage, { start: open.start, end }, group.status);
      this.group = undefined;
      return;
    }
    if (this.section?.open === open) {
      this.section.span.end = end;
      this.section = undefined;
      return;
    }
    if (this.concept?.open === open) this.finishConcept({ start: open.start, end }, tag.name);
  }

  /** The elements from the concept down to the first term of the concept: how the file nests a term. */
  private noteShape(term: Open): void {
    const concept = this.concept;
    if (concept === undefined || concept.shape !== undefined) return;
    const from = this.stack.indexOf(concept.open);
    const opens = [...this.stack.slice(from), term];
    if (opens.length < 3) return;
    concept.shape = { section: (opens[1] as Open).name, groups: opens.slice(2, -1).map((o) => o.name), term: term.name, opens };
  }

  private addTerm(spot: { element: Span; content: Span }, usage: Usage, group: Span | undefined, status: (Span & { name: string }) | undefined): void {
    const { concept, section } = this;
    if (concept === undefined || section?.code === undefined) return;
    section.span.terms++;
    const term: TbxTerm = { ...spot, ...(group === undefined ? {} : { group }), ...(status === undefined ? {} : { status }), section: section.span };
    const list = concept.langs.get(section.code) ?? [];
    list.push({ text: this.text.slice(spot.content.start, spot.content.end), line: 0, column: 0, usage, word: usage, spot: term });
    concept.langs.set(section.code, list);
  }

  private finishConcept(span: Span, name: string): void {
    const concept = this.concept;
    if (concept === undefined) return;
    const terms = new Map<string, TermSpot<TbxTerm>>();
    const refused = new Set<string>();
    for (const [lang, candidates] of concept.langs) {
      const { term } = chooseTerm(candidates, this.terms);
      const chosen = candidates.find((c) => c === term);
      if (chosen === undefined) {
        refused.add(lang);
        continue;
      }
      const others = candidates.filter((c) => c !== chosen && c.usage !== 'refused');
      const rivals = others.length === 0 ? 'none' : others.some((c) => c.usage === chosen.usage) ? 'equal' : 'lower';
      terms.set(lang, { text: decodeText(chosen.text), rivals, at: chosen.spot });
    }
    this.concepts.push({ terms, name: concept.id === undefined ? `the concept at offset ${span.start}` : `concept ${JSON.stringify(concept.id)}`, ...(refused.size === 0 ? {} : { refused }) });
    const shape = concept.shape;
    this.places.push({ span, sections: concept.sections, shape: shape === undefined ? undefined : { section: shape.section, groups: shape.groups, term: shape.term, indents: shape.opens.map((o) => indentOf(this.text, o.start)) } });
    this.lastConcept = { span, name, id: concept.id };
    this.concept = undefined;
  }

  layout(): TbxLayout | undefined {
    const last = this.lastConcept;
    // A new concept takes the shape of the last one (its place was pushed with it).
    const shape = this.places.at(-1)?.shape;
    const root = this.root;
    if (last === undefined || shape === undefined || root === undefined) return undefined;
    const prefixes = new Map<string, string>();
    for (const [attribute, value] of Object.entries(root.attributes)) if (attribute.startsWith('xmlns:')) prefixes.set(String(value), attribute.slice('xmlns:'.length));
    const style = typeof root.attributes['style'] === 'string' ? root.attributes['style'].toLowerCase() : undefined;
    return {
      root: localName(root.name),
      style,
      prefixes,
      last: { ...last.span, name: last.name, id: last.id },
      ...shape,
      ids: this.ids,
      codes: this.codes,
      newline: this.text.includes('\r\n') ? '\r\n' : '\n',
    };
  }
}

/** The text of a term's content as the parser reads it: the five predefined entities and character references expanded, markup dropped. */
function decodeText(raw: string): string {
  return raw
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, cdata: string) => cdata.replace(/&/g, '&amp;').replace(/</g, '&lt;'))
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_, ref: string) => {
      if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
      if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
      return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[ref] as string;
    })
    .replace(/\r\n?/g, '\n');
}

/** Reads a TBX document's text (whole) into located concepts and the layout of its last one. Throws on malformed XML. */
export function locateTbx(text: string, terms: TermChoice): LocatedTbx {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const locator = new Locator(text, parser, terms);
  parser.on('error', (err) => {
    throw err;
  });
  parser.on('opentagstart', (tag) => locator.openTagStart(tag.name));
  parser.on('opentag', (tag: SaxesTagPlain) => locator.openTag(tag));
  parser.on('closetag', (tag) => locator.closeTag(tag));
  parser.write(text);
  parser.close();
  return { concepts: locator.concepts, places: locator.places, layout: locator.layout() };
}
