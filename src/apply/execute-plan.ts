import { isRefusal } from '../api/errors.js';
import { TermsyncError, InputError, isTermsyncError } from '../lib/errors.js';
import type { ConfiguredRules } from '../model/desired.js';
import { NOT_STARTED_INTERRUPTED, type ApplyResult, type OperationOutcome } from '../model/apply-result.js';
import type { DictionaryPayload, Operation, Plan } from '../model/plan.js';
import type { LiveState } from '../model/live.js';
import type { Logger } from '../lib/logger.js';
import { silentLogger } from '../lib/logger.js';
import { requestLineOf } from '../lib/operation-request.js';
import { collectManagedIds, type ManagedNames } from './collect-ids.js';

/** The writes apply needs from the service client (a structural subset of it). */
export interface ApplyWriter {
  createGlossary(name: string, dictionaries: DictionaryPayload[]): Promise<{ readonly id: string }>;
  createGlossaryV2(name: string, dictionary: DictionaryPayload): Promise<{ readonly id: string }>;
  putDictionary(glossaryId: string, dictionary: DictionaryPayload): Promise<unknown>;
  patchGlossary(glossaryId: string, change: { name?: string; dictionary?: DictionaryPayload }): Promise<unknown>;
  deleteGlossary(glossaryId: string): Promise<unknown>;
  deleteGlossaryV2(glossaryId: string): Promise<unknown>;
  deleteDictionary(glossaryId: string, sourceLang: string, targetLang: string): Promise<unknown>;
  createStyleRules(input: {
    name: string;
    language: string;
    configuredRules: ConfiguredRules;
    customInstructions: { label: string; prompt: string; sourceLanguage?: string }[];
  }): Promise<{ readonly id: string }>;
  renameStyleRules(styleId: string, name: string): Promise<unknown>;
  putConfiguredRules(styleId: string, rules: ConfiguredRules): Promise<unknown>;
  createInstruction(styleId: string, instruction: { label: string; prompt: string; sourceLanguage?: string }): Promise<unknown>;
  updateInstruction(styleId: string, instructionId: string, instruction: { label: string; prompt: string; sourceLanguage?: string }): Promise<unknown>;
  deleteStyleRules(styleId: string): Promise<unknown>;
  /** `DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id}`: not in the spec; some servers have it. */
  deleteInstruction(styleId: string, instructionId: string): Promise<unknown>;
  getStyleRules(styleId: string): Promise<{ readonly customInstructions: readonly { readonly id: string }[] }>;
}

/** What one apply run learnt about the target: asked once, then remembered. */
interface RunMemory {
  /** The status that showed the target has no route to delete one instruction (404/405/501). */
  deleteRouteMissing?: number;
  /** The first delete of an instruction, which the others wait for so the route is tried once. */
  firstDelete?: Promise<unknown>;
  /** Lists replaced by the fallback: old id → new id. */
  readonly replaced: Map<string, string>;
}

/**
 * Whether `error` says the request was never sent because the run was stopped (SIGINT/SIGTERM): the
 * client's `aborted` with no attempt made for it.
 */
function notSent(error: unknown): boolean {
  return isTermsyncError(error) && error.code === 'aborted' && (error as { attempts?: unknown }).attempts === 0;
}

/** Statuses that say a route does not exist (with 404 only once a re-read shows the instruction is still there). */
const ROUTE_MISSING = new Set([404, 405, 501]);

function routeMissingStatus(error: unknown): number | undefined {
  const status = isTermsyncError(error) ? (error as { status?: unknown }).status : undefined;
  return typeof status === 'number' && ROUTE_MISSING.has(status) ? status : undefined;
}

interface Done {
  readonly createdId?: string;
  readonly note?: string;
}

/**
 * Deletes one custom instruction by its own route. Where the service answers that the route does
 * not exist and the instruction is still there, and the plan carries the whole list (`auto`), the
 * list is replaced instead (create new, then delete old); the answer is remembered for the run.
 */
async function deleteInstruction(client: ApplyWriter, op: Operation & { readonly type: 'style_rules.delete_instruction' }, memory: RunMemory, progress: Progress): Promise<Done> {
  const replacedBy = memory.replaced.get(op.styleId);
  if (replacedBy !== undefined) return { note: `done by the replace of the list (now ${replacedBy})` };
  // The first delete tries the route; the others wait for its answer, so a missing route costs one request.
  if (memory.deleteRouteMissing === undefined && memory.firstDelete !== undefined) await memory.firstDelete.catch(() => undefined);
  let missing = memory.deleteRouteMissing;
  if (missing === undefined) {
    const attempt = (async (): Promise<Done | number> => {
      try {
        await client.deleteInstruction(op.styleId, op.instructionId);
        return {};
      } catch (error) {
        if (!notSent(error)) progress.sent = true;
        const status = routeMissingStatus(error);
        if (status === undefined) throw error;
        // A 404 may as well mean the instruction is already gone: only the list can tell.
        const list = await client.getStyleRules(op.styleId);
        if (!list.customInstructions.some((i) => i.id === op.instructionId)) return { note: 'the instruction was already gone' };
        memory.deleteRouteMissing ??= status;
        return status;
      }
    })();
    memory.firstDelete ??= attempt;
    const answer = await attempt;
    if (typeof answer !== 'number') return answer;
    missing = answer;
  }
  const why = `the service has no route to delete a custom instruction (HTTP ${missing})`;
  progress.sent = true;
  if (op.fallback === undefined) {
    throw new TermsyncError('route_missing', `${why}; set capabilities.delete_custom_instruction to auto or no for this target`);
  }
  const created = await client.createStyleRules({ ...op.fallback, customInstructions: op.fallback.customInstructions.map((i) => ({ ...i })) });
  await client.deleteStyleRules(op.styleId);
  memory.replaced.set(op.styleId, created.id);
  return { createdId: created.id, note: `${why}: replaced the list instead, deleting the old one (${op.styleId})` };
}

export interface ExecutePlanInput {
  readonly plan: Plan;
  readonly client: ApplyWriter;
  /** The live state the plan was checked against: ids of resources the plan leaves alone. */
  readonly live: LiveState;
  /** The resources the repository declares: `ids` maps exactly these. */
  readonly managed: ManagedNames;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
}

export interface ExecutedPlan {
  readonly result: ApplyResult;
  /**
   * Set when the service refused the key (401/403, or the destination failed before a write was
   * answered): the refused status or error code. Every later write was skipped.
   */
  readonly refusal?: string;
}

/** Whether an operation of several requests has sent one (then a later one not sent does not make it "not started"). */
interface Progress {
  sent: boolean;
}

/** Runs one operation; returns the id of what it created, if anything, and a note for people. */
async function runOperation(client: ApplyWriter, op: Operation, memory: RunMemory, progress: Progress): Promise<string | Done | undefined> {
  switch (op.type) {
    case 'glossary.create':
      return (await client.createGlossary(op.name, [...op.dictionaries])).id;
    case 'glossary_v2.create':
      return (await client.createGlossaryV2(op.name, op.dictionary)).id;
    case 'glossary.patch': {
      const change: { name?: string; dictionary?: DictionaryPayload } = {};
      if (op.name !== undefined) change.name = op.name;
      if (op.dictionary !== undefined) change.dictionary = op.dictionary;
      await client.patchGlossary(op.glossaryId, change);
      return undefined;
    }
    case 'glossary.put_dictionary':
      await client.putDictionary(op.glossaryId, op.dictionary);
      return undefined;
    case 'glossary.delete_dictionary':
      await client.deleteDictionary(op.glossaryId, op.sourceLang, op.targetLang);
      return undefined;
    case 'glossary.delete':
      await (op.api === 'v2' ? client.deleteGlossaryV2(op.glossaryId) : client.deleteGlossary(op.glossaryId));
      return undefined;
    case 'style_rules.create':
      return (
        await client.createStyleRules({
          name: op.name,
          language: op.language,
          configuredRules: op.configuredRules,
          customInstructions: op.customInstructions.map((i) =>
            i.sourceLanguage === undefined ? { label: i.label, prompt: i.prompt } : { label: i.label, prompt: i.prompt, sourceLanguage: i.sourceLanguage },
          ),
        })
      ).id;
    case 'style_rules.rename':
      await client.renameStyleRules(op.styleId, op.name);
      return undefined;
    case 'style_rules.put_configured_rules':
      await client.putConfiguredRules(op.styleId, op.configuredRules);
      return undefined;
    case 'style_rules.create_instruction':
      await client.createInstruction(
        op.styleId,
        op.sourceLanguage === undefined ? { label: op.label, prompt: op.prompt } : { label: op.label, prompt: op.prompt, sourceLanguage: op.sourceLanguage },
      );
      return undefined;
    case 'style_rules.update_instruction':
      await client.updateInstruction(
        op.styleId,
        op.instructionId,
        op.sourceLanguage === undefined ? { label: op.label, prompt: op.prompt } : { label: op.label, prompt: op.prompt, sourceLanguage: op.sourceLanguage },
      );
      return undefined;
    case 'style_rules.delete_instruction':
      return deleteInstruction(client, op, memory, progress);
    case 'style_rules.delete':
      await client.deleteStyleRules(op.styleId);
      return undefined;
  }
}

/** A saved plan is input: its dependency graph must name known operations and have no cycle. */
export function checkOperationGraph(operations: readonly Operation[]): void {
  const byKey = new Map<string, Operation>();
  for (const op of operations) {
    if (byKey.has(op.key)) throw new InputError('plan/duplicate-operation', `the plan has two operations with key "${op.key}"`);
    byKey.set(op.key, op);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (key: string, path: readonly string[]): void => {
    const seen = state.get(key);
    if (seen === 'done') return;
    if (seen === 'visiting') throw new InputError('plan/dependency-cycle', `the plan's operations depend on each other in a cycle: ${[...path, key].join(' → ')}`);
    state.set(key, 'visiting');
    for (const dep of byKey.get(key)?.dependsOn ?? []) {
      if (!byKey.has(dep)) throw new InputError('plan/unknown-dependency', `operation "${key}" depends on "${dep}", which is not in the plan`);
      visit(dep, [...path, key]);
    }
    state.set(key, 'done');
  };
  for (const op of operations) visit(op.key, []);
}

function errorOf(error: unknown): { code: string; message: string; traceId?: string } {
  if (isTermsyncError(error)) {
    const traceId = (error as { traceId?: unknown }).traceId;
    return typeof traceId === 'string' ? { code: error.code, message: error.message, traceId } : { code: error.code, message: error.message };
  }
  return { code: 'unexpected', message: error instanceof Error ? error.message : String(error) };
}

/** `403` / `401` when the service answered, else the error's code (an unreachable destination). */
function refusalOf(error: TermsyncError): string {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? String(status) : error.code;
}

/**
 * Executes a plan's operations: each starts as soon as the operations it depends on have applied
 * (independent ones run in parallel, bounded by the client's queue); a failure is recorded and
 * never stops unrelated operations, but everything depending on it is skipped, so a delete never
 * runs when its replacement was not created. A plan with guard violations writes nothing.
 */
export async function executePlan(input: ExecutePlanInput): Promise<ExecutedPlan> {
  const { plan, client, signal } = input;
  const logger = input.logger ?? silentLogger;
  if (plan.guards.length > 0) {
    // The violations themselves are listed with the plan (the CLI prints them before this line).
    throw new TermsyncError('guard_blocked', `apply refused: blocked by ${plan.guards.length === 1 ? 'a safety guard' : `${plan.guards.length} safety guards`} (listed above)`);
  }
  checkOperationGraph(plan.operations);

  const byKey = new Map(plan.operations.map((op) => [op.key, op] as const));
  const outcomes = new Map<string, OperationOutcome>();
  const running = new Map<string, Promise<OperationOutcome>>();
  const memory: RunMemory = { replaced: new Map() };
  // Once the service refuses the key (401/403), every further write would be refused too. Until one
  // write has been answered without such a refusal, writes go out one at a time, so a read-scoped
  // key costs exactly one refused request, whatever the concurrency.
  let refusal: string | undefined;
  let keyAccepted = false;
  let probe: Promise<void> = Promise.resolve();
  const awaitTurn = async (): Promise<() => void> => {
    if (keyAccepted) return () => undefined;
    const previous = probe;
    let release: () => void = () => undefined;
    probe = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    if (keyAccepted) {
      release();
      return () => undefined;
    }
    return release;
  };

  const start = (op: Operation): Promise<OperationOutcome> => {
    const existing = running.get(op.key);
    if (existing) return existing;
    const promise = (async (): Promise<OperationOutcome> => {
      const base = { key: op.key, type: op.type, resource: op.resource, request: requestLineOf(op) };
      const deps = await Promise.all(op.dependsOn.map((dep) => start(byKey.get(dep) as Operation)));
      const blocked = deps.find((d) => d.status !== 'applied');
      if (blocked) {
        if (blocked.skippedBecause === NOT_STARTED_INTERRUPTED) return { ...base, status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED };
        return { ...base, status: 'skipped', skippedBecause: `${blocked.key} (${blocked.request}) ${blocked.status === 'failed' ? 'failed' : 'was skipped'}` };
      }
      if (signal?.aborted) return { ...base, status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED };
      const release = await awaitTurn();
      const progress: Progress = { sent: false };
      try {
        if (refusal !== undefined) return { ...base, status: 'skipped', skippedBecause: `not attempted: the key was refused (${refusal})` };
        if (signal?.aborted) return { ...base, status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED };
        const done = await runOperation(client, op, memory, progress);
        keyAccepted = true;
        logger.debug({ op: op.key, request: base.request }, 'applied');
        const { createdId, note } = typeof done === 'string' ? { createdId: done, note: undefined } : (done ?? {});
        return { ...base, status: 'applied', ...(createdId === undefined ? {} : { createdId }), ...(note === undefined ? {} : { note }) };
      } catch (error) {
        // Stopped before its request left: not started, like the operations that never began.
        if (notSent(error) && !progress.sent) return { ...base, status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED };
        const err = errorOf(error);
        if (isRefusal(error)) refusal ??= refusalOf(error as TermsyncError);
        else keyAccepted = true;
        // The result lists every failure; the log line is for debugging only.
        logger.debug({ op: op.key, request: base.request, code: err.code }, 'operation failed');
        return { ...base, status: 'failed', error: err };
      } finally {
        release();
      }
    })();
    running.set(op.key, promise);
    return promise;
  };

  for (const outcome of await Promise.all(plan.operations.map(start))) outcomes.set(outcome.key, outcome);
  const ordered = plan.operations.map((op) => outcomes.get(op.key) as OperationOutcome);
  const count = (status: OperationOutcome['status']): number => ordered.filter((o) => o.status === status).length;
  const duplicateIds = new Set((plan.duplicates ?? []).flatMap((g) => g.remove.map((c) => c.id)));
  const duplicatesDeleted = plan.operations.filter(
    (op) => outcomes.get(op.key)?.status === 'applied' && ((op.type === 'glossary.delete' && duplicateIds.has(op.glossaryId)) || (op.type === 'style_rules.delete' && duplicateIds.has(op.styleId))),
  ).length;
  const applied = count('applied');
  const result: ApplyResult = {
    target: plan.target,
    outcomes: ordered,
    applied,
    failed: count('failed'),
    skipped: count('skipped'),
    // Said only when the interruption left something undone.
    ...(signal?.aborted === true && applied < ordered.length ? { interrupted: true as const } : {}),
    ...(duplicatesDeleted === 0 ? {} : { duplicatesDeleted }),
    ids: collectManagedIds(input.managed, input.live, plan.operations, ordered),
  };
  return refusal === undefined ? { result } : { result, refusal };
}
