import { planConceptEdits, type ConceptEdit } from '../common/concept-edits.js';
import type { ConceptsRewrite, ConceptsRewritten } from '../entries-format.js';
import { locateTbx, type LocatedTbx, type SectionSpan, type TbxLayout, type TbxPlace, type TbxShape, type TbxTerm } from './locate-tbx.js';

/*
 * pull's writer of TBX files: the service's edits written into the file with the smallest change,
 * every other byte as it was (the XML declaration, the DOCTYPE, comments, ids, definitions, notes,
 * admin data, other languages, the indentation and the line breaks):
 * - a changed term: the text of its <term> replaced (escaped);
 * - a removed term: its tig/ntig/termSec/termGroup removed, or its language section when that held
 *   only this term (the line it stood on goes with it); with `pull.tbx_removed: deprecate` the term
 *   stays and its usage status becomes deprecatedTerm-admn-sts (notRecommended in TBX-Min), its
 *   status field rewritten or one added after the term, in the file's dialect;
 * - an added entry: a concept after the last one, with the element names, nesting, indentation,
 *   `xml:lang` spellings and id scheme of the file's last concept.
 * UTF-8 (a byte order mark kept) and UTF-16 with a byte order mark, as the loader reads them.
 */

const MIN_NS = 'http://www.tbxinfo.net/ns/min';
const BASIC_NS = 'http://www.tbxinfo.net/ns/basic';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Splice {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** The extent of an element with the line it stood alone on (its indentation and line break), or the element alone. */
function withItsLine(text: string, start: number, end: number): { start: number; end: number } {
  let from = start;
  while (from > 0 && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
  if (from > 0 && text[from - 1] !== '\n') return { start, end };
  let to = end;
  while (text[to] === ' ' || text[to] === '\t') to++;
  if (text.startsWith('\r\n', to)) return { start: from, end: to + 2 };
  if (text[to] === '\n') return { start: from, end: to + 1 };
  return to === text.length ? { start: from, end: to } : { start, end };
}

function indentBefore(text: string, start: number): string | undefined {
  let at = start;
  while (at > 0 && (text[at - 1] === ' ' || text[at - 1] === '\t')) at--;
  return at === 0 || text[at - 1] === '\n' ? text.slice(at, start) : undefined;
}

function prefixOf(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? '' : name.slice(0, colon + 1);
}

/** The status element that marks a term deprecated in the file's dialect, or why there is none. */
function deprecatedElement(layout: TbxLayout | undefined, term: TbxTerm, text: string): string | { refused: string } {
  const root = layout?.root;
  if (root === 'TBX') return '<termStatus>notRecommended</termStatus>';
  if (root === 'tbx' && layout?.style === 'dct') {
    const prefix = layout.prefixes.get(BASIC_NS) ?? layout.prefixes.get(MIN_NS);
    if (prefix === undefined) return { refused: 'the file declares no namespace for a TBX-Basic or TBX-Min administrativeStatus element' };
    return `<${prefix}:administrativeStatus>deprecatedTerm-admn-sts</${prefix}:administrativeStatus>`;
  }
  const name = `${prefixOf(text.slice(term.element.start + 1, term.element.start + 64).split(/[\s>/]/)[0] ?? '')}termNote`;
  return `<${name} type="administrativeStatus">deprecatedTerm-admn-sts</${name}>`;
}

/** Marks a term deprecated: its status field's value rewritten, or a status field added after it. */
function deprecate(text: string, term: TbxTerm, layout: TbxLayout | undefined, newline: string): Splice | { refused: string } {
  if (term.status !== undefined) {
    const value = term.status.name.endsWith('termStatus') ? 'notRecommended' : 'deprecatedTerm-admn-sts';
    return { start: term.status.start, end: term.status.end, text: value };
  }
  if (term.group === undefined) return { refused: 'its term stands outside a term group, where no usage status can be added' };
  const element = deprecatedElement(layout, term, text);
  if (typeof element !== 'string') return element;
  const indent = indentBefore(text, term.element.start);
  return { start: term.element.end, end: term.element.end, text: `${indent === undefined ? '' : `${newline}${indent}`}${element}` };
}

/** Fresh concept ids after the file's own scheme (`c12` → `c13`, `C003` → `C004`). */
function idMaker(layout: TbxLayout): () => string | undefined {
  const last = layout.last.id;
  if (last === undefined) return () => undefined;
  const match = /^(.*?)(\d+)$/.exec(last);
  const prefix = match?.[1] ?? `${last}-`;
  const width = match?.[2]?.length ?? 1;
  let n = 0;
  for (const id of layout.ids) {
    if (!id.startsWith(prefix)) continue;
    const digits = id.slice(prefix.length);
    if (/^\d+$/.test(digits)) n = Math.max(n, Number(digits));
  }
  return () => {
    let id: string;
    do id = `${prefix}${String(++n).padStart(width, '0')}`;
    while (layout.ids.has(id));
    return id;
  };
}

/** The line break and indentation before a level of a shape (0: the concept), or nothing when that level stands on its parent's line. */
function leadOf(shape: TbxShape, newline: string, level: number): string {
  const indent = shape.indents[level];
  return indent === undefined ? '' : `${newline}${indent}`;
}

/** A language section holding one term, in a concept's shape (element names, nesting, indentation), without the line break before it. */
function sectionText(shape: TbxShape, newline: string, code: string, term: string): string {
  const names = ['', shape.section, ...shape.groups, shape.term];
  const { indents } = shape;
  const close = (i: number): string => (indents[i + 1] === undefined ? '' : `${newline}${indents[i] ?? ''}`);
  const inner = (i: number): string => (i === names.length - 1 ? escapeXml(term) : `${leadOf(shape, newline, i + 1)}<${names[i + 1] as string}>${inner(i + 1)}${close(i + 1)}</${names[i + 1] as string}>`);
  return `<${shape.section} xml:lang="${escapeXml(code)}">${inner(1)}${close(1)}</${shape.section}>`;
}

/** A new concept in the shape of the file's last one. */
function conceptText(layout: TbxLayout, terms: ReadonlyMap<string, string>, id: string | undefined): string {
  const { newline } = layout;
  const sections = [...terms].map(([lang, term]) => `${leadOf(layout, newline, 1)}${sectionText(layout, newline, layout.codes.get(lang) ?? lang, term)}`);
  const attributes = id === undefined ? '' : ` id="${escapeXml(id)}"`;
  const close = layout.indents[1] === undefined ? '' : `${newline}${layout.indents[0] ?? ''}`;
  return `${leadOf(layout, newline, 0)}<${layout.last.name}${attributes}>${sections.join('')}${close}</${layout.last.name}>`;
}

/**
 * A concept's new language sections, in its own shape: each before the first of its sections (not
 * removed) whose language comes later in the declared languages, else after its last one.
 */
function fillSplices(text: string, place: TbxPlace, terms: ReadonlyMap<string, string>, languages: readonly string[], codes: ReadonlyMap<string, string>, gone: ReadonlySet<SectionSpan>, newline: string): Splice[] | undefined {
  const shape = place.shape;
  const sections = place.sections.filter((s) => !gone.has(s.span) && s.span.end > s.span.start);
  const last = sections.at(-1);
  if (shape === undefined || last === undefined) return undefined;
  const rank = (lang: string | undefined): number => (lang === undefined ? -1 : languages.indexOf(lang));
  return [...terms].map(([lang, term]): Splice => {
    const section = sectionText(shape, newline, codes.get(lang) ?? lang, term);
    const next = sections.find((s) => rank(s.lang) > rank(lang));
    if (next === undefined) return { start: last.span.end, end: last.span.end, text: `${leadOf(shape, newline, 1)}${section}` };
    const indent = indentBefore(text, next.span.start);
    return { start: next.span.start, end: next.span.start, text: indent === undefined ? section : `${section}${newline}${indent}` };
  });
}

/** The splices that make the edits, and the edits that cannot be made here (each with why). */
function splices(text: string, located: LocatedTbx, edits: readonly ConceptEdit<TbxTerm>[], request: ConceptsRewrite): { splices: Splice[]; refused: string[] } {
  const out: Splice[] = [];
  const refused: string[] = [];
  const { layout } = located;
  const newline = layout?.newline ?? (text.includes('\r\n') ? '\r\n' : '\n');
  const added: string[] = [];
  const nextId = layout === undefined ? undefined : idMaker(layout);
  // Language sections removed as a whole: a new one is never placed against them.
  const gone = new Set<SectionSpan>();
  if (request.tbxRemoved === 'remove') for (const edit of edits) if (edit.kind === 'remove' && edit.term.at.section.terms === 1) gone.add(edit.term.at.section);
  for (const edit of edits) {
    if (edit.kind === 'set') out.push({ start: edit.term.at.content.start, end: edit.term.at.content.end, text: escapeXml(edit.text) });
    else if (edit.kind === 'remove') {
      const term = edit.term.at;
      const what = `the ${edit.lang} term of ${located.concepts[edit.concept]?.name ?? 'a concept'}`;
      if (request.tbxRemoved === 'deprecate') {
        const splice = deprecate(text, term, layout, newline);
        if ('refused' in splice) refused.push(`pull cannot mark ${what} in ${request.file} deprecated: ${splice.refused}; left as it is`);
        else out.push(splice);
        continue;
      }
      const element = term.section.terms === 1 && term.section.end > term.section.start ? term.section : (term.group ?? term.element);
      out.push({ ...withItsLine(text, element.start, element.end), text: '' });
    } else if (edit.kind === 'fill') {
      const place = located.places[edit.concept];
      const made = place === undefined ? undefined : fillSplices(text, place, edit.terms, request.source.languages, layout?.codes ?? new Map(), gone, newline);
      if (made === undefined) refused.push(`pull cannot add the ${[...edit.terms.keys()].join(', ')} terms of ${located.concepts[edit.concept]?.name ?? 'a concept'} to ${request.file}: it has no term to take their shape from; left out`);
      else out.push(...made);
    } else if (layout === undefined || nextId === undefined) {
      refused.push(`pull cannot add the entry ${JSON.stringify([...edit.terms.values()][0] ?? '')} to ${request.file}: the file has no concept to take the shape of a new one from; left out`);
    } else added.push(conceptText(layout, edit.terms, nextId()));
  }
  if (layout !== undefined && added.length > 0) out.push({ start: layout.last.end, end: layout.last.end, text: added.join('') });
  return { splices: out, refused };
}

function applySplices(text: string, list: readonly Splice[]): string {
  const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = 0;
  for (const s of sorted) {
    if (s.start < at) continue; // inside a part already removed
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}

/** The text of a TBX file's bytes, and how to encode a text back into the same encoding and byte order mark. */
function decoding(content: Buffer): { text: string; encode: (text: string) => Buffer } {
  if (content[0] === 0xff && content[1] === 0xfe) return { text: new TextDecoder('utf-16le', { fatal: true }).decode(content), encode: (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]) };
  if (content[0] === 0xfe && content[1] === 0xff) {
    const swap = (b: Buffer): Buffer => Buffer.from(b).swap16();
    return { text: new TextDecoder('utf-16be', { fatal: true }).decode(content), encode: (t) => Buffer.concat([Buffer.from([0xfe, 0xff]), swap(Buffer.from(t, 'utf16le'))]) };
  }
  const bom = content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf ? 3 : 0;
  return { text: content.toString('utf8', bom), encode: (t) => Buffer.concat([content.subarray(0, bom), Buffer.from(t, 'utf8')]) };
}

/** A TBX file with the service's edits (see the comment at the top). */
export function rewriteTbx(content: Buffer, request: ConceptsRewrite): ConceptsRewritten {
  const { text, encode } = decoding(content);
  const located = locateTbx(text, request.source.terms);
  const plan = planConceptEdits(located.concepts, request.source.languages, request.dictionaries, request.file);
  if (plan.edits.length === 0) return { bytes: content, refused: plan.refused };
  const made = splices(text, located, plan.edits, request);
  return { bytes: encode(applySplices(text, made.splices)), refused: [...plan.refused, ...made.refused] };
}
