import { canonicalLang } from '../lib/canonical.js';
import { ENDPOINTS, requestTo } from '../lib/endpoints.js';
import type { ExpectedLiteral, SameLiteral } from '../model/live.js';
import { ServiceError } from './errors.js';
import { cutLiteral, decodeLongString, parseJsonWithLongStrings } from './json-long-strings.js';
import { schemas } from './parse-responses.js';
import { clip, hideKey, isHtml } from './send-request.js';
import { describeNotJson, type ServiceCalls, type Where } from './service-calls.js';
import { EntriesText } from './tsv-entries.js';

type LangPair = { readonly source_lang: string; readonly target_lang: string };

/**
 * The dictionaries of the asked pair in a v3 entries answer (the schema has canonicalised their
 * languages, so a difference of case or surrounding space is no difference). The service answers
 * one dictionary per call, the one asked for: another pair's entries are never taken for it, and
 * an answer with two of the asked pair is ambiguous (see pairError).
 */
function dictionariesOfPair<D extends LangPair>(dictionaries: readonly D[], pair: LangPair): D[] {
  return dictionaries.filter((d) => d.source_lang === pair.source_lang && d.target_lang === pair.target_lang);
}

/** Pairs of an answer named in a message: the server chooses how many and how long, so a few, each clipped. */
const SHOWN_PAIRS = 3;

/**
 * Why an entries answer cannot be read as the asked pair's dictionary: none of that pair (which
 * was asked, and what came instead), or more than one. Bounded: `head` gives a language of the
 * answer as shown (one of over 4096 characters is a placeholder in the parsed value, shown by its
 * size), each language is clipped, and the API key is taken out (a server may write it with escapes).
 * The asked pair is the service's too (import reads it from the listing), so it is clipped alike.
 */
function pairError(dictionaries: readonly LangPair[], matches: number, pair: LangPair, where: Where, head: (lang: string) => string, apiKey: string): ServiceError {
  // The key out before clipping (a clipped key would not be found): see hideKey.
  const lang = (code: string): string => clip(hideKey(head(code), apiKey), 20);
  const asked = `${lang(pair.source_lang)} → ${lang(pair.target_lang)}`;
  let summary: string;
  if (matches > 1) summary = `unexpected response: ${matches} dictionaries ${asked} in the answer (one per call)`;
  else {
    const shown = dictionaries.slice(0, SHOWN_PAIRS).map((d) => `${lang(d.source_lang)} → ${lang(d.target_lang)}`);
    const more = dictionaries.length > SHOWN_PAIRS ? ` and ${dictionaries.length - SHOWN_PAIRS} more` : '';
    const held = shown.length === 0 ? 'none' : `${shown.join(', ')}${more}`;
    summary = `unexpected response: no dictionary ${asked} in the answer (it holds ${held})`;
  }
  return new ServiceError('invalid_response', where, summary);
}

/**
 * An entries answer of v3 whose dictionary's entries are byte for byte one of `literal`'s (see
 * cutLiteral), told from its bytes: the rest of the answer (a few hundred bytes, the entries cut
 * out) is parsed and checked as readEntriesV3 checks any answer. Anything else, any doubt included,
 * is undefined: the answer is then decoded and read as always, and refused with the same errors.
 */
function sameLiteralOf(body: Buffer, literal: ExpectedLiteral, pair: LangPair): SameLiteral | undefined {
  const cut = cutLiteral(body, literal);
  if (cut === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(cut.rest) as unknown;
  } catch {
    return undefined;
  }
  const parsed = schemas.entriesV3.safeParse(value);
  if (!parsed.success) return undefined;
  const { dictionaries } = parsed.data;
  // Not exactly one of the asked pair: undefined, so that the decode path refuses the answer with its error.
  const matches = dictionariesOfPair(dictionaries, pair);
  const match = matches.length === 1 ? matches[0] : undefined;
  if (match === undefined || (match.entries_format !== undefined && match.entries_format.toLowerCase() !== 'tsv') || match.entries !== cut.placeholder) return undefined;
  return { sameLiteral: cut.digest };
}

/**
 * The TSV text of one v3 dictionary, as the service sent it. The entries, megabytes of one JSON
 * string, are read where they are in the answer's text (parseJsonWithLongStrings) rather than
 * decoded into a second copy; any answer that cut does not suit is parsed whole, as before.
 */
export async function readEntriesV3(calls: ServiceCalls, id: string, sourceLang: string, targetLang: string, literal?: ExpectedLiteral): Promise<EntriesText | SameLiteral> {
  const pair = { source_lang: canonicalLang(sourceLang), target_lang: canonicalLang(targetLang) };
  const request = requestTo(ENDPOINTS.getEntries, { id }, pair);
  const answer = await calls.send(literal === undefined ? request : { ...request, peek: (body: Buffer) => sameLiteralOf(body, literal, pair) });
  if (answer.peeked !== undefined) return answer.peeked as SameLiteral;
  const where = calls.whereOf(request, answer);
  const cut = parseJsonWithLongStrings(answer.text);
  const dictionaries = calls.parseAnswer(schemas.entriesV3, cut === undefined ? calls.json(answer, request) : cut.value, where).dictionaries;
  const matches = dictionariesOfPair(dictionaries, pair);
  const match = matches[0];
  if (match === undefined || matches.length > 1) {
    // A language of over 4096 characters is a placeholder in the parsed value: said by its size
    // (its raw text could show escaped characters of the key, which hideKey cannot see).
    throw pairError(dictionaries, matches.length, pair, where, (code) => {
      const long = cut?.long.get(code);
      return long === undefined ? code : '(over 4096 chars)';
    }, calls.apiKey);
  }
  if (match.entries_format !== undefined && match.entries_format.toLowerCase() !== 'tsv') {
    throw new ServiceError('invalid_response', where, `unexpected response: entries_format "${clip(hideKey(match.entries_format, calls.apiKey), 40)}", expected tsv`);
  }
  const long = cut?.long.get(match.entries);
  if (long === undefined) return new EntriesText(match.entries, where);
  if (long.tsvOnly) return new EntriesText(long.text.slice(long.start, long.end), where, true);
  try {
    return new EntriesText(decodeLongString(long), where);
  } catch {
    throw new ServiceError('invalid_response', { ...where, status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
  }
}

/** The TSV text of a v2 glossary's one dictionary. */
export async function readEntriesV2(calls: ServiceCalls, id: string): Promise<EntriesText> {
  const request = { ...requestTo(ENDPOINTS.getEntriesV2, { id }), accept: 'text/tab-separated-values' };
  const answer = await calls.send(request);
  if (isHtml(answer)) {
    throw new ServiceError('invalid_response', { method: 'GET', path: request.path, status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
  }
  return new EntriesText(answer.text, { method: 'GET', path: request.path });
}
