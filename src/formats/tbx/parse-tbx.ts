import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { type Diagnostic, error, show, warning } from '../../lib/diagnostics.js';
import type { TermChoice } from '../../model/entries.js';
import { glossaryLanguageOf, type ConceptCollector, type TermAt } from '../common/collect-concepts.js';
import { InvalidText, MAX_XML_DEPTH } from '../common/xml-text.js';
import { chooseTerm, FIELD_ELEMENTS, RANK, STATUS_ELEMENTS, statusField, statusOf, type Candidate, type Usage } from './usage-status.js';

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

interface OpenConcept {
  readonly line: number;
  readonly column: number;
  readonly id: string | undefined;
  readonly languages: Map<string, Candidate[]>;
}

interface StatusText {
  text: string;
  readonly standard: boolean;
  readonly type: string;
  readonly line: number;
  readonly column: number;
  readonly depth: number;
}

/**
 * The state of one TBX document as saxes reports it, tag by tag: the open concept, language
 * section, term group, term and status field, and where each element opened (for the message of
 * a file that breaks off). Numbers and names in fields and arrays, not an object per tag (hot path).
 */
class TbxEvents {
  depth = 0;
  private readonly openNames: string[] = [];
  private readonly openLines = new Int32Array(MAX_XML_DEPTH + 1);
  private readonly openColumns = new Int32Array(MAX_XML_DEPTH + 1);
  /** The element closed last, and where it opened. */
  private readonly closed = { name: '', line: 0, column: 0 };
  sawRoot = false;
  private minDialect = false;
  private readonly declared: ReadonlySet<string>;
  /** Declared languages the file writes as a variant (`de-DE`): the first variant of each (normalised), where it is; said once per file, at the end. */
  private readonly variants = new Map<string, { normal: string; raw: string; line: number; column: number }>();
  private concept: OpenConcept | undefined;
  private language: { code: string | undefined; depth: number } | undefined;
  private group: { usage: Usage; word: string; term: Candidate | undefined; depth: number } | undefined;
  private termText: { text: string; line: number; column: number } | undefined;
  private statusText: StatusText | undefined;
  private readonly ignoredStatuses = new Set<string>();
  /** Where the tag being opened starts (its `<`). */
  private tagLine = 1;
  private tagColumn = 1;

  constructor(
    private readonly parser: SaxesParser,
    private readonly file: string,
    private readonly collector: ConceptCollector,
    private readonly terms: TermChoice,
    private readonly diagnostics: Diagnostic[],
    languages: readonly string[],
  ) {
    this.declared = new Set(languages);
  }

  fail(code: string, message: string, line = this.parser.line, column = this.parser.column + 1): never {
    this.diagnostics.push(error(code, message, this.file, line, Math.max(column, 1)));
    throw new Stop();
  }

  doctype(doctype: string): void {
    if (EXTERNAL_DOCTYPE.test(doctype)) return;
    // This fires at the `>` that ends the declaration: point at its start, `<!DOCTYPE`.
    const breaks = doctype.split('\n').length - 1;
    const line = this.parser.line - breaks;
    const column = breaks === 0 ? this.parser.column - doctype.length - '<!DOCTYPE>'.length + 1 : 1;
    this.fail(
      'entries/xml-doctype',
      'the file has a document type declaration with an internal subset (<!DOCTYPE … [ … ]>), which is refused: it can declare entities that expand without bound or read other files, and TBX needs none; remove the part in [ ] (a declaration that only names the DTD, <!DOCTYPE martif PUBLIC "…" "….dtd">, is accepted and never read)',
      line,
      column,
    );
  }

  error(err: Error): void {
    if (err instanceof Stop) throw err;
    // saxes prefixes its message with the position, which the diagnostic already carries.
    let message = err.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '');
    // Where the file broke off, the innermost element still open is what the user must close.
    const { depth, closed } = this;
    if (depth > 0 && /^(unclosed tag|unexpected close tag|unmatched closing tag)/.test(message)) {
      const open = `<${this.openNames[depth - 1] as string}> opened at line ${this.openLines[depth - 1]}, column ${this.openColumns[depth - 1]}`;
      if (message.startsWith('unclosed tag')) message = `the file ends before the ${open} is closed`;
      // saxes reports this once it has ended the innermost open element (it went through closetag).
      else if (message.startsWith('unexpected close tag')) message = `the close tag here does not match the <${closed.name}> opened at line ${closed.line}, column ${closed.column}, which is not closed yet`;
      else message = `${message.replace(/^unmatched closing tag: (.*)$/, 'a close tag </$1> where no <$1> is open')} (the innermost open element is the ${open})`;
    }
    this.fail('entries/malformed-xml', `malformed XML: ${message}`);
  }

  /** Reported at the `<` of the tag: this fires once the parser has read the name and the character after it. */
  openTagStart(name: string): void {
    this.tagLine = this.parser.line;
    this.tagColumn = Math.max(this.parser.column - name.length - 1, 1);
  }

  openTag(tag: SaxesTagPlain): void {
    const { depth, tagLine, tagColumn } = this;
    if (depth >= MAX_XML_DEPTH) {
      this.fail('entries/xml-too-deep', `elements nest more than ${MAX_XML_DEPTH} deep here (<${tag.name}>, inside <${this.openNames[depth - 1] as string}> opened at line ${this.openLines[depth - 1]}): TBX needs about ten levels; the file is refused`, tagLine, tagColumn);
    }
    this.openNames[depth] = tag.name;
    this.openLines[depth] = tagLine;
    this.openColumns[depth] = tagColumn;
    this.depth = depth + 1;
    const name = localName(tag.name);
    if (!this.sawRoot) {
      this.sawRoot = true;
      if (!ROOTS.has(name)) this.fail('entries/not-tbx', `not a TBX file: the root element is <${tag.name}>, expected <martif> (TBX 2, TBX-Basic), <tbx> (TBX 3) or <TBX> (TBX-Min)`, tagLine, tagColumn);
      this.minDialect = name === 'TBX';
      return;
    }
    switch (name) {
      case 'termEntry':
      case 'conceptEntry':
      case 'entry': {
        if (name === 'entry' && !this.minDialect) return;
        const id = tag.attributes['id'];
        this.concept = { line: tagLine, column: tagColumn, id: typeof id === 'string' && id.trim() !== '' ? id.trim() : undefined, languages: new Map() };
        return;
      }
      case 'langSet':
      case 'langSec':
      case 'langGroup': {
        const raw = tag.attributes['xml:lang'];
        if (typeof raw !== 'string' || raw.trim() === '') {
          this.fail('entries/tbx-language', `<${tag.name}> has no xml:lang attribute: every language section names its language`, tagLine, tagColumn);
        }
        this.language = { code: this.languageOf(raw), depth: this.depth };
        return;
      }
      case 'tig':
      case 'ntig':
      case 'termSec':
      case 'termGroup':
        // TBX-Min's termGroup is its tig (Microsoft's termGrp, inside an ntig, is not one).
        this.group ??= { usage: 'none', word: 'no status', term: undefined, depth: this.depth };
        return;
      case 'term':
        if (this.language !== undefined) this.termText = { text: '', line: tagLine, column: tagColumn };
        return;
      default:
        if (this.group !== undefined) this.openField(name, tag);
    }
  }

  /** An element inside a term group that may hold its usage status. */
  private openField(name: string, tag: SaxesTagPlain): void {
    const { tagLine: line, tagColumn: column, depth } = this;
    if (STATUS_ELEMENTS.has(name)) {
      this.statusText = { text: '', standard: true, type: `<${name}>`, line, column, depth };
      return;
    }
    if (!FIELD_ELEMENTS.has(name)) return;
    const type = tag.attributes['type'];
    const field = typeof type === 'string' ? statusField(type) : undefined;
    if (field !== undefined) this.statusText = { text: '', standard: field.standard, type: `<${name} type=${show(type as string)}>`, line, column, depth };
  }

  text(text: string): void {
    if (this.termText !== undefined) this.termText.text += text;
    else if (this.statusText !== undefined) this.statusText.text += text;
  }

  closeTag(tag: SaxesTagPlain): void {
    const depth = --this.depth;
    this.closed.name = tag.name;
    this.closed.line = this.openLines[depth] as number;
    this.closed.column = this.openColumns[depth] as number;
    switch (localName(tag.name)) {
      case 'term': {
        const termText = this.termText;
        if (termText !== undefined) {
          const candidate: Candidate = { text: termText.text, line: termText.line, column: termText.column, usage: 'none', word: 'no status' };
          this.termText = undefined;
          if (this.group === undefined) this.addCandidate(candidate);
          else this.group.term ??= candidate;
        }
        return;
      }
      case 'tig':
      case 'ntig':
      case 'termSec':
      case 'termGroup': {
        const group = this.group;
        if (group !== undefined && group.depth === depth + 1) {
          if (group.term !== undefined) {
            group.term.usage = group.usage;
            group.term.word = group.word;
            this.addCandidate(group.term);
          }
          this.group = undefined;
        }
        return;
      }
      case 'langSet':
      case 'langSec':
      case 'langGroup':
        if (this.language !== undefined && this.language.depth === depth + 1) this.language = undefined;
        return;
      case 'termEntry':
      case 'conceptEntry':
      case 'entry':
        if (this.concept !== undefined) this.finishConcept(this.concept);
        this.concept = undefined;
        return;
      default:
        if (this.statusText !== undefined && this.statusText.depth === depth + 1) {
          this.setStatus(this.statusText);
          this.statusText = undefined;
        }
    }
  }

  private addCandidate(candidate: Candidate): void {
    const { concept, language } = this;
    if (concept === undefined || language?.code === undefined) return;
    const list = concept.languages.get(language.code);
    if (list === undefined) concept.languages.set(language.code, [candidate]);
    else list.push(candidate);
  }

  /**
   * The glossary language of an `xml:lang`, checked against the other variants of it in the file:
   * the base code (`de`) goes with any one variant (`de-DE`), two variants (`zh-Hans`, `zh-Hant`)
   * are refused.
   */
  private languageOf(raw: string): string | undefined {
    const code = glossaryLanguageOf(raw);
    if (code === undefined || !this.declared.has(code)) return code;
    const normal = normalisedCode(raw);
    if (normal === code) return code;
    const first = this.variants.get(code);
    if (first === undefined) this.variants.set(code, { normal, raw: raw.trim(), line: this.tagLine, column: this.tagColumn });
    else if (first.normal !== normal) {
      this.fail(
        'entries/mixed-variants',
        `xml:lang ${show(raw.trim())} and ${show(first.raw)} (line ${first.line}) are both the glossary language ${code}: a dictionary cannot tell them apart, so their terms would be mixed; keep one of them in this file (or split the file, one glossary each)`,
        this.tagLine,
        this.tagColumn,
      );
    }
    return code;
  }

  private setStatus(status: StatusText): void {
    const group = this.group;
    if (group === undefined) return;
    const value = status.text.trim();
    const known = statusOf(value);
    if (known === undefined) {
      if (value === '') return;
      if (status.standard) {
        this.diagnostics.push(
          error(
            'entries/tbx-status',
            `unknown usage status ${show(value)} in ${status.type}: termsync cannot tell whether the term may be used, so it is not uploaded; use preferredTerm-admn-sts, admittedTerm-admn-sts, deprecatedTerm-admn-sts, supersededTerm-admn-sts, notRecommendedTerm-admn-sts or obsoleteTerm-admn-sts (or preferred, admitted, notRecommended, obsolete, forbidden)`,
            this.file,
            status.line,
            status.column,
          ),
        );
        group.usage = 'refused';
        group.word = 'unknown status';
      } else if (!this.ignoredStatuses.has(value.toLowerCase())) {
        this.ignoredStatuses.add(value.toLowerCase());
        this.diagnostics.push(
          warning('entries/tbx-status-ignored', `the field ${status.type} holds ${show(value)}, which is no usage status termsync knows, so it does not count as one (said once per value)`, this.file, status.line, status.column),
        );
      }
      return;
    }
    // Two statuses of one term: the one that refuses it wins, else the better one.
    if (group.usage === 'refused' || (known.usage !== 'refused' && group.usage !== 'none' && RANK[group.usage] <= RANK[known.usage])) return;
    group.usage = known.usage;
    group.word = known.word;
  }

  private finishConcept(done: OpenConcept): void {
    const chosen = new Map<string, TermAt>();
    let refused: Map<string, string> | undefined;
    for (const [code, candidates] of done.languages) {
      const { term, refused: why } = chooseTerm(candidates, this.terms);
      if (term !== undefined) chosen.set(code, term);
      else if (why !== undefined) (refused ??= new Map()).set(code, why);
    }
    this.collector.concept(chosen, done.line, done.column, refused, done.id);
  }

  /** The warning that declared languages are written as variants (`de-DE`), once per file; undefined when none is. */
  variantWarning(): Diagnostic | undefined {
    const { variants } = this;
    const firstVariant = variants.values().next().value;
    if (firstVariant === undefined) return undefined;
    const list = (items: readonly string[]): string => (items.length === 1 ? (items[0] as string) : `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`);
    const one = variants.size === 1;
    return warning(
      'entries/language-variant',
      `xml:lang ${list([...variants.values()].map((v) => show(v.raw)))} ${one ? 'is' : 'are'} read as the glossary language${one ? '' : 's'} ${list([...variants.keys()])} (the service's glossaries have one dictionary per language, for all its variants)`,
      this.file,
      firstVariant.line,
      firstVariant.column,
    );
  }
}

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
  const events = new TbxEvents(parser, file, collector, terms, diagnostics, languages);
  parser.on('doctype', (doctype) => events.doctype(doctype));
  parser.on('error', (err) => events.error(err));
  parser.on('opentagstart', (tag) => events.openTagStart(tag.name));
  parser.on('opentag', (tag: SaxesTagPlain) => events.openTag(tag));
  parser.on('text', (text) => events.text(text));
  parser.on('cdata', (text) => events.text(text));
  parser.on('closetag', (tag) => events.closeTag(tag));
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
  if (!events.sawRoot) {
    diagnostics.push(error('entries/not-tbx', 'not a TBX file: it holds no XML element', file, 1, 1));
    return false;
  }
  const variants = events.variantWarning();
  if (variants !== undefined) diagnostics.push(variants);
  return true;
}
