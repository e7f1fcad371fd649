import type * as z from 'zod/v4/core';
import { type Diagnostic, error, show } from '../lib/diagnostics.js';
import { didYouMeanSuffix } from './did-you-mean.js';
import { looksLikeSecret } from './detect-secrets.js';
import { positionAt, type YamlFile } from './parse-yaml.js';

type Issue = z.$ZodIssue;
/** Any schema, of the full API or of zod/mini (they share one core). */
type Schema = z.$ZodType;
type Path = readonly PropertyKey[];

/** Lets a resource kind give its own rule id (and message) to a schema issue at a known path. */
export type RuleForIssue = (issue: Issue, path: string, missing: boolean) => { code: string; message?: string } | undefined;

interface Def {
  type: string;
  shape?: Record<string, Schema>;
  element?: Schema;
  innerType?: Schema;
  valueType?: Schema;
  in?: Schema;
}

function defOf(schema: Schema): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function unwrap(schema: Schema): Schema {
  let current = schema;
  for (let def = defOf(current); def.innerType !== undefined || (def.type === 'pipe' && def.in); def = defOf(current)) {
    current = def.innerType ?? (def.in as Schema);
  }
  return current;
}

/** The field names an object schema allows at `path`, for "did you mean" suggestions. */
export function knownKeysAt(schema: Schema, path: Path): string[] {
  let current: Schema | undefined = unwrap(schema);
  for (const segment of path) {
    if (current === undefined) return [];
    const def = defOf(current);
    if (def.type === 'object' && def.shape) current = def.shape[String(segment)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return [];
    if (current !== undefined) current = unwrap(current);
  }
  const def = current === undefined ? undefined : defOf(current);
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

function valueAt(root: unknown, path: Path): unknown {
  let value = root;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

/** Shows a value in a message unless it might be a secret (those are reported by their own rule). */
function showValue(value: unknown, field: string): string {
  if (typeof value === 'string') return looksLikeSecret(value, field) ? 'a value that looks like a secret' : show(value);
  return value === null || typeof value !== 'object' ? String(value) : describeType(value);
}

export function dottedPath(path: Path): string {
  return path.map(String).join('.');
}

function plural(n: number | bigint, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function defaultMessage(issue: Issue, value: unknown, field: string): string {
  const label = field === '' ? 'the file' : `\`${field}\``;
  switch (issue.code) {
    case 'invalid_type':
      // A number of the wrong kind (YAML's .inf and .nan, a fraction where an integer is due) is shown as itself.
      if (typeof value === 'number' && (issue.expected === 'number' || issue.expected === 'int')) {
        return `${label}: expected ${issue.expected === 'int' ? 'an integer' : 'a finite number'}, got ${String(value)}`;
      }
      return `${label}: expected ${issue.expected === 'int' ? 'an integer' : issue.expected === 'array' ? 'a list' : issue.expected === 'object' || issue.expected === 'record' ? 'a mapping' : `a ${issue.expected}`}, got ${describeType(value)}`;
    case 'invalid_value':
      return `${label}: expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${showValue(value, field)}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `${label}: at most ${plural(issue.maximum, 'item')} allowed, got ${Array.isArray(value) ? value.length : '?'}`
        : issue.origin === 'string'
          ? `${label}: at most ${plural(issue.maximum, 'character')} allowed, got ${typeof value === 'string' ? value.length : '?'}`
          : issue.inclusive === false
            ? `${label}: must be less than ${String(issue.maximum)}, got ${showValue(value, field)}`
            : `${label}: at most ${String(issue.maximum)} allowed, got ${showValue(value, field)}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `${label}: at least ${plural(issue.minimum, 'item')} required`
        : issue.origin === 'string'
          ? `${label}: must not be empty`
          : issue.inclusive === false
            ? `${label}: must be greater than ${String(issue.minimum)}, got ${showValue(value, field)}`
            : `${label}: at least ${String(issue.minimum)} required, got ${showValue(value, field)}`;
    case 'invalid_format':
      return `${label}: ${issue.message}`;
    default:
      return `${label}: ${issue.message}`;
  }
}

/** zod issues → located diagnostics with stable rule ids and messages that say what was expected. */
export function schemaDiagnostics(yaml: YamlFile, schema: Schema, issues: readonly Issue[], ruleFor?: RuleForIssue): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const { line, column } = positionAt(yaml, [...issue.path, key], 'key');
        const where = issue.path.length === 0 ? '' : ` in \`${dottedPath(issue.path)}\``;
        diagnostics.push(error('schema/unknown-field', `unknown field \`${key}\`${where}${didYouMeanSuffix(key, known)}`, yaml.file, line, column));
      }
      continue;
    }
    const value = valueAt(yaml.value, issue.path);
    const missing = value === undefined && issue.code === 'invalid_type';
    const field = dottedPath(issue.path);
    const custom = ruleFor?.(issue, field, missing);
    const code = custom?.code ?? (missing ? 'schema/missing-field' : issue.code === 'invalid_type' ? 'schema/invalid-type' : 'schema/invalid-value');
    const message = custom?.message ?? (missing ? `missing required field \`${field}\`` : defaultMessage(issue, value, field));
    const { line, column } = positionAt(yaml, issue.path);
    diagnostics.push(error(code, message, yaml.file, line, column));
  }
  return diagnostics;
}
