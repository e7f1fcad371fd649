import { isPair, isScalar, visit, type Node } from 'yaml';
import { type Diagnostic, error } from '../lib/diagnostics.js';
import { positionOfNode, type YamlFile } from './parse-yaml.js';

/*
 * Credentials in the repository. A value of one of these shapes is an error wherever it stands
 * (a YAML value, key or comment; a cell of an entries file; a term of a TBX file or a workbook),
 * so that it is never uploaded; messages name where it is and what it looks like, never the value.
 *
 * The text is scanned in two steps, so that a 10 MiB entries file costs a few milliseconds: a
 * regular expression that starts with a literal (or, for a UUID, with `-hhhh-hhhh-`) finds
 * candidates, and only at those the exact shape is tested.
 */

export type SecretKind = 'service-key' | 'secret-key' | 'github-token' | 'aws-access-key' | 'auth-header';

const KIND_TEXT: Readonly<Record<SecretKind, string>> = {
  'service-key': 'an API key of the service (a UUID, optionally with `:fx`)',
  'secret-key': 'a secret API key (`sk-…`)',
  'github-token': 'a GitHub token (`ghp_…`, `github_pat_…`)',
  'aws-access-key': 'an AWS access key id (`AKIA…`)',
  'auth-header': 'an authorization header with a key',
};

// Candidates: `-hhhh-hhhh-` (the middle of a UUID), and the literal starts of the other shapes.
const CANDIDATE = /-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-|sk-|gh[pousr]_|github_pat_|A[KS]IA|[Ss][Ee][Rr][Vv][Ii][Cc][Ee]-[Aa][Uu][Tt][Hh]-[Kk][Ee][Yy]/g;

// The exact shapes, tested (sticky) at a candidate's start.
const UUID_AT = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?::fx)?(?![0-9A-Za-z-])/y;
const SK_AT = /sk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}/y;
const GITHUB_AT = /(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/y;
const AWS_AT = /A[KS]IA[A-Z0-9]{16}(?![A-Za-z0-9])/y;
const AUTH_AT = /[Ss][Ee][Rr][Vv][Ii][Cc][Ee]-[Aa][Uu][Tt][Hh]-[Kk][Ee][Yy]\s+\S{8,}/y;

function isWordChar(code: number | undefined): boolean {
  if (code === undefined || Number.isNaN(code)) return false;
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function matchesAt(shape: RegExp, text: string, at: number): number {
  shape.lastIndex = at;
  return shape.test(text) ? shape.lastIndex : -1;
}

/** One credential found in a text: where it starts and ends (UTF-16 offsets) and what it looks like. */
export interface SecretFound {
  readonly start: number;
  readonly end: number;
  readonly kind: SecretKind;
}

/** Texts up to this long (a term, a cell) are tested with MAY_HOLD_SHORT (see mayHoldSecret). */
const SHORT_TEXT = 256;

/**
 * mayHoldSecret's tests as one expression, for a short text (a workbook's or TBX file's term:
 * hundreds of thousands of them): one call instead of five searches, which cost more than the
 * text is long. A dash with another one 5 characters on, `sk-` not after a word character or a
 * dash, `AKIA`/`ASIA`, and an underscore ending `gh[pousr]_` or `github_`.
 */
const MAY_HOLD_SHORT = /-[^]{4}-|(?<![0-9A-Za-z_-])sk-|A[KS]IA|gh[pousr]_|github_/;

/**
 * False when no candidate of CANDIDATE can occur in `text`, by searches that run at memory speed
 * (a single-character or literal search each) instead of the candidate expression, which must try
 * every `s`, `g` and `-`: a dash followed by another one 5 characters on (the middle of a UUID, and
 * `-auth-` of an authorization header), `sk-` not preceded by a word character or a dash,
 * `AKIA`/`ASIA`, and an underscore ending `gh[pousr]_` or `github_`. True does not mean a credential
 * is there: findSecrets then decides, as without this test.
 */
export function mayHoldSecret(text: string): boolean {
  if (text.length <= SHORT_TEXT) return MAY_HOLD_SHORT.test(text);
  for (let at = text.indexOf('-'); at !== -1; at = text.indexOf('-', at + 1)) if (text.charCodeAt(at + 5) === 0x2d) return true;
  for (let at = text.indexOf('sk-'); at !== -1; at = text.indexOf('sk-', at + 1)) {
    const before = text.charCodeAt(at - 1);
    if (!isWordChar(before) && before !== 0x2d) return true;
  }
  if (text.includes('AKIA') || text.includes('ASIA')) return true;
  for (let at = text.indexOf('_'); at !== -1; at = text.indexOf('_', at + 1)) {
    if (text.charCodeAt(at - 3) === 0x67 && text.charCodeAt(at - 2) === 0x68 && 'pousr'.includes(text.charAt(at - 1) || '?')) return true;
    if (at >= 6 && text.startsWith('github', at - 6)) return true;
  }
  return false;
}

/** Every credential-shaped run of `text`, in order. Linear in the text. */
export function findSecrets(text: string): SecretFound[] {
  const found: SecretFound[] = [];
  if (!mayHoldSecret(text)) return found;
  let after = 0;
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const at = m.index;
    const first = text.charCodeAt(at);
    let start = at;
    let end = -1;
    let kind: SecretKind = 'service-key';
    if (first === 0x2d /* - */) {
      start = at - 8;
      if (start >= after && start >= 0 && !isWordChar(text.charCodeAt(start - 1)) && text.charCodeAt(start - 1) !== 0x2d) end = matchesAt(UUID_AT, text, start);
    } else if (first === 0x73 /* s */) {
      kind = 'secret-key';
      if (!isWordChar(text.charCodeAt(at - 1)) && text.charCodeAt(at - 1) !== 0x2d) end = matchesAt(SK_AT, text, at);
    } else if (first === 0x67 /* g */) {
      kind = 'github-token';
      if (!isWordChar(text.charCodeAt(at - 1))) end = matchesAt(GITHUB_AT, text, at);
    } else if (first === 0x41 /* A */) {
      kind = 'aws-access-key';
      if (!isWordChar(text.charCodeAt(at - 1))) end = matchesAt(AWS_AT, text, at);
    } else {
      kind = 'auth-header';
      end = matchesAt(AUTH_AT, text, at);
    }
    if (end < 0) {
      // Not a credential here: look again from the next character (candidates may overlap).
      CANDIDATE.lastIndex = at + 1;
      continue;
    }
    found.push({ start, end, kind });
    after = end;
    CANDIDATE.lastIndex = end;
  }
  return found;
}

/** True when some part of the text has the shape of a credential. */
export function containsSecret(text: string): boolean {
  return findSecrets(text).length > 0;
}

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

/** A random-looking value of a field named like a credential (`token:`, `api_key:`, `password:`). */
function keyishValue(value: string, fieldName: string | undefined): boolean {
  if (fieldName === undefined || !KEYISH_FIELD.test(fieldName)) return false;
  const v = value.trim();
  if (v.length < 20 || /\s/.test(v) || ENV_NAME.test(v)) return false;
  return /[0-9]/.test(v) && /[A-Za-z]/.test(v) && entropyPerChar(v) >= 3.5;
}

/** True for a value that looks like an API key or another credential. Never echo such a value. */
export function looksLikeSecret(value: string, fieldName?: string): boolean {
  return containsSecret(value) || keyishValue(value, fieldName);
}

/** The message of a credential found in the repository: where and what, never the value. */
export function secretMessage(where: string, kind: SecretKind | 'keyish'): string {
  const what = kind === 'keyish' ? 'a secret (a random-looking value of a field named like a credential)' : KIND_TEXT[kind];
  const then = kind === 'service-key' || kind === 'auth-header' || kind === 'keyish' ? ", then set it in the environment variable named by the target's `api_key_env`" : '';
  return `${where} looks like ${what}: credentials never belong in the repository, and nothing of this repository is uploaded while it holds one; remove it (and revoke it if it was committed)${then}`;
}

export const SECRET_RULE = 'config/api-key-in-repo';

/** Line and column (1-based) of each offset, for offsets in increasing order: one pass over the text. */
function positionsOf(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const positions: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let from = 0;
  for (const offset of offsets) {
    for (let nl = text.indexOf('\n', from); nl !== -1 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
      line++;
      lineStart = nl + 1;
    }
    from = offset;
    positions.push({ line, column: offset - lineStart + 1 });
  }
  return positions;
}

/**
 * Every credential in a text file (an entries file, or a YAML file as text: comments and keys
 * included, and a file that is not valid YAML). Located at the credential, never echoed.
 */
export function detectSecretsInText(text: string, file: string, where = 'a value'): Diagnostic[] {
  const found = findSecrets(text);
  if (found.length === 0) return [];
  const positions = positionsOf(text, found.map((f) => f.start));
  return found.map((f, i) => {
    const { line, column } = positions[i] as { line: number; column: number };
    return error(SECRET_RULE, secretMessage(where, f.kind), file, line, column);
  });
}

/**
 * Every credential of a YAML file: the whole text is scanned (values, keys, comments), and every
 * scalar as the YAML library decoded it (an escaped or folded value, a random-looking value of a
 * field named like a credential). One diagnostic per credential, at the value.
 */
export function detectSecrets(yaml: YamlFile, text: string): Diagnostic[] {
  const inText = findSecrets(text);
  const diagnostics = detectSecretsInText(text, yaml.file);
  const coveredByText = (node: Node): boolean => {
    const range = node.range;
    if (!range) return false;
    // Binary search for a text finding inside the node's source range.
    let lo = 0;
    let hi = inText.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((inText[mid] as SecretFound).start < range[0]) lo = mid + 1;
      else hi = mid;
    }
    const next = inText[lo];
    return next !== undefined && next.start < range[1];
  };
  visit(yaml.doc, {
    Scalar(key, node, path) {
      if (typeof node.value !== 'string') return;
      const parent = path[path.length - 1];
      const fieldName = key === 'value' && isPair(parent) && isScalar(parent.key) ? String(parent.key.value) : undefined;
      // The text scan saw every plain, single-quoted and block scalar as it is; only a
      // double-quoted one can spell a credential differently (escapes).
      const shape = node.type === 'QUOTE_DOUBLE' ? findSecrets(node.value)[0]?.kind : undefined;
      const kind = shape ?? (keyishValue(node.value, fieldName) ? 'keyish' : undefined);
      if (kind === undefined || coveredByText(node)) return;
      const { line, column } = positionOfNode(yaml, node);
      const where = fieldName === undefined ? 'a value' : `the value of \`${fieldName}\``;
      diagnostics.push(error(SECRET_RULE, secretMessage(where, kind), yaml.file, line, column));
    },
  });
  return diagnostics;
}

/** Safety net for every message the loader returns: a credential-shaped value never leaves it. */
export function redactSecrets<T extends { readonly message: string }>(diagnostic: T): T {
  const found = findSecrets(diagnostic.message);
  if (found.length === 0) return diagnostic;
  let message = '';
  let from = 0;
  for (const f of found) {
    message += `${diagnostic.message.slice(from, f.start)}[redacted]`;
    from = f.end;
  }
  return { ...diagnostic, message: message + diagnostic.message.slice(from) };
}
