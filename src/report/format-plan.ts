import type { DictionaryChange, EntryChange, PlanSummary, ResourceAction, ResourceChange } from '../model/index.js';

/** Shared wording of the text and markdown renderers. */

export const NO_CHANGES = 'No changes. The service matches the repository.';

export const ACTION_SYMBOL: Readonly<Record<ResourceAction, string>> = { create: '+', update: '~', delete: '-', replace: '-/+' };

const DICTIONARY_SYMBOL: Readonly<Record<DictionaryChange['action'], string>> = { create: '+', update: '~', delete: '-' };

/** Control characters (tabs, newlines, ...) shown as escapes, so one term stays on one line. */
export function displayPhrase(phrase: string): string {
  // eslint-disable-next-line no-control-regex
  return phrase.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

export function kindLabel(change: ResourceChange): string {
  return change.address.kind === 'glossary' ? 'glossary' : 'style_rules';
}

/** `+12 ~1 -3 entries` (zero counts left out). */
export function entryCounts(d: { readonly added: number; readonly changed: number; readonly removed: number }): string {
  const parts: string[] = [];
  if (d.added > 0) parts.push(`+${d.added}`);
  if (d.changed > 0) parts.push(`~${d.changed}`);
  if (d.removed > 0) parts.push(`-${d.removed}`);
  return parts.length === 0 ? '0 entries' : `${parts.join(' ')} entries`;
}

export function pairLabel(d: { readonly sourceLang: string; readonly targetLang: string }): string {
  return `${d.sourceLang}-${d.targetLang}`;
}

/** `~ en-de  +12 ~1 -3 entries (PATCH)` */
export function dictionaryLine(d: DictionaryChange): string {
  return `${DICTIONARY_SYMBOL[d.action]} ${pairLabel(d)}  ${entryCounts(d)} (${d.method})`;
}

/** Text lines of term changes: `+ s → t`, `~ s: a → b`, `- s → t`. */
export function termLine(e: EntryChange): string {
  const source = displayPhrase(e.source);
  if (e.before === undefined) return `+ ${source} → ${displayPhrase(e.after ?? '')}`;
  if (e.after === undefined) return `- ${source} → ${displayPhrase(e.before)}`;
  return `~ ${source}: ${displayPhrase(e.before)} → ${displayPhrase(e.after)}`;
}

/** Diff lines (```diff): a changed term is a `-`/`+` pair. */
export function diffLines(e: EntryChange): string[] {
  const source = displayPhrase(e.source);
  const lines: string[] = [];
  if (e.before !== undefined) lines.push(`- ${source} → ${displayPhrase(e.before)}`);
  if (e.after !== undefined) lines.push(`+ ${source} → ${displayPhrase(e.after)}`);
  return lines;
}

export function summaryLine(s: PlanSummary): string {
  return `Plan: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy.`;
}

export function dictionariesLine(s: PlanSummary): string {
  return `Dictionaries: ${s.dictionaries} written; entries: +${s.entriesAdded} ~${s.entriesChanged} -${s.entriesRemoved}.`;
}

export function callsText(s: PlanSummary): string {
  const methods = (['POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => s.calls[m] > 0).map((m) => `${s.calls[m]} ${m}`);
  return methods.length === 0 ? 'none' : methods.join(', ');
}

export function callsLine(s: PlanSummary): string {
  return `API calls: ${callsText(s)}; ${s.uploadBytes} bytes to upload.`;
}

/** Anything deleted or replaced (resources, not dictionaries): a banner in markdown. */
export function destructiveChanges(changes: readonly ResourceChange[]): ResourceChange[] {
  return changes.filter((c) => c.action === 'delete' || c.action === 'replace');
}
