import { Composer, CST, isAlias, isMap, isScalar, isSeq, LineCounter, Parser, visit, YAMLParseError, type Document, type Node } from 'yaml';
import { type Diagnostic, error, warning } from '../lib/diagnostics.js';

/** A parsed YAML file: the document (for positions), its plain value, and its line index. */
export interface YamlFile {
  readonly file: string;
  readonly doc: Document.Parsed;
  readonly value: Record<string, unknown>;
  readonly lineCounter: LineCounter;
}

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Aliases allowed when expanding a document: enough for real files, far too few for a "billion laughs". */
const MAX_ALIAS_COUNT = 100;

/**
 * Collections nested deeper than this are refused before the document is built. Resource files
 * nest about five levels; the limit keeps the recursive steps after parsing (composing, toJS,
 * checks) far from the call stack's end, whose size differs between the main thread and a worker:
 * without it, how a file fails would depend on the thread that read it.
 */
export const MAX_YAML_DEPTH = 64;

/** Offset of the first collection nested deeper than MAX_YAML_DEPTH, if any (no recursion here). */
function tooDeep(tokens: readonly CST.Token[]): number | undefined {
  const stack: [CST.Token, number][] = tokens.map((token) => [token, 0]);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [token, depth] = next;
    if (token.type === 'document') {
      if (token.value !== undefined) stack.push([token.value, depth]);
    } else if (CST.isCollection(token)) {
      if (depth + 1 > MAX_YAML_DEPTH) return token.offset;
      for (const item of token.items) {
        if (item.key) stack.push([item.key, depth + 1]);
        if (item.value) stack.push([item.value, depth + 1]);
      }
    }
  }
  return undefined;
}

const YAML_RULES: Record<string, string> = {
  MULTIPLE_DOCS: 'yaml/multiple-documents',
  DUPLICATE_KEY: 'yaml/duplicate-key',
};

/**
 * Parses one YAML file that must hold a single mapping. Every failure (not YAML, several
 * documents, empty, alias bomb, not a mapping) is a located diagnostic, never an exception.
 */
export function parseYamlFile(text: string, file: string): { yaml?: YamlFile; diagnostics: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const diagnostics: Diagnostic[] = [];
  const at = (offset: number | undefined): Position => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  // What yaml's parseDocument does, with a depth check between parsing (iterative) and composing.
  const tokens = [...new Parser(lineCounter.addNewLine).parse(text)];
  const deep = tooDeep(tokens);
  if (deep !== undefined) {
    const { line, column } = at(deep);
    diagnostics.push(error('yaml/too-deep', `YAML collections nested more than ${MAX_YAML_DEPTH} levels deep: refused (no resource needs this)`, file, line, column));
    return { diagnostics };
  }
  // logLevel 'error': yaml would print process warnings (e.g. on collection keys) to stderr; every
  // problem is reported as a diagnostic instead. uniqueKeys off: the library compares each key with
  // every earlier key of its mapping (quadratic: 80,000 inline entries took 26 s); duplicateKeys
  // below does the same check in linear time.
  let doc: Document.Parsed | undefined;
  for (const next of new Composer({ uniqueKeys: false, logLevel: 'error' }).compose(tokens, true, text.length)) {
    if (doc === undefined) doc = next;
    else {
      doc.errors.push(new YAMLParseError([next.range[0], next.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
      break;
    }
  }
  if (doc === undefined) throw new Error('yaml composed no document');
  for (const problem of doc.errors) {
    const { line, column } = at(problem.pos[0]);
    const code = YAML_RULES[problem.code] ?? 'yaml/syntax';
    const message =
      code === 'yaml/multiple-documents'
        ? 'a resource file holds one YAML document; this file has several (split it into one file per resource)'
        : `not valid YAML: ${firstLine(problem.message)}`;
    diagnostics.push(error(code, message, file, line, column));
  }
  if (doc.errors.length > 0) return { diagnostics };
  const duplicates = duplicateKeys(doc);
  if (duplicates.length > 0) {
    for (const duplicate of duplicates.slice(0, MAX_DUPLICATE_KEYS)) {
      const { line, column } = at(duplicate.offset);
      const more = duplicate === duplicates[MAX_DUPLICATE_KEYS - 1] && duplicates.length > MAX_DUPLICATE_KEYS ? ` (and ${duplicates.length - MAX_DUPLICATE_KEYS} more duplicate keys after this one)` : '';
      diagnostics.push(error('yaml/duplicate-key', `duplicate key ${duplicate.shown}: it is already on line ${at(duplicate.firstOffset).line} of the same mapping, and each key may appear once${more}`, file, line, column));
    }
    return { diagnostics };
  }
  for (const problem of doc.warnings) {
    const { line, column } = at(problem.pos[0]);
    diagnostics.push(warning('yaml/warning', firstLine(problem.message), file, line, column));
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    diagnostics.push(error('yaml/empty', 'the file is empty: expected a YAML mapping (e.g. `kind: glossary`)', file, 1, 1));
    return { diagnostics };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (caught) {
    if (!(caught instanceof ReferenceError)) throw caught;
    const { line, column } = at(firstAliasOffset(doc));
    diagnostics.push(error('yaml/alias-bomb', `too many YAML alias expansions (more than ${MAX_ALIAS_COUNT}): refused as a resource-exhaustion risk`, file, line, column));
    return { diagnostics };
  }
  if (!isMap(doc.contents) || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const { line, column } = at(doc.contents.range?.[0]);
    diagnostics.push(error('yaml/not-a-mapping', 'expected a YAML mapping of fields (`key: value` lines) at the top of the file', file, line, column));
    return { diagnostics };
  }
  return { yaml: { file, doc, value: value as Record<string, unknown>, lineCounter }, diagnostics };
}

/** How a key is compared: scalars by value (as the YAML library does: `1` and `"1"` differ), other keys never equal. */
function keyIdentity(key: unknown): unknown {
  if (isScalar(key)) return key.value;
  return key; // a collection or alias key: only equal to itself
}

/** Duplicate keys reported one by one per file; a file with more says how many. */
const MAX_DUPLICATE_KEYS = 20;

interface DuplicateKey {
  readonly offset: number;
  readonly firstOffset: number;
  readonly shown: string;
}

/**
 * Every key that repeats an earlier key of the same mapping: one map of keys per mapping, so
 * linear in the size of the document. No recursion (the depth is bounded anyway).
 */
function duplicateKeys(doc: Document.Parsed): DuplicateKey[] {
  const stack: unknown[] = [doc.contents];
  const found: DuplicateKey[] = [];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Map<unknown, number>();
      for (const pair of node.items) {
        const identity = keyIdentity(pair.key);
        const offset = (pair.key as Node | null)?.range?.[0] ?? 0;
        const first = seen.get(identity);
        if (first === undefined) seen.set(identity, offset);
        // The merge key `<<` may repeat (each merges another mapping).
        else if (!(isScalar(pair.key) && pair.key.value === '<<')) found.push({ offset, firstOffset: first, shown: isScalar(pair.key) ? showKey(pair.key.value) : 'key' });
      }
      for (let i = node.items.length - 1; i >= 0; i--) {
        const pair = node.items[i];
        if (pair?.value) stack.push(pair.value);
        if (pair?.key) stack.push(pair.key);
      }
    } else if (isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

function showKey(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length > 60 ? `${JSON.stringify(text.slice(0, 57))}…` : JSON.stringify(text);
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

function firstAliasOffset(doc: Document.Parsed): number {
  let offset = 0;
  visit(doc, {
    Alias(_key, node) {
      offset = node.range?.[0] ?? 0;
      return visit.BREAK;
    },
  });
  return offset;
}

function keyName(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/**
 * Position of the value (or, with `key`, of the key) at `path` in the document. A path that does
 * not exist points at the deepest node that does, e.g. the mapping a required field is missing from.
 */
export function positionAt(yaml: YamlFile, path: readonly PropertyKey[], which: 'value' | 'key' = 'value'): Position {
  let node: unknown = yaml.doc.contents;
  let offset = (yaml.doc.contents as Node | null)?.range?.[0] ?? 0;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    if (isAlias(node)) break;
    if (isMap(node)) {
      const pair = node.items.find((p) => keyName(p.key) === String(segment));
      if (pair === undefined) break;
      const target = last && which === 'key' ? pair.key : (pair.value ?? pair.key);
      const range = (target as Node | null)?.range;
      if (range) offset = range[0];
      node = target;
    } else if (isSeq(node)) {
      const item: unknown = node.items[Number(segment)];
      if (item === undefined) break;
      const range = (item as Node).range;
      if (range) offset = range[0];
      node = item;
    } else break;
  }
  const pos = yaml.lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** Position of a node of the document (or the file start when it has none). */
export function positionOfNode(yaml: YamlFile, node: unknown): Position {
  const range = (node as Node | null)?.range;
  const pos = yaml.lineCounter.linePos(range?.[0] ?? 0);
  return { line: pos.line, column: pos.col };
}
