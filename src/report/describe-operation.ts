import { requestLineOf } from '../lib/operation-request.js';
import type { DictionaryPayload, Operation, Plan } from '../model/index.js';
import { pairLabel } from './format-plan.js';

/** One API call of a plan, for people: the request and what it does, in words. */
export interface CallDescription {
  /** `PUT /v3/glossaries/{id}/dictionaries` (ids percent-encoded, so safe in a code span). */
  readonly request: string;
  /** `add dictionary en-fr (2 entries)`: no text from the repository or the service. */
  readonly action: string;
  /** Text from the repository that completes the action (a new name, an instruction label): raw, for the caller to escape. */
  readonly quoted?: string;
  readonly resource: Operation['resource'];
  /** 1-based positions of the calls that must succeed first. */
  readonly after: readonly number[];
}

function entriesText(n: number): string {
  return `${n} ${n === 1 ? 'entry' : 'entries'}`;
}

function dictionaryText(d: DictionaryPayload): string {
  return `${pairLabel(d)} (${entriesText(d.entries.length)})`;
}

/** Whether a PUT adds a language pair or replaces an existing one: the plan's change of that resource says. */
function putVerb(plan: Plan, op: Operation & { readonly type: 'glossary.put_dictionary' }): string {
  const change = plan.changes.find((c) => c.operations.includes(op.key));
  const dict = change?.dictionaries.find((d) => pairLabel(d) === pairLabel(op.dictionary));
  return dict?.action === 'create' ? 'add dictionary' : 'replace dictionary';
}

function actionOf(plan: Plan, op: Operation): { action: string; quoted?: string } {
  switch (op.type) {
    case 'glossary.create':
      return { action: `create glossary with ${op.dictionaries.map(dictionaryText).join(', ')}` };
    case 'glossary_v2.create':
      return { action: `create v2 glossary with ${dictionaryText(op.dictionary)}` };
    case 'glossary.patch': {
      const merge = op.dictionary === undefined ? undefined : `merge ${entriesText(op.dictionary.entries.length)} into ${pairLabel(op.dictionary)}`;
      if (op.name === undefined) return { action: merge ?? 'no change' };
      return { action: merge === undefined ? 'rename to' : `${merge}, and rename to`, quoted: op.name };
    }
    case 'glossary.put_dictionary':
      return { action: `${putVerb(plan, op)} ${dictionaryText(op.dictionary)}` };
    case 'glossary.delete_dictionary':
      return { action: `delete dictionary ${pairLabel(op)}` };
    case 'glossary.delete':
      return { action: `delete ${op.api} glossary` };
    case 'style_rules.create': {
      const n = op.customInstructions.length;
      return { action: `create style rule list (${op.language}, ${n} custom ${n === 1 ? 'instruction' : 'instructions'})` };
    }
    case 'style_rules.rename':
      return { action: 'rename to', quoted: op.name };
    case 'style_rules.put_configured_rules':
      return { action: 'replace configured rules' };
    case 'style_rules.create_instruction':
      return { action: 'add custom instruction', quoted: op.label };
    case 'style_rules.update_instruction':
      return { action: 'update custom instruction', quoted: op.label };
    case 'style_rules.delete_instruction':
      return { action: op.fallback === undefined ? 'delete custom instruction' : 'delete custom instruction (where the service has no such route: replace the list)', quoted: op.label };
    case 'style_rules.delete':
      return { action: 'delete style rule list' };
  }
}

/** The plan's API calls in execution order, each with what it does and which calls it waits for. */
export function describeCalls(plan: Plan): CallDescription[] {
  const position = new Map(plan.operations.map((op, i) => [op.key, i + 1]));
  return plan.operations.map((op) => ({
    request: requestLineOf(op),
    ...actionOf(plan, op),
    resource: op.resource,
    after: op.dependsOn.map((key) => position.get(key)).filter((n) => n !== undefined),
  }));
}
