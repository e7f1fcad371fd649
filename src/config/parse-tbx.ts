import { isUtf8 } from 'node:buffer';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { Diagnostic } from '../lib/diagnostics.js';
import type { TermChoice } from '../model/entries.js';
import { glossaryLanguageOf, type ConceptCollector, type TermAt } from './collect-concepts.js';
import { error, show, warning } from './diagnostic.js';
import { firstInvalidUtf8 } from './read-files.js';

/*
 * TBX (ISO 30042) as terminology systems export it, read with a streaming XML parser: the older
 * `martif` root (TBX 2, TBX-Basic: termEntry › langSet › tig|ntig › term), the current `tbx` root
 * (TBX 3, TBX-Core/Basic/Min, DCA and DCT styles: conceptEntry › langSec › termSec › term) and
 * TBX-Min 1.0 (`<TBX dialect="TBX-Min">`: entry › langGroup › termGroup › term). Elements are
 * matched by local name, so namespace prefixes do not matter.
 *
 * A term's usage status is read from every place the standards and the tools put it (see
 * STATUS_FIELDS): a `termNote`, `descrip` or `admin` of type `administrativeStatus` or
 * `normativeAuthorization` (TBX 2, TBX 3 DCA), an `administrativeStatus` element (TBX 3 DCT), a
 * `termStatus` element (TBX-Min 1.0), and fields that tools name `usageStatus`, `status` or `usage`.
 * Every spelling of a value counts (`preferredTerm-admn-sts`, `preferredTerm`, `preferred`, any
 * case); a term whose status says it must not be used (deprecated, superseded, not recommended,
 * obsolete, forbidden) is never taken. A value of a standard status field that is none of the known
 * ones is an error (termsync cannot tell whether the term may be used), of a tool's own field a
 * warning.
 *
 * A document type declaration that only names an external DTD (`<!DOCTYPE martif PUBLIC "…"
 * "TBXcdv04.dtd">`, as Translate Toolkit, Lokalize and TBX 2 files write) is accepted: the DTD is
 * never fetched or read, and saxes expands no entity but the five predefined ones and character
 * references. One with an internal subset (`[…]`: where entities are declared, which could expand
 * without bound or read other files) is refused before anything else is read from the file.
 *
 * Elements may nest at most MAX_XML_DEPTH deep (TBX needs about ten): a file of millions of
 * unclosed elements is refused at the first one too deep, in constant memory.
 */

const ROOTS: ReadonlySet<string> = new Set(['martif', 'tbx', 'TBX']);

/** Elements may nest at most this deep (in a TBX file, and in each XML part of a workbook). */
export const MAX_XML_DEPTH = 64;

type Usage = 'preferred' | 'admitted' | 'none' | 'refused';

/** Usage status values (see statusOf for the spellings) by what they mean for a term. */
const STATUS_VALUES: ReadonlyMap<string, Usage> = new Map([
  ['preferred', 'preferred'],
  ['standardized', 'preferred'],
  ['legal', 'preferred'],
  ['regulated', 'preferred'],
  ['admitted', 'admitted'],
  ['deprecated', 'refused'],
  ['superseded', 'refused'],
  ['notrecommended', 'refused'],
  ['obsolete', 'refused'],
  ['forbidden', 'refused'],
]);

/** How a status value is named in messages. */
const STATUS_WORDS: Readonly<Record<string, string>> = { notrecommended: 'not recommended' };

/**
 * A usage status value by its meaning, whatever its spelling: `preferredTerm-admn-sts` (TBX 2 and
 * TBX 3 Basic), `preferredTerm` (normativeAuthorization), `preferred` (TBX-Min), `notRecommended`,
 * `Not recommended`, `FORBIDDEN`: case, spaces, hyphens and underscores, a `Term` and an `-admn-sts`
 * ending do not matter. Undefined for a value that is none of them.
 */
export function statusOf(value: string): { usage: Usage; word: string } | undefined {
  let key = value.toLowerCase().replace(/[\s_-]+/g, '');
  if (key.endsWith('admnsts')) key = key.slice(0, -'admnsts'.length);
  if (key.endsWith('term')) key = key.slice(0, -'term'.length);
  const usage = STATUS_VALUES.get(key);
  return usage === undefined ? undefined : { usage, word: STATUS_WORDS[key] ?? key };
}

/**
 * Where a term's status is written: a field (`termNote`, `descrip`, `admin`) by its `type`, or an
 * element by its name; `standard` fields are the TBX data categories (an unknown value is an error),
 * the others fields that tools define themselves (an unknown value is only a warning).
 */
const STATUS_FIELDS: ReadonlyMap<string, { standard: boolean }> = new Map([
  ['administrativestatus', { standard: true }],
  ['normativeauthorization', { standard: true }],
  ['termstatus', { standard: true }],
  ['usagestatus', { standard: false }],
  ['status', { standard: false }],
  ['usage', { standard: false }],
]);
const FIELD_ELEMENTS: ReadonlySet<string> = new Set(['termNote', 'descrip', 'admin']);
const STATUS_ELEMENTS: ReadonlySet<string> = new Set(['administrativeStatus', 'normativeAuthorization', 'termStatus']);

function statusField(type: string): { standard: boolean } | undefined {
  return STATUS_FIELDS.get(type.toLowerCase().replace(/[\s_-]+/g, ''));
}

interface Candidate extends TermAt {
  usage: Usage;
  /** The refusing status, for messages (`deprecated`, `forbidden`…). */
  word: string;
}

const RANK: Readonly<Record<Usage, number>> = { preferred: 0, admitted: 1, none: 2, refused: 9 };

/** The term that counts among a language's terms (see TermChoice), or what refused them all. */
function chooseTerm(candidates: readonly Candidate[], choice: TermChoice): { term?: TermAt; refused?: string } {
  let best: Candidate | undefined;
  for (const c of candidates) {
    if (c.usage === 'refused') continue;
    if (best === undefined || (choice === 'preferred' && RANK[c.usage] < RANK[best.usage])) best = c;
    if (choice === 'first') break;
  }
  if (best !== undefined) return { term: best };
  const words = [...new Set(candidates.map((c) => c.word))];
  return words.length === 0 ? {} : { refused: words.join(' or ') };
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** A `<!DOCTYPE …>` that only names its root and an external DTD (never read), without an internal subset. */
const EXTERNAL_DOCTYPE = /^\s*[A-Za-z_][\w.:-]*(\s+(SYSTEM\s+("[^"]*"|'[^']*')|PUBLIC\s+("[^"]*"|'[^']*')(\s+("[^"]*"|'[^']*'))?))?\s*$/;

/** `de-DE`, `de_de` and `DE-de` are one code: lowercase, hyphens. */
function normalisedCode(code: string): string {
  return code.trim().toLowerCase().replace(/_/g, '-');
}

/** Thrown by an event handler to stop the parser at the first fatal problem (already reported). */
class Stop extends Error {}

/**
 * Parses a TBX document given as text chunks (pure: `file` only labels the diagnostics) and hands
 * each concept to the collector. Returns false when the file was refused (not TBX, a DOCTYPE with
 * an internal subset, malformed XML, too deep, two variants of one language): then nothing of it
 * may be used. `languages`: the glossary's declared languages (the variants of other languages in
 * the file are never read). `pause` is awaited between chunks (a long parse hears signals).
 */
export async function parseTbx(
  chunks: Iterable<string>,
  file: string,
  collector: ConceptCollector,
  terms: TermChoice,
  diagnostics: Diagnostic[],
  languages: readonly string[] = [],
  pause?: () => Promise<void>,
): Promise<boolean> {
  const parser = new SaxesParser({ position: true, xmlns: false });
  const fail = (code: string, message: string, line = parser.line, column = parser.column + 1): never => {
    diagnostics.push(error(code, message, file, line, Math.max(column, 1)));
    throw new Stop();
  };
  let depth = 0;
  // The open elements (at most MAX_XML_DEPTH): names and where each opened, for the message of a
  // file that breaks off. Numbers and names in arrays, not an object per tag (hot path).
  const openNames: string[] = [];
  const openLines = new Int32Array(MAX_XML_DEPTH + 1);
  const openColumns = new Int32Array(MAX_XML_DEPTH + 1);
  // The element closed last, and where it opened.
  const closed = { name: '', line: 0, column: 0 };
  let sawRoot = false;
  let minDialect = false;
  const declared = new Set(languages);
  // Declared languages the file writes as a variant (`de-DE`): the first variant of each (normalised),
  // where it is; said once per file, at the end.
  const variants = new Map<string, { normal: string; raw: string; line: number; column: number }>();
  let concept: { line: number; column: number; id: string | undefined; languages: Map<string, Candidate[]> } | undefined;
  let language: { code: string | undefined; depth: number } | undefined;
  let group: { usage: Usage; word: string; term: Candidate | undefined; depth: number } | undefined;
  let termText: { text: string; line: number; column: number } | undefined;
  let statusText: { text: string; standard: boolean; type: string; line: number; column: number; depth: number } | undefined;
  const ignoredStatuses = new Set<string>();
  // Where the tag being opened starts (its `<`): numbers, not an object per tag (hot path).
  let tagLine = 1;
  let tagColumn = 1;

  const addCandidate = (candidate: Candidate): void => {
    if (concept === undefined || language?.code === undefined) return;
    const list = concept.languages.get(language.code);
    if (list === undefined) concept.languages.set(language.code, [candidate]);
    else list.push(candidate);
  };

  /**
   * The glossary language of an `xml:lang`, checked against the other variants of it in the file:
   * the base code (`de`) goes with any one variant (`de-DE`), two variants (`zh-Hans`, `zh-Hant`)
   * are refused.
   */
  const languageOf = (raw: string): string | undefined => {
    const code = glossaryLanguageOf(raw);
    if (code === undefined || !declared.has(code)) return code;
    const normal = normalisedCode(raw);
    if (normal === code) return code;
    const first = variants.get(code);
    if (first === undefined) variants.set(code, { normal, raw: raw.trim(), line: tagLine, column: tagColumn });
    else if (first.normal !== normal) {
      fail(
        'entries/mixed-variants',
        `xml:lang ${show(raw.trim())} and ${show(first.raw)} (line ${first.line}) are both the glossary language ${code}: a dictionary cannot tell them apart, so their terms would be mixed; keep one of them in this file (or split the file, one glossary each)`,
        tagLine,
        tagColumn,
      );
    }
    return code;
  };

  const setStatus = (status: NonNullable<typeof statusText>): void => {
    if (group === undefined) return;
    const value = status.text.trim();
    const known = statusOf(value);
    if (known === undefined) {
      if (value === '') return;
      if (status.standard) {
        diagnostics.push(
          error(
            'entries/tbx-status',
            `unknown usage status ${show(value)} in ${status.type}: termsync cannot tell whether the term may be used, so it is not uploaded; use preferredTerm-admn-sts, admittedTerm-admn-sts, deprecatedTerm-admn-sts, supersededTerm-admn-sts, notRecommendedTerm-admn-sts or obsoleteTerm-admn-sts (or preferred, admitted, notRecommended, obsolete, forbidden)`,
            file,
            status.line,
            status.column,
          ),
        );
        group.usage = 'refused';
        group.word = 'unknown status';
      } else if (!ignoredStatuses.has(value.toLowerCase())) {
        ignoredStatuses.add(value.toLowerCase());
        diagnostics.push(
          warning('entries/tbx-status-ignored', `the field ${status.type} holds ${show(value)}, which is no usage status termsync knows, so it does not count as one (said once per value)`, file, status.line, status.column),
        );
      }
      return;
    }
    // Two statuses of one term: the one that refuses it wins, else the better one.
    if (group.usage === 'refused' || (known.usage !== 'refused' && group.usage !== 'none' && RANK[group.usage] <= RANK[known.usage])) return;
    group.usage = known.usage;
    group.word = known.word;
  };

  parser.on('doctype', (doctype) => {
    if (EXTERNAL_DOCTYPE.test(doctype)) return;
    // This fires at the `>` that ends the declaration: point at its start, `<!DOCTYPE`.
    const breaks = doctype.split('\n').length - 1;
    const line = parser.line - breaks;
    const column = breaks === 0 ? parser.column - doctype.length - '<!DOCTYPE>'.length + 1 : 1;
    fail(
      'entries/xml-doctype',
      'the file has a document type declaration with an internal subset (<!DOCTYPE … [ … ]>), which is refused: it can declare entities that expand without bound or read other files, and TBX needs none; remove the part in [ ] (a declaration that only names the DTD, <!DOCTYPE martif PUBLIC "…" "….dtd">, is accepted and never read)',
      line,
      column,
    );
  });
  parser.on('error', (err) => {
    if (err instanceof Stop) throw err;
    // saxes prefixes its message with the position, which the diagnostic already carries.
    let message = err.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    // Where the file broke off, the innermost element still open is what the user must close.
    if (depth > 0 && /^(unclosed tag|unexpected close tag|unmatched closing tag)/.test(message)) {
      const open = `<${openNames[depth - 1] as string}> opened at line ${openLines[depth - 1]}, column ${openColumns[depth - 1]}`;
      if (message.startsWith('unclosed tag')) message = `the file ends before the ${open} is closed`;
      // saxes reports this once it has ended the innermost open element (it went through closetag).
      else if (message.startsWith('unexpected close tag')) message = `the close tag here does not match the <${closed.name}> opened at line ${closed.line}, column ${closed.column}, which is not closed yet`;
      else message = `${message.replace(/^unmatched closing tag: (.*)$/, 'a close tag </$1> where no <$1> is open')} (the innermost open element is the ${open})`;
    }
    fail('entries/malformed-xml', `malformed XML: ${message}`);
  });
  parser.on('opentagstart', (tag) => {
    // Reported at the `<` of the tag: this fires once the parser has read the name and the
    // character after it.
    tagLine = parser.line;
    tagColumn = Math.max(parser.column - tag.name.length - 1, 1);
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    if (depth >= MAX_XML_DEPTH) {
      fail('entries/xml-too-deep', `elements nest more than ${MAX_XML_DEPTH} deep here (<${tag.name}>, inside <${openNames[depth - 1] as string}> opened at line ${openLines[depth - 1]}): TBX needs about ten levels; the file is refused`, tagLine, tagColumn);
    }
    openNames[depth] = tag.name;
    openLines[depth] = tagLine;
    openColumns[depth] = tagColumn;
    depth++;
    const name = localName(tag.name);
    if (!sawRoot) {
      sawRoot = true;
      if (!ROOTS.has(name)) fail('entries/not-tbx', `not a TBX file: the root element is <${tag.name}>, expected <martif> (TBX 2, TBX-Basic), <tbx> (TBX 3) or <TBX> (TBX-Min)`, tagLine, tagColumn);
      minDialect = name === 'TBX';
      return;
    }
    switch (name) {
      case 'termEntry':
      case 'conceptEntry':
      case 'entry': {
        if (name === 'entry' && !minDialect) return;
        const id = tag.attributes['id'];
        concept = { line: tagLine, column: tagColumn, id: typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined, languages: new Map() };
        return;
      }
      case 'langSet':
      case 'langSec':
      case 'langGroup': {
        const raw = tag.attributes['xml:lang'];
        if (typeof raw !== 'string' || raw.trim() === '') {
          fail('entries/tbx-language', `<${tag.name}> has no xml:lang attribute: every language section names its language`, tagLine, tagColumn);
        }
        language = { code: languageOf(raw as string), depth };
        return;
      }
      case 'tig':
      case 'ntig':
      case 'termSec':
      case 'termGroup':
        // TBX-Min's termGroup is its tig (Microsoft's termGrp, inside an ntig, is not one).
        if (group === undefined) group = { usage: 'none', word: 'no status', term: undefined, depth };
        return;
      case 'term':
        if (language !== undefined) termText = { text: '', line: tagLine, column: tagColumn };
        return;
      default: {
        if (group === undefined) return;
        if (STATUS_ELEMENTS.has(name)) {
          statusText = { text: '', standard: true, type: `<${name}>`, line: tagLine, column: tagColumn, depth };
          return;
        }
        if (!FIELD_ELEMENTS.has(name)) return;
        const type = tag.attributes['type'];
        const field = typeof type === 'string' ? statusField(type) : undefined;
        if (field !== undefined) statusText = { text: '', standard: field.standard, type: `<${name} type=${show(type as string)}>`, line: tagLine, column: tagColumn, depth };
      }
    }
  });
  parser.on('text', (text) => {
    if (termText !== undefined) termText.text += text;
    else if (statusText !== undefined) statusText.text += text;
  });
  parser.on('cdata', (text) => {
    if (termText !== undefined) termText.text += text;
    else if (statusText !== undefined) statusText.text += text;
  });
  parser.on('closetag', (tag) => {
    depth--;
    closed.name = tag.name;
    closed.line = openLines[depth] as number;
    closed.column = openColumns[depth] as number;
    switch (localName(tag.name)) {
      case 'term':
        if (termText !== undefined) {
          const candidate: Candidate = { text: termText.text, line: termText.line, column: termText.column, usage: 'none', word: 'no status' };
          termText = undefined;
          if (group === undefined) addCandidate(candidate);
          else group.term ??= candidate;
        }
        return;
      case 'tig':
      case 'ntig':
      case 'termSec':
      case 'termGroup':
        if (group !== undefined && group.depth === depth + 1) {
          if (group.term !== undefined) {
            group.term.usage = group.usage;
            group.term.word = group.word;
            addCandidate(group.term);
          }
          group = undefined;
        }
        return;
      case 'langSet':
      case 'langSec':
      case 'langGroup':
        if (language !== undefined && language.depth === depth + 1) language = undefined;
        return;
      case 'termEntry':
      case 'conceptEntry':
      case 'entry':
        if (concept !== undefined) finishConcept(concept);
        concept = undefined;
        return;
      default:
        if (statusText !== undefined && statusText.depth === depth + 1) {
          setStatus(statusText);
          statusText = undefined;
        }
    }
  });

  const finishConcept = (done: NonNullable<typeof concept>): void => {
    const chosen = new Map<string, TermAt>();
    let refused: Map<string, string> | undefined;
    for (const [code, candidates] of done.languages) {
      const { term, refused: why } = chooseTerm(candidates, terms);
      if (term !== undefined) chosen.set(code, term);
      else if (why !== undefined) (refused ??= new Map()).set(code, why);
    }
    collector.concept(chosen, done.line, done.column, refused, done.id);
  };

  try {
    for (const chunk of chunks) {
      parser.write(chunk);
      if (pause !== undefined) await pause();
    }
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
  const firstVariant = variants.values().next().value;
  if (firstVariant !== undefined) {
    const list = (items: readonly string[]): string => (items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`);
    const one = variants.size === 1;
    diagnostics.push(
      warning(
        'entries/language-variant',
        `xml:lang ${list([...variants.values()].map((v) => show(v.raw)))} ${one ? 'is' : 'are'} read as the glossary language${one ? '' : 's'} ${list([...variants.keys()])} (the service's glossaries have one dictionary per language, for all its variants)`,
        file,
        firstVariant.line,
        firstVariant.column,
      ),
    );
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
