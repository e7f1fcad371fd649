import { displayJson } from '../lib/display.js';

/**
 * JSON with a stable key order (identifying keys first, then alphabetical) and two-space indents;
 * arrays of plain values (an entry `[source, target]`, a list of keys) stay on one line, so a plan
 * with many entries stays readable and diffable.
 */
const FIRST_KEYS = ['format_version', 'target', 'key', 'type', 'kind', 'name', 'address', 'action', 'id'];

function keyRank(key: string): number {
  const i = FIRST_KEYS.indexOf(key);
  return i === -1 ? FIRST_KEYS.length : i;
}

function orderedKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort((a, b) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function isPlain(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

function write(value: unknown, indent: string): string {
  if (isPlain(value)) return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isPlain)) return `[${value.map((v) => JSON.stringify(v) ?? 'null').join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${write(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = orderedKeys(object);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${write(object[k], inner)}`).join(',\n')}\n${indent}}`;
}

/** Written for a terminal or a CI log too: line separators and other controls inside strings as `\uXXXX` escapes (displayJson). */
export function stableJson(value: unknown): string {
  return `${displayJson(write(value, ''))}\n`;
}
