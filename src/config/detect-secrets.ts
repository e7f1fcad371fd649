import { isPair, isScalar, visit } from 'yaml';
import type { Diagnostic } from '../lib/diagnostics.js';
import { error } from './diagnostic.js';
import { positionOfNode, type YamlFile } from './parse-yaml.js';

/** The service's key shape: a UUID, optionally with the free-tier `:fx` suffix. */
const UUID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:fx)?$/i;
const AUTH_HEADER = /Service-Auth-Key\s+\S{8,}/i;
const KEYISH_FIELD = /(^|[_-])(api[_-]?key|key|token|secret|password|passwd|auth|authorization|credentials?)$/i;
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

function entropyPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True for a value that looks like an API key or another credential. Never echo such a value. */
export function looksLikeSecret(value: string, fieldName?: string): boolean {
  const v = value.trim();
  if (UUID_KEY.test(v) || AUTH_HEADER.test(v)) return true;
  if (fieldName === undefined || !KEYISH_FIELD.test(fieldName)) return false;
  if (v.length < 20 || /\s/.test(v) || ENV_NAME.test(v)) return false;
  return /[0-9]/.test(v) && /[A-Za-z]/.test(v) && entropyPerChar(v) >= 3.5;
}

/**
 * Every scalar of the file that looks like an API key is an error. The message names the field
 * and the position, never the value: the key must not spread further (logs, CI output).
 */
export function detectSecrets(yaml: YamlFile): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  visit(yaml.doc, {
    Scalar(key, node, path) {
      if (typeof node.value !== 'string') return;
      const parent = path[path.length - 1];
      const fieldName = key === 'value' && isPair(parent) && isScalar(parent.key) ? String(parent.key.value) : undefined;
      if (!looksLikeSecret(node.value, fieldName)) return;
      const { line, column } = positionOfNode(yaml, node);
      const where = fieldName === undefined ? 'a value' : `the value of \`${fieldName}\``;
      diagnostics.push(
        error(
          'config/api-key-in-repo',
          `${where} looks like an API key: keys never belong in the repository; remove it (and revoke it if it was committed), then set it in the environment variable named by the target's \`api_key_env\``,
          yaml.file,
          line,
          column,
        ),
      );
    },
  });
  return diagnostics;
}

const KEY_IN_TEXT = /(?<![0-9a-z-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:fx)?(?![0-9a-z-])|Service-Auth-Key\s+\S{8,}/gi;

/**
 * Token-level scan for a file that is not valid YAML (no tree to walk): a key written into it is
 * still an error, located, never echoed.
 */
export function detectSecretsInText(text: string, file: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const match of text.matchAll(KEY_IN_TEXT)) {
    const before = text.slice(0, match.index);
    const line = before.split('\n').length;
    const column = match.index - before.lastIndexOf('\n');
    diagnostics.push(
      error('config/api-key-in-repo', "a value looks like an API key: keys never belong in the repository; remove it (and revoke it if it was committed), then set it in the environment variable named by the target's `api_key_env`", file, line, column),
    );
  }
  return diagnostics;
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(:fx)?/gi;

/** Safety net for every message the loader returns: a key-shaped value never leaves it. */
export function redactSecrets<T extends { readonly message: string }>(diagnostic: T): T {
  UUID_ANYWHERE.lastIndex = 0;
  return UUID_ANYWHERE.test(diagnostic.message) ? { ...diagnostic, message: diagnostic.message.replace(UUID_ANYWHERE, '[redacted]') } : diagnostic;
}
