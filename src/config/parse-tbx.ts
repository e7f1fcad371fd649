import { isUtf8 } from 'node:buffer';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { TermChoice } from '../model/entries.js';
import { glossaryLanguageOf, type ConceptCollector, type TermAt } from './collect-concepts.js';
import { error } from './diagnostic.js';
import { firstInvalidUtf8 } from './read-files.js';

/*
 * TBX (ISO 30042) as terminology systems export it, read with a streaming XML parser: the older
 * `martif` root (TBX 2, TBX-Basic: termEntry › langSet › tig|ntig › term) and the current `tbx`
 * root (TBX 3, TBX-Core/Basic: conceptEntry › langSec › termSec › term). Elements are matched by
 * local name, so namespace prefixes do not matter. A term's usage status is the text of a
 * `termNote type="administrativeStatus"` (or the older `normativeAuthorization`), or of an
 * `administrativeStatus` element (TBX 3 DCT style).
 *
 * A document type declaration is refused before anything else is read from the file: it is how
 * entity expansion ("billion laughs") and external entities get in, and TBX needs none. The XML
 * parser itself expands no entity but the five predefined ones and character references.
 */

const ROOTS: ReadonlySet<string> = new Set(['martif', 'tbx']);
const STATUS_TYPES: ReadonlySet<string> = new Set(['administrativeStatus', 'normativeAuthorization']);

type Status = 'preferred' | 'admitted' | 'none' | 'deprecated' | 'superseded';

/** A usage status value (`preferredTerm-admn-sts`, `deprecatedTerm`, …) by its leading word. */
function statusOf(value: string): Status {
  const text = value.trim().toLowerCase();
  if (text.startsWith('preferred') || text.startsWith('standardized')) return 'preferred';
  if (text.startsWith('admitted')) return 'admitted';
  if (text.startsWith('deprecated')) return 'deprecated';
  if (text.startsWith('superseded')) return 'superseded';
  return 'none';
}

interface Candidate extends TermAt {
  status: Status;
}

const RANK: Readonly<Record<Status, number>> = { preferred: 0, admitted: 1, none: 2, deprecated: 9, superseded: 9 };

/** The term that counts among a language's terms (see TermChoice), or what refused them all. */
function chooseTerm(candidates: readonly Candidate[], choice: TermChoice): { term?: TermAt; refused?: string } {
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (RANK[c.status] >= 9) continue;
    if (best === undefined || (choice === 'preferred' && RANK[c.status] < RANK[best.status])) best = c;
    if (choice === 'first') break;
  }
  if (best !== undefined) return { term: best };
  const statuses = [...new Set(candidates.map((c) => c.status))];
  return statuses.length === 0 ? {} : { refused: statuses.join(' or ') };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** Thrown by an event handler to stop the parser at the first fatal problem (already reported). */
class Stop extends Error {}

/**
 * Parses a TBX document given as text chunks (pure: `file` only labels the diagnostics) and hands
 * each concept to the collector. Returns false when the file was refused (not TBX, a DOCTYPE,
 * malformed XML): then nothing of it may be used.
 */
export function parseTbx(chunks: Iterable<string>, file: string, collector: ConceptCollector, terms: TermChoice, diagnostics: Diagnostic[]): boolean {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const fail = (code: string, message: string, line = parser.line, column = parser.column + 1): never => {
    diagnostics.push(error(code, message, file, line, Math.max(column, 1)));
    throw new Stop();
  };
  let depth = 0;
  let sawRoot = false;
  let concept: { line: number; column: number; languages: Map<string, Candidate[]> } | undefined;
  let language: { code: string | undefined; depth: number } | undefined;
  let group: { status: Status; term: Candidate | undefined } | undefined;
  let termText: { text: string; line: number; column: number } | undefined;
  let statusText: string | undefined;
  // Where the tag being opened starts (its `<`): numbers, not an object per tag (hot path).
  let tagLine = 1;
  let tagColumn = 1;

  const addCandidate = (candidate: Candidate): void => {
    if (concept === undefined || language?.code === undefined) return;
    const list = concept.languages.get(language.code);
    if (list === undefined) concept.languages.set(language.code, [candidate]);
    else list.push(candidate);
  };

  parser.on('doctype', (doctype) => {
    // This fires at the `>` that ends the declaration: point at its start, `<!DOCTYPE`.
    const breaks = doctype.split('\n').length - 1;
    const line = parser.line - breaks;
    const column = breaks === 0 ? parser.column - doctype.length - '<!DOCTYPE>'.length + 1 : 1;
    fail(
      'entries/xml-doctype',
      'the file has a document type declaration (<!DOCTYPE …>), which is refused: it can declare entities that expand without bound or read other files, and TBX needs none; remove it',
      line,
      column,
    );
  });
  parser.on('error', (err) => {
    if (err instanceof Stop) throw err;
    // saxes prefixes its message with the position, which the diagnostic already carries.
    const message = err.message.replace(/^\d+:\d+: /, '');
    fail('entries/malformed-xml', `malformed XML: ${message}`);
  });
  parser.on('opentagstart', (tag) => {
    // Reported at the `<` of the tag: this fires once the parser has read the name and the
    // character after it.
    tagLine = parser.line;
    tagColumn = Math.max(parser.column - tag.name.length - 1, 1);
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    depth++;
    const name = localName(tag.name);
    if (!sawRoot) {
      sawRoot = true;
      if (!ROOTS.has(name)) fail('entries/not-tbx', `not a TBX file: the root element is <${tag.name}>, expected <martif> (TBX 2, TBX-Basic) or <tbx> (TBX 3)`, tagLine, tagColumn);
      return;
    }
    switch (name) {
      case 'termEntry':
      case 'conceptEntry':
        concept = { line: tagLine, column: tagColumn, languages: new Map() };
        return;
      case 'langSet':
      case 'langSec': {
        const raw = tag.attributes['xml:lang'];
        if (typeof raw !== 'string' || raw.trim() === '') {
          fail('entries/tbx-language', `<${tag.name}> has no xml:lang attribute: every language section names its language`, tagLine, tagColumn);
        }
        language = { code: glossaryLanguageOf(raw as string), depth };
        return;
      }
      case 'tig':
      case 'ntig':
      case 'termSec':
        group = { status: 'none', term: undefined };
        return;
      case 'term':
        if (language !== undefined) termText = { text: '', line: tagLine, column: tagColumn };
        return;
      case 'administrativeStatus':
        statusText = '';
        return;
      case 'termNote': {
        const type = tag.attributes['type'];
        if (typeof type === 'string' && STATUS_TYPES.has(type)) statusText = '';
        return;
      }
      default:
    }
  });
  parser.on('text', (text) => {
    if (termText !== undefined) termText.text += text;
    else if (statusText !== undefined) statusText += text;
  });
  parser.on('cdata', (text) => {
    if (termText !== undefined) termText.text += text;
  });
  parser.on('closetag', (tag) => {
    depth--;
    switch (localName(tag.name)) {
      case 'term':
        if (termText !== undefined) {
          const candidate: Candidate = { text: termText.text, line: termText.line, column: termText.column, status: 'none' };
          termText = undefined;
          if (group === undefined) addCandidate(candidate);
          else group.term ??= candidate;
        }
        return;
      case 'termNote':
      case 'administrativeStatus':
        if (statusText !== undefined) {
          if (group !== undefined) group.status = statusOf(statusText);
          statusText = undefined;
        }
        return;
      case 'tig':
      case 'ntig':
      case 'termSec':
        if (group !== undefined) {
          if (group.term !== undefined) {
            group.term.status = group.status;
            addCandidate(group.term);
          }
          group = undefined;
        }
        return;
      case 'langSet':
      case 'langSec':
        if (language !== undefined && language.depth === depth + 1) language = undefined;
        return;
      case 'termEntry':
      case 'conceptEntry':
        if (concept !== undefined) finishConcept(concept);
        concept = undefined;
        return;
      default:
    }
  });

  const finishConcept = (done: { line: number; column: number; languages: Map<string, Candidate[]> }): void => {
    const chosen = new Map<string, TermAt>();
    let refused: Map<string, string> | undefined;
    for (const [code, candidates] of done.languages) {
      const { term, refused: why } = chooseTerm(candidates, terms);
      if (term !== undefined) chosen.set(code, term);
      else if (why !== undefined) (refused ??= new Map()).set(code, why);
    }
    collector.concept(chosen, done.line, done.column, refused);
  };

  try {
    for (const chunk of chunks) parser.write(chunk);
    parser.close();
  } catch (caught) {
    if (caught instanceof Stop) return false;
    if (caught instanceof InvalidText) {
      diagnostics.push(error('entries/invalid-encoding', `${caught.message}: save the file as UTF-8`, file, parser.line, parser.column + 1));
      return false;
    }
    throw caught;
  }
  if (!sawRoot) {
    diagnostics.push(error('entries/not-tbx', 'not a TBX file: it holds no XML element', file, 1, 1));
    return false;
  }
  return true;
}

/** Raised by the chunks iterable when the bytes are not text in the declared encoding. */
export class InvalidText extends Error {}

/**
 * The text chunks of a TBX file's bytes: UTF-8, or UTF-16 with a byte order mark (some
 * terminology systems export that). Decoded chunk by chunk, so a large file never becomes one
 * large string; invalid bytes raise InvalidText, which parseTbx reports at the line reached.
 */
export function* decodeXmlChunks(bytes: Buffer, chunkBytes = 1 << 20): Generator<string> {
  const utf16 = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!utf16) {
    // UTF-8, checked once up front (native and fast), then cut at character boundaries. Invalid
    // bytes: the text before them is parsed first, so that the error has the line they are on.
    let length = bytes.length;
    if (!isUtf8(bytes)) length = firstInvalidUtf8(bytes);
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    for (let at = start; at < length; ) {
      let end = Math.min(at + chunkBytes, length);
      while (end < length && ((bytes[end] as number) & 0xc0) === 0x80) end--;
      yield bytes.toString('utf8', at, end);
      at = end;
    }
    if (length < bytes.length) throw new InvalidText(`not valid UTF-8 (byte ${length + 1})`);
    return;
  }
  const decoder = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be', { fatal: true });
  for (let at = 0; at < bytes.length; at += chunkBytes) {
    const end = Math.min(at + chunkBytes, bytes.length);
    let text: string;
    try {
      text = decoder.decode(bytes.subarray(at, end), { stream: end < bytes.length });
    } catch {
      throw new InvalidText(`not valid UTF-16 (a byte between offsets ${at + 1} and ${end})`);
    }
    if (text.length > 0) yield text;
  }
}
