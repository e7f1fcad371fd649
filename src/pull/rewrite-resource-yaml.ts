import { diffArrays } from 'diff';
import { isMap, isScalar, isSeq, parseDocument, YAMLMap, YAMLSeq, type Document, type ToStringOptions } from 'yaml';
import { canonicalLang, canonicalPhrase } from '../lib/canonical.js';
import type { ConfiguredRules } from '../model/desired.js';
import type { InstructionDrift } from '../model/drift.js';
import type { Entries, LanguagePair } from '../model/entries.js';

/** What pull changes in a glossary's resource file. */
export interface GlossaryYamlEdit {
  readonly kind: 'glossary';
  /** Dictionaries with inline `entries` that the service changed: they get exactly `live`. */
  readonly inline: readonly { readonly pair: LanguagePair; readonly live: Entries }[];
  /** Dictionaries the service no longer has. */
  readonly remove: readonly LanguagePair[];
  /** Dictionaries only the service has: inline `entries`, or an `entries_file` (relative to the resource file). */
  readonly add: readonly { readonly pair: LanguagePair; readonly entries?: Entries; readonly entriesFile?: string }[];
}

/** What pull changes in a style rule list's resource file. */
export interface StyleRulesYamlEdit {
  readonly kind: 'style_rules';
  /** The service's configured rules, when they differ. */
  readonly configuredRules?: ConfiguredRules;
  readonly instructions: readonly InstructionDrift[];
}

export type ResourceYamlEdit = GlossaryYamlEdit | StyleRulesYamlEdit;

/**
 * Ways to print a document back. The first that reproduces the unedited file exactly is used, so
 * the only lines that change are those pull edits (no line folding, the file's own list indentation
 * and flow-collection spacing).
 */
const PRINT_OPTIONS: readonly ToStringOptions[] = [
  { lineWidth: 0 },
  { lineWidth: 0, flowCollectionPadding: false },
  { lineWidth: 0, indentSeq: false },
  { lineWidth: 0, indentSeq: false, flowCollectionPadding: false },
];

function printOptions(doc: Document, text: string): ToStringOptions {
  return PRINT_OPTIONS.find((options) => doc.toString(options) === text) ?? (PRINT_OPTIONS[0] as ToStringOptions);
}

function textOf(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
}

/** Sets a scalar's value in place (its quoting style kept where the new text allows it), or a new value. */
function setValue(doc: Document, map: YAMLMap, key: string, value: string): void {
  const pair = map.items.find((p) => textOf(p.key) === key);
  if (pair === undefined) map.add(doc.createPair(key, value));
  else if (isScalar(pair.value)) pair.value.value = value;
  else pair.value = doc.createNode(value);
}

function deleteKey(map: YAMLMap, key: string): void {
  const index = map.items.findIndex((p) => textOf(p.key) === key);
  if (index !== -1) map.items.splice(index, 1);
}

function dictionaryItems(doc: Document): YAMLSeq | undefined {
  const seq = doc.get('dictionaries', true);
  return isSeq(seq) ? seq : undefined;
}

function isPair(item: unknown, pair: LanguagePair): item is YAMLMap {
  return (
    isMap(item) &&
    canonicalLang(textOf(item.get('source_lang', true)) ?? '') === canonicalLang(pair.sourceLang) &&
    canonicalLang(textOf(item.get('target_lang', true)) ?? '') === canonicalLang(pair.targetLang)
  );
}

/** Inline entries made equal to `live`: values changed in place, removed pairs deleted, new ones appended. */
function editInlineEntries(doc: Document, map: YAMLMap, live: Entries): void {
  const seen = new Set<string>();
  map.items = map.items.filter((pair) => {
    const source = canonicalPhrase(textOf(pair.key) ?? '');
    const target = live.get(source);
    if (target === undefined || seen.has(source)) return false;
    seen.add(source);
    if (canonicalPhrase(textOf(pair.value) ?? '') !== target) {
      if (isScalar(pair.value)) pair.value.value = target;
      else pair.value = doc.createNode(target);
    }
    return true;
  });
  for (const [source, target] of live) if (!seen.has(source)) map.add(doc.createPair(source, target));
}

function entriesMap(doc: Document, entries: Entries): YAMLMap {
  const map = new YAMLMap();
  for (const [source, target] of entries) map.add(doc.createPair(source, target));
  return map;
}

function editGlossary(doc: Document, edit: GlossaryYamlEdit): void {
  const seq = dictionaryItems(doc);
  if (seq === undefined) return;
  for (const { pair, live } of edit.inline) {
    const entries = seq.items.find((item) => isPair(item, pair))?.get('entries', true);
    if (isMap(entries)) editInlineEntries(doc, entries, live);
  }
  seq.items = seq.items.filter((item) => !edit.remove.some((pair) => isPair(item, pair)));
  for (const added of edit.add) {
    const item = new YAMLMap();
    item.add(doc.createPair('source_lang', canonicalLang(added.pair.sourceLang)));
    item.add(doc.createPair('target_lang', canonicalLang(added.pair.targetLang)));
    if (added.entriesFile !== undefined) item.add(doc.createPair('entries_file', added.entriesFile));
    else item.add(doc.createPair('entries', entriesMap(doc, added.entries ?? new Map())));
    seq.add(item);
  }
}

function editConfiguredRules(doc: Document, rules: ConfiguredRules): void {
  const node = doc.get('configured_rules', true);
  if (!isMap(node)) {
    doc.set('configured_rules', doc.createNode(rules));
    return;
  }
  node.items = node.items.filter((p) => Object.hasOwn(rules, textOf(p.key) ?? ''));
  for (const [category, options] of Object.entries(rules)) {
    const existing = node.items.find((p) => textOf(p.key) === category);
    if (existing === undefined || !isMap(existing.value)) {
      const map = new YAMLMap();
      for (const [rule, option] of Object.entries(options)) map.add(doc.createPair(rule, option));
      if (existing === undefined) node.add(doc.createPair(category, map));
      else existing.value = map;
      continue;
    }
    const map = existing.value;
    map.items = map.items.filter((p) => Object.hasOwn(options, textOf(p.key) ?? ''));
    for (const [rule, option] of Object.entries(options)) if (textOf(map.get(rule, true)) !== option) setValue(doc, map, rule, option);
  }
}

function editInstructions(doc: Document, instructions: readonly InstructionDrift[]): void {
  let seq = doc.get('custom_instructions', true);
  if (!isSeq(seq)) {
    if (!instructions.some((i) => i.action === 'add')) return;
    seq = new YAMLSeq();
    doc.set('custom_instructions', seq);
  }
  const list = seq as YAMLSeq;
  const labelOf = (item: unknown): string | undefined => (isMap(item) ? textOf(item.get('label', true)) : undefined);
  const removed = new Set(instructions.filter((i) => i.action === 'remove').map((i) => i.label));
  list.items = list.items.filter((item) => !removed.has(labelOf(item) ?? '\0'));
  for (const drift of instructions) {
    const after = drift.after;
    if (after === undefined) continue;
    if (drift.action === 'change') {
      const item = list.items.find((i) => labelOf(i) === drift.label);
      if (!isMap(item)) continue;
      if (textOf(item.get('prompt', true)) !== after.prompt) setValue(doc, item, 'prompt', after.prompt);
      if (after.sourceLanguage !== undefined) {
        if (canonicalLang(textOf(item.get('source_language', true)) ?? '') !== canonicalLang(after.sourceLanguage)) setValue(doc, item, 'source_language', after.sourceLanguage);
      } else deleteKey(item, 'source_language');
    } else if (drift.action === 'add') {
      const item = new YAMLMap();
      item.add(doc.createPair('label', after.label));
      item.add(doc.createPair('prompt', after.prompt));
      if (after.sourceLanguage !== undefined) item.add(doc.createPair('source_language', after.sourceLanguage));
      list.add(item);
    }
  }
}

/**
 * The printer normalises some spacing (the gap before a trailing comment, for one), so the lines
 * an edit did not touch are taken from the original: the printed document before and after the
 * edit are compared line by line (a diff), and every line they share comes from the file as it
 * was. When the printer moved lines (a different line count), its output is used as is.
 */
function keepUntouchedLines(original: string, before: string, after: string): string {
  if (before === original) return after;
  const o = original.split('\n');
  const b = before.split('\n');
  if (o.length !== b.length) return after;
  const out: string[] = [];
  let at = 0;
  for (const part of diffArrays(b, after.split('\n'))) {
    if (part.added) for (const line of part.value) out.push(line);
    else if (part.removed) at += part.value.length;
    else {
      for (let i = at; i < at + part.value.length; i++) out.push(o[i] as string);
      at += part.value.length;
    }
  }
  return out.join('\n');
}

/**
 * A resource file with pull's edits, through the yaml library's document API: comments, key order,
 * quoting, line breaks and every line pull does not touch stay as they were.
 */
export function rewriteResourceYaml(text: string, edit: ResourceYamlEdit): string {
  const crlf = text.includes('\r\n');
  const original = crlf ? text.replace(/\r\n/g, '\n') : text;
  const doc = parseDocument(original, { logLevel: 'error' });
  const options = printOptions(doc, original);
  const before = doc.toString(options);
  if (edit.kind === 'glossary') editGlossary(doc, edit);
  else {
    if (edit.configuredRules !== undefined) editConfiguredRules(doc, edit.configuredRules);
    editInstructions(doc, edit.instructions);
  }
  const result = keepUntouchedLines(original, before, doc.toString(options));
  return crlf ? result.replace(/\n/g, '\r\n') : result;
}
