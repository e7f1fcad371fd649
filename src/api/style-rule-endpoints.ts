import { canonicalLang } from '../lib/canonical.js';
import { ENDPOINTS, requestTo } from '../lib/endpoints.js';
import type { ConfiguredRules } from '../model/desired.js';
import type { LiveInstruction, LiveStyleRules } from '../model/live.js';
import { createOnce, ensureListed, findCreated, SeenIds } from './create-recovery.js';
import { ServiceError } from './errors.js';
import { parseWith, schemas, toInstruction, toStyleRules } from './parse-responses.js';
import type { ServiceCalls, Where } from './service-calls.js';

export interface InstructionInput {
  readonly label: string;
  readonly prompt: string;
  readonly sourceLanguage?: string;
}

/** The style rule endpoints of the client. */
export interface StyleRuleEndpoints {
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
}

const STYLE_RULES_PAGE_SIZE = 25;
/** A listing that never ends (a server ignoring `page`) stops here instead of looping forever. */
const MAX_STYLE_RULE_PAGES = 400;

function instructionBody(i: InstructionInput): Record<string, string> {
  return { label: i.label, prompt: i.prompt, ...(i.sourceLanguage === undefined ? {} : { source_language: i.sourceLanguage }) };
}

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

/** Every style rule list, page by page (each once, however the server pages). */
async function listAll(calls: ServiceCalls): Promise<LiveStyleRules[]> {
  const all: LiveStyleRules[] = [];
  const ids = new Set<string>();
  for (let page = 0; page < MAX_STYLE_RULE_PAGES; page += 1) {
    const request = requestTo(ENDPOINTS.listStyleRules, {}, { detailed: 'true', page: String(page), page_size: String(STYLE_RULES_PAGE_SIZE) });
    const items = await calls.getJson(request, (data, where) => calls.parseAnswer(schemas.styleRulesList, data, where).style_rules.map(toStyleRules));
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

function getStyleRules(calls: ServiceCalls, id: string): Promise<LiveStyleRules> {
  return calls.getJson(requestTo(ENDPOINTS.getStyleRules, { id }), (data, where) => toStyleRules(calls.parseAnswer(schemas.styleRules, data, where)));
}

async function createStyleRules(calls: ServiceCalls, seen: SeenIds, input: Parameters<StyleRuleEndpoints['createStyleRules']>[0]): Promise<LiveStyleRules> {
  const list = (): Promise<LiveStyleRules[]> => listAll(calls);
  await ensureListed(seen, list);
  const json = {
    name: input.name,
    language: canonicalLang(input.language),
    configured_rules: input.configuredRules,
    custom_instructions: input.customInstructions.map(instructionBody),
  };
  const request = { ...requestTo(ENDPOINTS.createStyleRules, {}), json };
  const created = await createOnce(
    calls,
    request,
    (answer) => toStyleRules(calls.parseAnswer(schemas.styleRules, calls.json(answer, request), { method: 'POST', path: request.path })),
    () => findCreated(seen, input.name, list),
  );
  seen.add(created.name, created.id);
  return created;
}

function createInstruction(calls: ServiceCalls, id: string, instruction: InstructionInput): Promise<LiveInstruction> {
  const request = { ...requestTo(ENDPOINTS.createInstruction, { id }), json: instructionBody(instruction) };
  // Labels are unique within a list (the repository's identity of an instruction): after a
  // lost answer, an instruction with this label means the POST landed.
  return createOnce(
    calls,
    request,
    (answer) => {
      const where = { method: 'POST', path: request.path, ...(answer.traceId === undefined ? {} : { traceId: answer.traceId }) };
      return checkSentInstruction(instructionOfAnswer(calls.json(answer, request), instruction.label, where, calls.apiKey), instruction, where);
    },
    async () => (await getStyleRules(calls, id)).customInstructions.find((i) => i.label === instruction.label),
  );
}

/** The style rule endpoints of one client: creates are recovered by name (see create-recovery.ts). */
export function styleRuleEndpoints(calls: ServiceCalls): StyleRuleEndpoints {
  const seen = new SeenIds();
  const styleRules = (data: unknown, where: Where): LiveStyleRules => toStyleRules(calls.parseAnswer(schemas.styleRules, data, where));
  const instruction = (data: unknown, where: Where): LiveInstruction => toInstruction(calls.parseAnswer(schemas.instruction, data, where));
  return {
    async listStyleRules() {
      const all = await listAll(calls);
      seen.remember(all);
      return all;
    },
    getStyleRules: (id) => getStyleRules(calls, id),
    createStyleRules: (input) => createStyleRules(calls, seen, input),
    renameStyleRules: (id, name) => calls.getJson({ ...requestTo(ENDPOINTS.renameStyleRules, { id }), json: { name } }, styleRules),
    putConfiguredRules: (id, rules) => calls.getJson({ ...requestTo(ENDPOINTS.putConfiguredRules, { id }), json: rules }, styleRules),
    createInstruction: (id, input) => createInstruction(calls, id, input),
    getInstruction: (id, instructionId) => calls.getJson(requestTo(ENDPOINTS.getInstruction, { id, instructionId }), instruction),
    updateInstruction: (id, instructionId, input) => calls.getJson({ ...requestTo(ENDPOINTS.updateInstruction, { id, instructionId }), json: instructionBody(input) }, instruction),
    deleteStyleRules: (id) => calls.remove(requestTo(ENDPOINTS.deleteStyleRules, { id })),
    deleteInstruction: (id, instructionId) => calls.remove(requestTo(ENDPOINTS.deleteInstruction, { id, instructionId })),
  };
}
