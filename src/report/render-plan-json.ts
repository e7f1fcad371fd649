import { InputError } from '../lib/errors.js';
import { requestLineOf, uploadBytesOf } from '../lib/operation-request.js';
import type { Plan } from '../model/index.js';
import { PLAN_FORMAT_VERSION } from '../model/index.js';
import { camelToSnake, toCamelKeys, toSnakeKeys } from './json-keys.js';
import { planSchema } from './plan-schema.js';
import { stableJson } from './stable-json.js';

/** Properties whose values are keyed by data (language pairs, rule names, HTTP methods). */
const OPAQUE = ['entryHashes', 'configuredRules', 'calls'];
const OPAQUE_SNAKE = new Set(OPAQUE.map(camelToSnake));
/** The one model property already spelled in snake_case. */
const KEEP = new Set(['format_version']);

/**
 * The saved-plan format: the plan itself, property names in snake_case, keys in a stable order. Each operation also shows, for
 * people and CI, the request it becomes and the bytes it uploads; reading ignores those two.
 */
export function renderPlanJson(plan: Plan): string {
  const operations = plan.operations.map((op) => ({ ...op, request: requestLineOf(op), uploadBytes: uploadBytesOf(op) }));
  return stableJson(toSnakeKeys({ ...plan, operations }, new Set(OPAQUE)));
}

/** Reads a saved plan; a bad file is an InputError that says what is wrong and where. */
export function parsePlanJson(text: string): Plan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('plan_file_invalid', `the plan file is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError('plan_file_invalid', 'the plan file does not hold a plan (expected a JSON object, as written by `termsync plan --out`)');
  }
  const version = (value as { format_version?: unknown }).format_version;
  if (version !== PLAN_FORMAT_VERSION) {
    const got = version === undefined ? 'no format_version' : `format_version ${JSON.stringify(version)}`;
    throw new InputError('plan_format_version', `the plan file has ${got}; this termsync reads format_version "${PLAN_FORMAT_VERSION}": make the plan again with \`termsync plan --out\``);
  }
  const result = planSchema.safeParse(toCamelKeys(value, OPAQUE_SNAKE, KEEP));
  if (!result.success) {
    const issues = result.error.issues.slice(0, 5).map((i) => `${formatPath(i.path)}: ${i.message}`);
    const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more problems)` : '';
    throw new InputError('plan_file_invalid', `the plan file is not a valid saved plan: ${issues.join('; ')}${more}`);
  }
  const plan = result.data as Plan;
  checkReferences(plan);
  return plan;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${camelToSnake(String(p))}`)).join('');
}

/** Keys unique; dependencies and change → operation links point at operations of the plan, earlier ones. */
function checkReferences(plan: Plan): void {
  const position = new Map<string, number>();
  plan.operations.forEach((op, i) => {
    if (position.has(op.key)) throw new InputError('plan_file_invalid', `the plan file is not a valid saved plan: operations[${i}].key: "${op.key}" appears twice`);
    position.set(op.key, i);
  });
  plan.operations.forEach((op, i) => {
    for (const dep of op.dependsOn) {
      const at = position.get(dep);
      if (at === undefined || at >= i) {
        throw new InputError('plan_file_invalid', `the plan file is not a valid saved plan: operations[${i}].depends_on: "${dep}" is not an earlier operation`);
      }
    }
  });
  plan.changes.forEach((change, i) => {
    for (const key of change.operations) {
      if (!position.has(key)) throw new InputError('plan_file_invalid', `the plan file is not a valid saved plan: changes[${i}].operations: no operation "${key}"`);
    }
  });
}
