import { hasLoneSurrogate } from './parse-entries.js';
import { ServiceError, badRequest } from './service-error.js';

/** A request body after content negotiation: JSON, or a form decoded into the same nested shape. */
export interface ParsedBody {
  readonly kind: 'json' | 'form' | 'empty';
  readonly value: unknown;
}

const MAX_FORM_INDEX = 100_000;
/** The deepest key a body of this API needs is 3 steps (`dictionaries[0].source_lang`); 16 leaves room and bounds the tree. */
export const MAX_FORM_KEY_DEPTH = 16;

function unsupportedType(contentType: string): ServiceError {
  return new ServiceError(415, `Unsupported Content-Type "${contentType}": send application/json or application/x-www-form-urlencoded`, {
    code: 'invalid_content_type',
  });
}

/**
 * Decodes a body by its Content-Type. An empty body is `empty` whatever the type says; a non-empty
 * body needs `application/json` or `application/x-www-form-urlencoded` (else 415
 * `invalid_content_type`), valid UTF-8, and well-formed syntax (else 400).
 */
export function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  const media = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  const known = media === 'application/json' || media === 'application/x-www-form-urlencoded';
  if (contentType !== undefined && contentType.trim() !== '' && !known) throw unsupportedType(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new ServiceError(415, `Unsupported charset "${charset}": bodies are UTF-8`, { code: 'invalid_content_type' });
  }
  if (raw.length === 0) return { kind: 'empty', value: undefined };
  if (!known) throw unsupportedType(contentType ?? '(none)');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw badRequest('The request body is not valid UTF-8');
  }
  if (media === 'application/json') return { kind: 'json', value: parseJson(text) };
  return { kind: 'form', value: parseForm(text) };
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw badRequest(`Malformed JSON body: ${reason}`);
  }
  assertWellFormed(value);
  return value;
}

/** Rejects strings with unpaired surrogates (`"\ud800"` is valid JSON but not valid Unicode). Iterative: deep nesting cannot overflow the stack. */
function assertWellFormed(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) throw badRequest('The request body holds a string with an unpaired UTF-16 surrogate');
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        stack.push(k);
        stack.push(v);
      }
    }
  }
}

type FormNode =
  | { kind: 'object'; children: Map<string, FormNode> }
  | { kind: 'array'; children: Map<number, FormNode> }
  | { kind: 'leaf'; values: string[] };

type PathStep = { kind: 'name'; name: string } | { kind: 'index'; index: number };

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw badRequest(`The form body holds an invalid percent-encoding (not UTF-8): "${text.slice(0, 80)}"`);
  }
}

/** `dictionaries[0].source_lang`, `a[b][0]`, `text[]` → path steps. */
function parseKey(key: string): PathStep[] {
  const match = /^([^[.\]]+)((?:\[[^\]]*\]|\.[^[.\]]+)*)$/.exec(key);
  if (!match) throw badRequest(`The form body has a malformed key "${key.slice(0, 80)}"`);
  const steps: PathStep[] = [{ kind: 'name', name: match[1] ?? '' }];
  const rest = match[2] ?? '';
  for (const part of rest.matchAll(/\[([^\]]*)\]|\.([^[.\]]+)/g)) {
    const bracket = part[1];
    if (bracket === undefined) {
      steps.push({ kind: 'name', name: part[2] ?? '' });
    } else if (bracket === '') {
      // `text[]=a&text[]=b` is the same as repeating `text`.
      continue;
    } else if (/^\d+$/.test(bracket)) {
      const index = Number(bracket);
      if (index > MAX_FORM_INDEX) throw badRequest(`The form key "${key.slice(0, 80)}" has an index above ${MAX_FORM_INDEX}`);
      steps.push({ kind: 'index', index });
    } else {
      steps.push({ kind: 'name', name: bracket });
    }
    if (steps.length > MAX_FORM_KEY_DEPTH) {
      throw badRequest(`The form key "${key.slice(0, 80)}" is nested too deeply: more than ${MAX_FORM_KEY_DEPTH} levels`);
    }
  }
  return steps;
}

function conflict(key: string): ServiceError {
  return badRequest(`The form key "${key.slice(0, 80)}" conflicts with another key of the form`);
}

function parseForm(text: string): unknown {
  const root: FormNode = { kind: 'object', children: new Map() };
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeComponent(eq === -1 ? '' : pair.slice(eq + 1));
    const steps = parseKey(key);
    let node: FormNode = root;
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i] as PathStep;
      const last = i === steps.length - 1;
      const nextStep = steps[i + 1];
      const fresh = (): FormNode =>
        last ? { kind: 'leaf', values: [] } : nextStep?.kind === 'index' ? { kind: 'array', children: new Map() } : { kind: 'object', children: new Map() };
      let child: FormNode | undefined;
      if (step.kind === 'name') {
        if (node.kind !== 'object') throw conflict(key);
        child = node.children.get(step.name);
        if (child === undefined) {
          child = fresh();
          node.children.set(step.name, child);
        }
      } else {
        if (node.kind !== 'array') throw conflict(key);
        child = node.children.get(step.index);
        if (child === undefined) {
          child = fresh();
          node.children.set(step.index, child);
        }
      }
      node = child;
    }
    if (node.kind !== 'leaf') throw conflict(key);
    node.values.push(value);
  }
  return formValue(root, 'form');
}

function formValue(node: FormNode, path: string): unknown {
  if (node.kind === 'leaf') return node.values.length === 1 ? node.values[0] : node.values;
  if (node.kind === 'object') {
    return Object.fromEntries([...node.children].map(([k, v]) => [k, formValue(v, `${path}.${k}`)]));
  }
  const size = node.children.size;
  const items: unknown[] = [];
  for (let i = 0; i < size; i++) {
    const child = node.children.get(i);
    if (child === undefined) throw badRequest(`The form array ${path.slice(5)} has a gap: index ${i} is missing`);
    items.push(formValue(child, `${path}[${i}]`));
  }
  return items;
}
