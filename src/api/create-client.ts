import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { Clock } from '../lib/clock.js';
import { systemClock } from '../lib/clock.js';
import { canonicalLang } from '../lib/canonical.js';
import { DEFAULTS, defaultConcurrency } from '../lib/defaults.js';
import { InputError } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import type { ConfiguredRules } from '../model/desired.js';
import type { EntryList } from '../model/entries.js';
import type { ExpectedLiteral, LiveInstruction, LiveStyleRules, SameLiteral } from '../model/live.js';
import type { DictionaryPayload } from '../model/plan.js';
import { checkBaseUrl } from './check-base-url.js';
import { ServiceError } from './errors.js';
import {
  parseWith,
  schemas,
  toDictionary,
  toGlossaryV2,
  toGlossaryV3,
  toInstruction,
  toStyleRules,
  type LiveGlossaryInfo,
} from './parse-responses.js';
import { createRequestQueue, type ApiCall, type ClientMetricsHooks, type OperationBudget, type RetryOptions } from './request-queue.js';
import { clip, createAgent, formatBytes, hideKey, isHtml, requestTarget, type ExchangeLimits, type HttpAnswer } from './send-request.js';
import { cutLiteral, decodeLongString, parseJsonWithLongStrings } from './json-long-strings.js';
import { EntriesText, encodeEntries } from './tsv-entries.js';

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The variable the key came from, named in the 401 message (default TERMSYNC_API_KEY). */
  readonly apiKeyEnv?: string;
  /** The Authorization scheme: the target's `auth_scheme` (default Service-Auth-Key). */
  readonly authScheme?: string;
  /** The variable the URL came from, named when nobody listens there. */
  readonly baseUrlEnv?: string;
  /** From the project config's `rate_limit` (default 5). */
  readonly requestsPerSecond?: number;
  /** Requests in flight at once (default: follows the rate, `defaultConcurrency`). */
  readonly concurrency?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Default: one pooled keep-alive agent owned (and closed) by the client. */
  readonly dispatcher?: Dispatcher;
  /** Aborts every request, writes in flight included. */
  readonly signal?: AbortSignal;
  /** Stops sending: what has not left is not sent, a write in flight is answered first (see RequestQueueOptions). */
  readonly stop?: AbortSignal;
  readonly retry?: RetryOptions;
  /** Size and time limits of one exchange (defaults: `DEFAULTS.maxResponseBytes`, `DEFAULTS.requestDeadlineMs`). */
  readonly limits?: Partial<ExchangeLimits>;
  readonly metrics?: ClientMetricsHooks;
  /** Jitter source (tests make it deterministic). */
  readonly random?: () => number;
}

export interface InstructionInput {
  readonly label: string;
  readonly prompt: string;
  readonly sourceLanguage?: string;
}

/** One `POST /v2/translate` with a glossary: the texts are translated independently, in order. */
export interface TranslateInput {
  readonly texts: readonly string[];
  readonly sourceLang: string;
  /** A translation target code (`de`, `en-US`, ...). */
  readonly targetLang: string;
  readonly glossaryId: string;
}

export interface ServiceClient {
  listGlossaries(): Promise<LiveGlossaryInfo[]>;
  listGlossariesV2(): Promise<LiveGlossaryInfo[]>;
  getGlossary(id: string): Promise<LiveGlossaryInfo>;
  getEntries(id: string, sourceLang: string, targetLang: string): Promise<EntryList>;
  getEntriesV2(id: string): Promise<EntryList>;
  /** The entries of one dictionary as the TSV text the service sent, each line checked as it is visited. */
  readEntries(id: string, sourceLang: string, targetLang: string): Promise<EntriesText>;
  /**
   * The same, or, when the answer's entries string is byte for byte one of `literal`'s (deferred
   * entries: see SameLiteral), only that: the answer is then never decoded. Any other answer is
   * read (and refused) exactly as without `literal`.
   */
  readEntries(id: string, sourceLang: string, targetLang: string, literal: ExpectedLiteral): Promise<EntriesText | SameLiteral>;
  readEntriesV2(id: string): Promise<EntriesText>;
  /** Requests in flight at once (`rate_limit.concurrency`): readers need no more reads pending than this. */
  readonly concurrency: number;
  createGlossary(name: string, dictionaries: readonly DictionaryPayload[]): Promise<LiveGlossaryInfo>;
  createGlossaryV2(name: string, dictionary: DictionaryPayload): Promise<LiveGlossaryInfo>;
  putDictionary(id: string, dictionary: DictionaryPayload): Promise<{ sourceLang: string; targetLang: string; entryCount: number }>;
  patchGlossary(id: string, change: { name?: string; dictionary?: DictionaryPayload }): Promise<LiveGlossaryInfo>;
  deleteGlossary(id: string): Promise<void>;
  deleteGlossaryV2(id: string): Promise<void>;
  deleteDictionary(id: string, sourceLang: string, targetLang: string): Promise<void>;
  listStyleRules(): Promise<LiveStyleRules[]>;
  getStyleRules(id: string): Promise<LiveStyleRules>;
  createStyleRules(input: {
    name: string;
    language: string;
    configuredRules: ConfiguredRules;
    customInstructions: readonly InstructionInput[];
  }): Promise<LiveStyleRules>;
  renameStyleRules(id: string, name: string): Promise<LiveStyleRules>;
  putConfiguredRules(id: string, rules: ConfiguredRules): Promise<LiveStyleRules>;
  /** The instruction as the service holds it (the answer may be the whole list or just the instruction). */
  createInstruction(id: string, instruction: InstructionInput): Promise<LiveInstruction>;
  getInstruction(id: string, instructionId: string): Promise<LiveInstruction>;
  /** Sends the source language too when given, so a server that resets omitted fields keeps it. */
  updateInstruction(id: string, instructionId: string, instruction: InstructionInput): Promise<LiveInstruction>;
  deleteStyleRules(id: string): Promise<void>;
  /**
   * `DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id}`: the vendor's API has it, the
   * project's spec does not show it. A server without it answers 404, 405 or 501 (an `http_<status>` error).
   */
  deleteInstruction(id: string, instructionId: string): Promise<void>;
  listLanguages(resource: 'translate_text' | 'translate_document' | 'glossary' | 'voice' | 'write'): Promise<unknown[]>;
  /** The translations of `texts`, in order (each costs its characters of the account's quota). */
  translate(input: TranslateInput): Promise<string[]>;
  close(): Promise<void>;
}

const STYLE_RULES_PAGE_SIZE = 25;
/** A listing that never ends (a server ignoring `page`) stops here instead of looping forever. */
const MAX_STYLE_RULE_PAGES = 400;

const enc = encodeURIComponent;

function checkPositive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new InputError('invalid_client_option', `expected ${name} > 0, got ${value}`);
  return value;
}

function dictionaryBody(d: DictionaryPayload): Record<string, string> {
  return { source_lang: canonicalLang(d.sourceLang), target_lang: canonicalLang(d.targetLang), ...encodeEntries(d.entries) };
}

function instructionBody(i: InstructionInput): Record<string, string> {
  return { label: i.label, prompt: i.prompt, ...(i.sourceLanguage === undefined ? {} : { source_language: i.sourceLanguage }) };
}

type Where = { method: string; path: string; traceId?: string };

/**
 * The added instruction from a POST's answer: the project's spec answers with the whole list, the
 * vendor's API description with just the new instruction; both are accepted.
 */
function instructionOfAnswer(data: unknown, label: string, where: Where, apiKey: string): LiveInstruction {
  if (data !== null && typeof data === 'object' && 'style_id' in data) {
    const list = toStyleRules(parseWith(schemas.styleRules, data, where, apiKey));
    const found = list.customInstructions.filter((i) => i.label === label);
    // Several of this label (one left by an earlier run): the newest is last in the service's order.
    const added = found.at(-1);
    if (added === undefined) throw new ServiceError('invalid_response', where, `unexpected response: the style rule list does not hold the instruction "${label}" just added`);
    return added;
  }
  return toInstruction(parseWith(schemas.instruction, data, where, apiKey));
}

/** What the service holds must be what was sent (a server that drops or changes a field is reported). */
function checkSentInstruction(held: LiveInstruction, sent: InstructionInput, where: Where): LiveInstruction {
  const differs: string[] = [];
  if (held.label !== sent.label) differs.push('label');
  if (held.prompt !== sent.prompt) differs.push('prompt');
  if (sent.sourceLanguage !== undefined && canonicalLang(held.sourceLanguage ?? '') !== canonicalLang(sent.sourceLanguage)) differs.push('source_language');
  if (differs.length > 0) {
    throw new ServiceError('invalid_response', where, `unexpected response: the instruction "${sent.label}" was stored with a different ${differs.join(' and ')} than sent`);
  }
  return held;
}

/**
 * Names the client has seen in a listing or a create answer, with their ids: after a lost create
 * answer, a resource of that name whose id is *not* in here is the one our create made.
 */
class SeenIds {
  private readonly byName = new Map<string, Set<string>>();
  listed = false;
  /** The one listing concurrent first creates wait for. */
  listing: Promise<void> | undefined;
  add(name: string, id: string): void {
    let ids = this.byName.get(name);
    if (!ids) this.byName.set(name, (ids = new Set()));
    ids.add(id);
  }
  has(name: string, id: string): boolean {
    return this.byName.get(name)?.has(id) ?? false;
  }
}

/** The newest of the candidates (ISO times compare as strings); ties broken by id for determinism. */
function newest<T extends { id: string; creationTime: string }>(items: readonly T[]): T | undefined {
  return [...items].sort((a, b) => (a.creationTime === b.creationTime ? (a.id < b.id ? 1 : -1) : a.creationTime < b.creationTime ? 1 : -1))[0];
}

/** What came instead of JSON, without repeating it (a hostile server chooses the body). */
export function describeNotJson(answer: Pick<HttpAnswer, 'text' | 'contentType'>): string {
  const size = formatBytes(Buffer.byteLength(answer.text));
  const type = answer.contentType === undefined ? '' : `, Content-Type "${clip(answer.contentType, 80)}"`;
  if (answer.text.trim() === '') return `the body is empty, not JSON${type}`;
  if (isHtml(answer)) {
    return `an HTML page (${size}${type}), not the service's JSON: is the base URL the service's own, not a proxy, gateway or login page?`;
  }
  return `the body is not JSON (${size}${type})`;
}

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
 * out) is parsed and checked as entriesV3 checks any answer. Anything else, any doubt included, is
 * undefined: the answer is then decoded and read as always, and refused with the same errors.
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

export function createClient(options: ClientOptions): ServiceClient {
  const base = checkBaseUrl(options.baseUrl);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const requestsPerSecond = checkPositive('requestsPerSecond', options.requestsPerSecond, DEFAULTS.requestsPerSecond);
  const concurrency = Math.floor(checkPositive('concurrency', options.concurrency, defaultConcurrency(requestsPerSecond)));
  const ownAgent = options.dispatcher ? undefined : createAgent(concurrency);
  const dispatcher: Dispatcher = options.dispatcher ?? ownAgent ?? createAgent(concurrency);
  const queue = createRequestQueue({
    dispatcher,
    base,
    apiKey: options.apiKey,
    apiKeyEnv: options.apiKeyEnv ?? 'TERMSYNC_API_KEY',
    ...(options.authScheme === undefined ? {} : { authScheme: options.authScheme }),
    ...(options.baseUrlEnv === undefined ? {} : { baseUrlEnv: options.baseUrlEnv }),
    clock,
    logger,
    concurrency,
    requestsPerSecond,
    retry: options.retry ?? {},
    limits: {
      maxResponseBytes: Math.floor(checkPositive('maxResponseBytes', options.limits?.maxResponseBytes, DEFAULTS.maxResponseBytes)),
      deadlineMs: checkPositive('requestDeadlineMs', options.limits?.deadlineMs, DEFAULTS.requestDeadlineMs),
    },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.stop === undefined ? {} : { stop: options.stop }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  // The key in a message about an answer that does not fit (a field name the server chose): see parseWith.
  const parseAnswer = <S extends z.ZodType>(schema: S, data: unknown, where: Where): z.output<S> => parseWith(schema, data, where, options.apiKey);
  const seenGlossaries = new SeenIds();
  const seenStyleRules = new SeenIds();

  /** An idempotent call: retried as is until it answers 2xx or fails for good. */
  const send = async (request: Omit<ApiCall, 'idempotent'>, op: OperationBudget = queue.newOperation()): Promise<HttpAnswer> => {
    const result = await queue.call({ ...request, idempotent: true }, op);
    if (result.kind === 'answer') return result.answer;
    // Idempotent calls never yield an unknown outcome; kept for the type's sake.
    throw new ServiceError('network', { method: request.method, path: requestTarget(request) }, 'outcome unknown');
  };

  const json = (answer: HttpAnswer, request: Omit<ApiCall, 'idempotent'>): unknown => {
    const where = { method: request.method, path: requestTarget(request), ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }) };
    try {
      // Data, as the service sent it: a name or an entry that holds the key is kept as it is (the
      // outputs take the key out of what they show; messages about the answer do so themselves).
      return JSON.parse(answer.text);
    } catch {
      throw new ServiceError('invalid_response', { ...where, status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
    }
  };

  const getJson = async <T>(request: Omit<ApiCall, 'idempotent'>, parse: (data: unknown, where: { method: string; path: string; traceId?: string }) => T): Promise<T> => {
    const answer = await send(request);
    const where = { method: request.method, path: requestTarget(request), ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }) };
    return parse(json(answer, request), where);
  };

  /**
   * A POST that creates a resource. Never resent blindly: when its answer is lost (network error
   * after sending, or a 5xx after which the write may have landed) the resource is looked up by
   * name first and adopted if it is there.
   */
  const createOnce = async <T>(
    request: Omit<ApiCall, 'idempotent'>,
    parse: (answer: HttpAnswer) => T,
    lookup: () => Promise<T | undefined>,
  ): Promise<T> => {
    const op = queue.newOperation();
    for (;;) {
      const result = await queue.call({ ...request, idempotent: false }, op);
      if (result.kind === 'answer') return parse(result.answer);
      logger.debug({ method: request.method, route: request.route }, 'create answer lost: looking the resource up by name before resending');
      let found: T | undefined;
      try {
        found = await lookup();
      } catch (error) {
        // The look-up was not sent (the run was stopped): the create itself was, and may have landed.
        if (error instanceof ServiceError && error.code === 'aborted') {
          throw new ServiceError('aborted', { method: request.method, path: requestTarget(request), attempts: op.attempts }, 'interrupted after its answer was lost, before it could be looked up: the create may have landed');
        }
        throw error;
      }
      if (found !== undefined) return found;
      // It did not land: send it again, after the same back-off as any other failed attempt.
      const reason = result.failure === undefined ? 'create_not_landed' : `http_${result.failure.status}`;
      if (!(await queue.backOff({ ...request, idempotent: false }, op, reason))) {
        const path = requestTarget(request);
        // The last attempt was answered (a 5xx): report the service's answer, not a network problem.
        if (result.failure !== undefined) {
          const { status } = result.failure;
          throw new ServiceError(
            `http_${status}`,
            { ...result.failure, method: request.method, path, attempts: op.attempts },
            `HTTP ${status} after ${op.attempts} attempts; the create did not land`,
          );
        }
        throw new ServiceError('network', { method: request.method, path, attempts: op.attempts }, 'the create never answered and did not land');
      }
    }
  };

  // --- glossaries ---------------------------------------------------------------------------

  const listV3 = async (): Promise<LiveGlossaryInfo[]> =>
    getJson({ method: 'GET', path: '/v3/glossaries', route: '/v3/glossaries' }, (data, where) =>
      parseAnswer(schemas.glossaryListV3, data, where).glossaries.map(toGlossaryV3),
    );
  const listV2 = async (): Promise<LiveGlossaryInfo[]> =>
    getJson({ method: 'GET', path: '/v2/glossaries', route: '/v2/glossaries' }, (data, where) =>
      parseAnswer(schemas.glossaryListV2, data, where).glossaries.map(toGlossaryV2),
    );
  const remember = (seen: SeenIds, items: readonly { name: string; id: string }[]): void => {
    seen.listed = true;
    for (const g of items) seen.add(g.name, g.id);
  };

  // Without a listing before the first create, a glossary of the same name that already existed
  // (a v2 recreate is create-first) could be mistaken for ours after a lost answer.
  const ensureListed = async (seen: SeenIds, list: () => Promise<readonly { name: string; id: string }[]>): Promise<void> => {
    if (seen.listed) return;
    seen.listing ??= list().then(
      (items) => remember(seen, items),
      (error: unknown) => {
        seen.listing = undefined;
        throw error;
      },
    );
    await seen.listing;
  };

  const adoptGlossary = async (name: string, list: () => Promise<LiveGlossaryInfo[]>): Promise<LiveGlossaryInfo | undefined> => {
    const candidates = (await list()).filter((g) => g.name === name && !seenGlossaries.has(g.name, g.id));
    const found = newest(candidates);
    if (found) {
      logger.debug({ id: found.id, candidates: candidates.length }, 'adopting the glossary the lost create made');
      seenGlossaries.add(found.name, found.id);
    }
    return found;
  };

  /**
   * The TSV text of one v3 dictionary, as the service sent it. The entries, megabytes of one JSON
   * string, are read where they are in the answer's text (parseJsonWithLongStrings) rather than
   * decoded into a second copy; any answer that cut does not suit is parsed whole, as before.
   */
  const entriesV3 = async (id: string, sourceLang: string, targetLang: string, literal?: ExpectedLiteral): Promise<EntriesText | SameLiteral> => {
    const pair = { source_lang: canonicalLang(sourceLang), target_lang: canonicalLang(targetLang) };
    const request = { method: 'GET', path: `/v3/glossaries/${enc(id)}/entries`, query: pair, route: '/v3/glossaries/{id}/entries' } as const;
    const answer = await send(literal === undefined ? request : { ...request, peek: (body: Buffer) => sameLiteralOf(body, literal, pair) });
    if (answer.peeked !== undefined) return answer.peeked as SameLiteral;
    const where = { method: request.method, path: requestTarget(request), ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }) };
    const cut = parseJsonWithLongStrings(answer.text);
    const dictionaries = parseAnswer(schemas.entriesV3, cut === undefined ? json(answer, request) : cut.value, where).dictionaries;
    const matches = dictionariesOfPair(dictionaries, pair);
    const match = matches[0];
    if (match === undefined || matches.length > 1) {
      // A language of over 4096 characters is a placeholder in the parsed value: said by its size
      // (its raw text could show escaped characters of the key, which hideKey cannot see).
      throw pairError(dictionaries, matches.length, pair, where, (code) => {
        const long = cut?.long.get(code);
        return long === undefined ? code : '(over 4096 chars)';
      }, options.apiKey);
    }
    if (match.entries_format !== undefined && match.entries_format.toLowerCase() !== 'tsv') {
      throw new ServiceError('invalid_response', where, `unexpected response: entries_format "${clip(hideKey(match.entries_format, options.apiKey), 40)}", expected tsv`);
    }
    const long = cut?.long.get(match.entries);
    if (long === undefined) return new EntriesText(match.entries, where);
    if (long.tsvOnly) return new EntriesText(long.text.slice(long.start, long.end), where, true);
    try {
      return new EntriesText(decodeLongString(long), where);
    } catch {
      throw new ServiceError('invalid_response', { ...where, status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
    }
  };

  /** The TSV text of a v2 glossary's one dictionary. */
  const entriesV2 = async (id: string): Promise<EntriesText> => {
    const request = { method: 'GET', path: `/v2/glossaries/${enc(id)}/entries`, route: '/v2/glossaries/{id}/entries', accept: 'text/tab-separated-values' } as const;
    const answer = await send(request);
    if (isHtml(answer)) {
      throw new ServiceError('invalid_response', { method: 'GET', path: request.path, status: answer.status }, `unexpected response: ${describeNotJson(answer)}`);
    }
    return new EntriesText(answer.text, { method: 'GET', path: request.path });
  };

  const client: ServiceClient = {
    async listGlossaries() {
      const list = await listV3();
      remember(seenGlossaries, list);
      return list;
    },
    async listGlossariesV2() {
      const list = await listV2();
      remember(seenGlossaries, list);
      return list;
    },
    getGlossary: (id) =>
      getJson({ method: 'GET', path: `/v3/glossaries/${enc(id)}`, route: '/v3/glossaries/{id}' }, (data, where) =>
        toGlossaryV3(parseAnswer(schemas.glossaryV3, data, where)),
      ),
    getEntries: async (id, sourceLang, targetLang) => ((await entriesV3(id, sourceLang, targetLang)) as EntriesText).toList(),
    getEntriesV2: async (id) => (await entriesV2(id)).toList(),
    readEntries: entriesV3 as ServiceClient['readEntries'],
    readEntriesV2: entriesV2,
    concurrency,
    async createGlossary(name, dictionaries) {
      await ensureListed(seenGlossaries, listV3);
      const request = {
        method: 'POST',
        path: '/v3/glossaries',
        route: '/v3/glossaries',
        json: { name, dictionaries: dictionaries.map(dictionaryBody) },
      } as const;
      const created = await createOnce(
        request,
        (answer) => toGlossaryV3(parseAnswer(schemas.glossaryV3, json(answer, request), { method: 'POST', path: request.path })),
        () => adoptGlossary(name, listV3),
      );
      seenGlossaries.add(created.name, created.id);
      return created;
    },
    async createGlossaryV2(name, dictionary) {
      await ensureListed(seenGlossaries, listV2);
      const request = {
        method: 'POST',
        path: '/v2/glossaries',
        route: '/v2/glossaries',
        json: { name, ...dictionaryBody(dictionary) },
      } as const;
      const created = await createOnce(
        request,
        (answer) => toGlossaryV2(parseAnswer(schemas.glossaryV2, json(answer, request), { method: 'POST', path: request.path })),
        () => adoptGlossary(name, listV2),
      );
      seenGlossaries.add(created.name, created.id);
      return created;
    },
    putDictionary: (id, dictionary) =>
      getJson(
        { method: 'PUT', path: `/v3/glossaries/${enc(id)}/dictionaries`, route: '/v3/glossaries/{id}/dictionaries', json: dictionaryBody(dictionary) },
        (data, where) => toDictionary(parseAnswer(schemas.dictionaryMeta, data, where)),
      ),
    patchGlossary: (id, change) =>
      getJson(
        {
          method: 'PATCH',
          path: `/v3/glossaries/${enc(id)}`,
          route: '/v3/glossaries/{id}',
          json: {
            ...(change.name === undefined ? {} : { name: change.name }),
            ...(change.dictionary === undefined ? {} : { dictionaries: [dictionaryBody(change.dictionary)] }),
          },
        },
        (data, where) => toGlossaryV3(parseAnswer(schemas.glossaryV3, data, where)),
      ),
    async deleteGlossary(id) {
      await send({ method: 'DELETE', path: `/v3/glossaries/${enc(id)}`, route: '/v3/glossaries/{id}', goneMeansDone: true });
    },
    async deleteGlossaryV2(id) {
      await send({ method: 'DELETE', path: `/v2/glossaries/${enc(id)}`, route: '/v2/glossaries/{id}', goneMeansDone: true });
    },
    async deleteDictionary(id, sourceLang, targetLang) {
      await send({
        method: 'DELETE',
        path: `/v3/glossaries/${enc(id)}/dictionaries`,
        query: { source_lang: canonicalLang(sourceLang), target_lang: canonicalLang(targetLang) },
        route: '/v3/glossaries/{id}/dictionaries',
        goneMeansDone: true,
      });
    },

    // --- style rules ------------------------------------------------------------------------

    async listStyleRules() {
      const all = await listAllStyleRules();
      remember(seenStyleRules, all);
      return all;
    },
    getStyleRules: (id) =>
      getJson({ method: 'GET', path: `/v3/style_rules/${enc(id)}`, route: '/v3/style_rules/{id}' }, (data, where) =>
        toStyleRules(parseAnswer(schemas.styleRules, data, where)),
      ),
    async createStyleRules(input) {
      await ensureListed(seenStyleRules, listAllStyleRules);
      const request = {
        method: 'POST',
        path: '/v3/style_rules',
        route: '/v3/style_rules',
        json: {
          name: input.name,
          language: canonicalLang(input.language),
          configured_rules: input.configuredRules,
          custom_instructions: input.customInstructions.map(instructionBody),
        },
      } as const;
      const created = await createOnce(
        request,
        (answer) => toStyleRules(parseAnswer(schemas.styleRules, json(answer, request), { method: 'POST', path: request.path })),
        async () => {
          const candidates = (await listAllStyleRules()).filter((s) => s.name === input.name && !seenStyleRules.has(s.name, s.id));
          return newest(candidates);
        },
      );
      seenStyleRules.add(created.name, created.id);
      return created;
    },
    renameStyleRules: (id, name) =>
      getJson({ method: 'PATCH', path: `/v3/style_rules/${enc(id)}`, route: '/v3/style_rules/{id}', json: { name } }, (data, where) =>
        toStyleRules(parseAnswer(schemas.styleRules, data, where)),
      ),
    putConfiguredRules: (id, rules) =>
      getJson(
        { method: 'PUT', path: `/v3/style_rules/${enc(id)}/configured_rules`, route: '/v3/style_rules/{id}/configured_rules', json: rules },
        (data, where) => toStyleRules(parseAnswer(schemas.styleRules, data, where)),
      ),
    createInstruction(id, instruction) {
      const request = {
        method: 'POST',
        path: `/v3/style_rules/${enc(id)}/custom_instructions`,
        route: '/v3/style_rules/{id}/custom_instructions',
        json: instructionBody(instruction),
      } as const;
      // Labels are unique within a list (the repository's identity of an instruction): after a
      // lost answer, an instruction with this label means the POST landed.
      return createOnce(
        request,
        (answer) => {
          const where = { method: 'POST', path: request.path, ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }) };
          return checkSentInstruction(instructionOfAnswer(json(answer, request), instruction.label, where, options.apiKey), instruction, where);
        },
        async () => (await client.getStyleRules(id)).customInstructions.find((i) => i.label === instruction.label),
      );
    },
    getInstruction: (id, instructionId) =>
      getJson(
        {
          method: 'GET',
          path: `/v3/style_rules/${enc(id)}/custom_instructions/${enc(instructionId)}`,
          route: '/v3/style_rules/{id}/custom_instructions/{instructionId}',
        },
        (data, where) => toInstruction(parseAnswer(schemas.instruction, data, where)),
      ),
    updateInstruction: (id, instructionId, instruction) =>
      getJson(
        {
          method: 'PUT',
          path: `/v3/style_rules/${enc(id)}/custom_instructions/${enc(instructionId)}`,
          route: '/v3/style_rules/{id}/custom_instructions/{instructionId}',
          json: instructionBody(instruction),
        },
        (data, where) => toInstruction(parseAnswer(schemas.instruction, data, where)),
      ),
    async deleteStyleRules(id) {
      await send({ method: 'DELETE', path: `/v3/style_rules/${enc(id)}`, route: '/v3/style_rules/{id}', goneMeansDone: true });
    },
    async deleteInstruction(id, instructionId) {
      await send({
        method: 'DELETE',
        path: `/v3/style_rules/${enc(id)}/custom_instructions/${enc(instructionId)}`,
        route: '/v3/style_rules/{id}/custom_instructions/{instructionId}',
        goneMeansDone: true,
      });
    },

    listLanguages: (resource) =>
      getJson({ method: 'GET', path: '/v3/languages', query: { resource }, route: '/v3/languages' }, (data, where) =>
        parseAnswer(schemas.languages, data, where),
      ),

    // Translating changes nothing on the service, so a lost answer is sent again like a read
    // (at the price of the characters counted twice).
    translate: (input) =>
      getJson(
        {
          method: 'POST',
          path: '/v2/translate',
          route: '/v2/translate',
          json: {
            text: input.texts,
            source_lang: canonicalLang(input.sourceLang).toUpperCase(),
            target_lang: input.targetLang.trim().toUpperCase(),
            glossary_id: input.glossaryId,
          },
        },
        (data, where) => {
          const translations = parseAnswer(schemas.translations, data, where).translations.map((t) => t.text);
          if (translations.length !== input.texts.length) {
            throw new ServiceError('invalid_response', where, `unexpected response: ${translations.length} translations for ${input.texts.length} texts`);
          }
          return translations;
        },
      ),

    async close() {
      queue.close();
      await queue.onIdle();
      await ownAgent?.close();
    },
  };

  async function listAllStyleRules(): Promise<LiveStyleRules[]> {
    const all: LiveStyleRules[] = [];
    const ids = new Set<string>();
    for (let page = 0; page < MAX_STYLE_RULE_PAGES; page += 1) {
      const items = await getJson(
        {
          method: 'GET',
          path: '/v3/style_rules',
          query: { detailed: 'true', page: String(page), page_size: String(STYLE_RULES_PAGE_SIZE) },
          route: '/v3/style_rules',
        },
        (data, where) => parseAnswer(schemas.styleRulesList, data, where).style_rules.map(toStyleRules),
      );
      let added = 0;
      for (const item of items) {
        if (ids.has(item.id)) continue;
        ids.add(item.id);
        all.push(item);
        added += 1;
      }
      // A short page is the last one; a page of nothing new means the server ignores `page`.
      if (items.length < STYLE_RULES_PAGE_SIZE || added === 0) break;
    }
    return all;
  }

  return client;
}
