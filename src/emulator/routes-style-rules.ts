import { STYLE_RULE_LANGUAGES } from './languages-data.js';
import { FieldReader, readQueryInteger } from './read-fields.js';
import { NO_CONTENT, jsonResponse, type RequestContext, type ServiceResponse } from './request-context.js';
import { badRequest, describeType, notFound } from './service-error.js';
import type { ConfiguredRules, CustomInstruction, StyleRuleList } from './store.js';

const MAX_NAME_CHARS = 1024;
const MAX_PROMPT_CHARS = 300;
export const MAX_INSTRUCTIONS = 200;

/** Characters as people count them: code points, not UTF-16 units. */
function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

function readName(reader: FieldReader): string {
  const name = reader.requiredString('name');
  if (name.trim() === '') throw badRequest('`name` must not be empty');
  const chars = charCount(name);
  if (chars > MAX_NAME_CHARS) throw badRequest(`\`name\` is ${chars} characters long; the limit is ${MAX_NAME_CHARS}`);
  return name;
}

function readLanguage(reader: FieldReader): string {
  const raw = reader.requiredString('language');
  const language = raw.toLowerCase();
  if (!STYLE_RULE_LANGUAGES.includes(language)) {
    throw badRequest(`Unsupported \`language\` "${raw.slice(0, 40)}": expected one of ${STYLE_RULE_LANGUAGES.join(', ')}`);
  }
  return language;
}

/** The configured-rules object: category → rule → option (all strings). The catalogue is open. */
function readConfiguredRules(value: unknown, where: string): ConfiguredRules {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`Expected ${where} to be an object of categories, got ${describeType(value)}`);
  }
  // Prototype-less objects: `__proto__`, `constructor` or `prototype` are ordinary names here and must
  // be stored as sent, not turned into a prototype change that silently drops them.
  const rules: ConfiguredRules = Object.create(null) as ConfiguredRules;
  for (const [category, ruleSet] of Object.entries(value)) {
    if (category.trim() === '') throw badRequest(`${where} has an empty category name`);
    if (ruleSet === null || typeof ruleSet !== 'object' || Array.isArray(ruleSet)) {
      throw badRequest(`Expected ${where}.${category} to be an object of rules, got ${describeType(ruleSet)}`);
    }
    const options = Object.create(null) as Record<string, string>;
    for (const [rule, option] of Object.entries(ruleSet as Record<string, unknown>)) {
      if (rule.trim() === '') throw badRequest(`${where}.${category} has an empty rule name`);
      if (typeof option !== 'string' || option.trim() === '') {
        throw badRequest(`Expected ${where}.${category}.${rule} to be an option name (a non-empty string), got ${describeType(option)}`);
      }
      options[rule] = option;
    }
    rules[category] = options;
  }
  return rules;
}

function readInstructionFields(reader: FieldReader): { label: string; prompt: string; sourceLanguage: string | undefined } {
  const label = reader.requiredString('label');
  if (label.trim() === '') throw badRequest('`label` must not be empty');
  const prompt = reader.requiredString('prompt');
  if (prompt.trim() === '') throw badRequest('`prompt` must not be empty');
  const chars = charCount(prompt);
  if (chars > MAX_PROMPT_CHARS) throw badRequest(`\`prompt\` is ${chars} characters long; the limit is ${MAX_PROMPT_CHARS}`);
  const sourceLanguage = reader.optionalString('source_language');
  if (sourceLanguage !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(sourceLanguage)) {
    throw badRequest(`Expected \`source_language\` to be a language code, got "${sourceLanguage.slice(0, 40)}"`);
  }
  reader.finish();
  return { label, prompt, sourceLanguage };
}

/** Spec: an omitted `source_language` stays absent; a server behaving so fills in the list's language. */
function filledSourceLanguage(ctx: RequestContext, sent: string | undefined, listLanguage: string): string | undefined {
  return sent === undefined && ctx.behaviour.fillSourceLanguage === true ? listLanguage : sent;
}

function instructionJson(i: CustomInstruction): Record<string, string> {
  return { id: i.id, label: i.label, prompt: i.prompt, ...(i.sourceLanguage === undefined ? {} : { source_language: i.sourceLanguage }) };
}

function summaryJson(list: StyleRuleList): Record<string, unknown> {
  return {
    style_id: list.id,
    name: list.name,
    creation_time: list.creationTime,
    updated_time: list.updatedTime,
    language: list.language,
    version: list.version,
  };
}

function fullJson(list: StyleRuleList): Record<string, unknown> {
  return { ...summaryJson(list), configured_rules: list.configuredRules, custom_instructions: list.instructions.map(instructionJson) };
}

function find(ctx: RequestContext, id: string): StyleRuleList {
  const list = ctx.account.styleRules.get(id);
  if (list === undefined) throw notFound(`Style rule list "${id.slice(0, 80)}" not found`);
  return list;
}

function touch(ctx: RequestContext, list: StyleRuleList): void {
  list.version += 1;
  list.updatedTime = ctx.nowIso;
}

export function createStyleRules(ctx: RequestContext): ServiceResponse {
  const body = ctx.body();
  const reader = FieldReader.fromBody(body);
  const name = readName(reader);
  const language = readLanguage(reader);
  const rulesRaw = reader.raw('configured_rules');
  const configuredRules = rulesRaw === undefined ? {} : readConfiguredRules(rulesRaw, '`configured_rules`');
  const instructionsRaw = reader.optionalArray('custom_instructions') ?? [];
  reader.finish();
  if (instructionsRaw.length > MAX_INSTRUCTIONS) {
    throw badRequest(`\`custom_instructions\` holds ${instructionsRaw.length} instructions; the limit is ${MAX_INSTRUCTIONS}`);
  }
  const fields = instructionsRaw.map((item, i) => readInstructionFields(new FieldReader(item, `custom_instructions[${i}]`, body.kind === 'form')));
  const list: StyleRuleList = {
    id: ctx.newId(),
    name,
    language,
    creationTime: ctx.nowIso,
    updatedTime: ctx.nowIso,
    version: 1,
    configuredRules,
    instructions: fields.map((f) => ({ id: ctx.newId(), ...f, sourceLanguage: filledSourceLanguage(ctx, f.sourceLanguage, language) })),
  };
  ctx.account.styleRules.set(list.id, list);
  return jsonResponse(201, fullJson(list));
}

export function listStyleRules(ctx: RequestContext): ServiceResponse {
  const detailedRaw = ctx.query.get('detailed');
  if (detailedRaw !== null && detailedRaw !== 'true' && detailedRaw !== 'false') {
    throw badRequest(`Expected query parameter \`detailed\` to be true or false, got "${detailedRaw.slice(0, 40)}"`);
  }
  const page = readQueryInteger(ctx.query, 'page', 0, 0, 1_000_000);
  const pageSize = readQueryInteger(ctx.query, 'page_size', 10, 1, 25);
  const all = [...ctx.account.styleRules.values()];
  const slice = all.slice(page * pageSize, page * pageSize + pageSize);
  return jsonResponse(200, { style_rules: slice.map(detailedRaw === 'true' ? fullJson : summaryJson) });
}

export function getStyleRules(ctx: RequestContext, id: string): ServiceResponse {
  return jsonResponse(200, fullJson(find(ctx, id)));
}

export function renameStyleRules(ctx: RequestContext, id: string): ServiceResponse {
  const list = find(ctx, id);
  const reader = FieldReader.fromBody(ctx.body());
  const name = readName(reader);
  reader.finish();
  list.name = name;
  touch(ctx, list);
  return jsonResponse(200, fullJson(list));
}

export function putConfiguredRules(ctx: RequestContext, id: string): ServiceResponse {
  const list = find(ctx, id);
  const body = ctx.body();
  if (body.kind === 'empty') throw badRequest('Expected the request body to be the configured-rules object, got an empty body');
  list.configuredRules = readConfiguredRules(body.value, 'the configured-rules body');
  touch(ctx, list);
  return jsonResponse(200, fullJson(list));
}

export function deleteStyleRules(ctx: RequestContext, id: string): ServiceResponse {
  find(ctx, id);
  ctx.account.styleRules.delete(id);
  return NO_CONTENT;
}

export function addCustomInstruction(ctx: RequestContext, id: string): ServiceResponse {
  const list = find(ctx, id);
  const fields = readInstructionFields(FieldReader.fromBody(ctx.body()));
  if (list.instructions.length >= MAX_INSTRUCTIONS) {
    throw badRequest(`The style rule list already has ${MAX_INSTRUCTIONS} custom instructions, the maximum`);
  }
  const added: CustomInstruction = { id: ctx.newId(), ...fields, sourceLanguage: filledSourceLanguage(ctx, fields.sourceLanguage, list.language) };
  list.instructions.push(added);
  touch(ctx, list);
  // Spec: the whole updated list; a server behaving so answers with just the new instruction.
  return jsonResponse(201, ctx.behaviour.instructionAnswer === true ? instructionJson(added) : fullJson(list));
}

function findInstruction(list: StyleRuleList, instructionId: string): CustomInstruction {
  const instruction = list.instructions.find((i) => i.id === instructionId);
  if (instruction === undefined) throw notFound(`Custom instruction "${instructionId.slice(0, 80)}" not found in style rule list "${list.id}"`);
  return instruction;
}

export function getCustomInstruction(ctx: RequestContext, id: string, instructionId: string): ServiceResponse {
  return jsonResponse(200, instructionJson(findInstruction(find(ctx, id), instructionId)));
}

export function putCustomInstruction(ctx: RequestContext, id: string, instructionId: string): ServiceResponse {
  const list = find(ctx, id);
  const instruction = findInstruction(list, instructionId);
  const fields = readInstructionFields(FieldReader.fromBody(ctx.body()));
  instruction.label = fields.label;
  instruction.prompt = fields.prompt;
  // `source_language` is optional on PUT: absent keeps the current value (a server behaving so clears it).
  if (fields.sourceLanguage !== undefined || ctx.behaviour.resetSourceLanguage === true) instruction.sourceLanguage = fields.sourceLanguage;
  touch(ctx, list);
  return jsonResponse(200, instructionJson(instruction));
}

/** Not in the spec; served only when the emulator behaves so (`deleteInstruction`). */
export function deleteCustomInstruction(ctx: RequestContext, id: string, instructionId: string): ServiceResponse {
  const list = find(ctx, id);
  const instruction = findInstruction(list, instructionId);
  list.instructions.splice(list.instructions.indexOf(instruction), 1);
  touch(ctx, list);
  return NO_CONTENT;
}
