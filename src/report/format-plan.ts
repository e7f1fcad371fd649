import { displayText } from '../lib/display.js';
import type { DictionaryChange, DuplicateGroup, EntryChange, LiveCopy, Plan, PlanSummary, ResourceAction, ResourceChange } from '../model/index.js';

/** Shared wording of the text and markdown renderers. */

export const NO_CHANGES = 'No changes. The service matches the repository.';

/** The line a plan of changed files only carries: how many glossaries it took as unchanged. */
export function notRefreshedLine(plan: Plan): string | undefined {
  const n = plan.notRefreshed ?? 0;
  if (n === 0) return undefined;
  return `${n} unchanged ${n === 1 ? 'resource was' : 'resources were'} not re-read; the scheduled drift check covers ${n === 1 ? 'it' : 'them'}.`;
}

export const ACTION_SYMBOL: Readonly<Record<ResourceAction, string>> = { create: '+', update: '~', delete: '-', replace: '-/+' };

const DICTIONARY_SYMBOL: Readonly<Record<DictionaryChange['action'], string>> = { create: '+', update: '~', delete: '-' };

/**
 * Text from the repository or the service in a report: the one display function (lib/display.ts),
 * so one value stays on one line and cannot start another.
 */
export const displayPhrase = displayText;

/**
 * Unicode spaces and invisible characters that look like a plain space or like nothing (NBSP, thin
 * and ideographic spaces, zero-width characters, soft hyphen, bidi controls, BOM).
 */
const INVISIBLE = /[\u00a0\u00ad\u180e\u2000-\u200f\u202a-\u202f\u205f-\u2064\u2066-\u2069\u3000\ufeff]/g;

/**
 * A term in a term diff: like `displayPhrase`, and also odd whitespace and invisible characters
 * shown as `\uXXXX`, so a change from a space to a no-break space is visible. Only for the term
 * diff shown to people; JSON keeps the terms as they are.
 */
export function displayTerm(phrase: string): string {
  return displayPhrase(phrase).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
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
  const total = d.added + d.changed + d.removed;
  return parts.length === 0 ? '0 entries' : `${parts.join(' ')} ${total === 1 ? 'entry' : 'entries'}`;
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
  const source = displayTerm(e.source);
  if (e.before === undefined) return `+ ${source} → ${displayTerm(e.after ?? '')}`;
  if (e.after === undefined) return `- ${source} → ${displayTerm(e.before)}`;
  return `~ ${source}: ${displayTerm(e.before)} → ${displayTerm(e.after)}`;
}

/** Diff lines (```diff): a changed term is a `-`/`+` pair. */
export function diffLines(e: EntryChange): string[] {
  const source = displayTerm(e.source);
  const lines: string[] = [];
  if (e.before !== undefined) lines.push(`- ${source} → ${displayTerm(e.before)}`);
  if (e.after !== undefined) lines.push(`+ ${source} → ${displayTerm(e.after)}`);
  return lines;
}

export function summaryLine(s: PlanSummary): string {
  return `Plan: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy.`;
}

/** Dictionaries deleted by the plan (alone, or with their glossary). */
export function deletedDictionaries(plan: Plan): number {
  return plan.changes.reduce((n, c) => n + c.dictionaries.filter((d) => d.action === 'delete').length, 0);
}

/** `2 written, 1 deleted` (a zero part left out; `0 written` when nothing). */
export function dictionaryCounts(plan: Plan): string {
  const deleted = deletedDictionaries(plan);
  const written = plan.summary.dictionaries - deleted;
  const parts = [...(written > 0 || deleted === 0 ? [`${written} written`] : []), ...(deleted > 0 ? [`${deleted} deleted`] : [])];
  return parts.join(', ');
}

export function dictionariesLine(plan: Plan): string {
  const s = plan.summary;
  return `Dictionaries: ${dictionaryCounts(plan)}; entries: +${s.entriesAdded} ~${s.entriesChanged} -${s.entriesRemoved}.`;
}

/** The upload counts entry bytes only (TSV of the entries sent), not the rest of the request bodies. */
export function uploadText(s: PlanSummary): string {
  return `${s.uploadBytes} ${s.uploadBytes === 1 ? 'byte' : 'bytes'} of entries to upload`;
}

export function callsText(s: PlanSummary): string {
  const methods = (['POST', 'PUT', 'PATCH', 'DELETE'] as const).filter((m) => s.calls[m] > 0).map((m) => `${s.calls[m]} ${m}`);
  return methods.length === 0 ? 'none' : methods.join(', ');
}

export function callsLine(s: PlanSummary): string {
  return `API calls: ${callsText(s)}; ${uploadText(s)}.`;
}

/** Anything deleted or replaced (resources, not dictionaries): a banner in markdown. */
/** The guard list: printed with the plan, and on stderr when apply prints no plan text. */
export function guardLines(plan: Plan): string[] {
  return plan.guards.map((g) => `  ✗ ${g.guard}: ${displayPhrase(g.message)}`);
}

export function destructiveChanges(changes: readonly ResourceChange[]): ResourceChange[] {
  return changes.filter((c) => c.action === 'delete' || c.action === 'replace');
}

const KEPT_BECAUSE: Readonly<Record<DuplicateGroup['keptBecause'], string>> = {
  ids_file: 'named by the ids file',
  matches: 'already matches the repository',
  oldest: 'the oldest',
};

/** `id g2 (v3, created 2026-01-02T00:00:00.000Z)` */
export function copyText(c: LiveCopy, show: (text: string) => string = displayPhrase): string {
  return `id ${show(c.id)} (${c.api === undefined ? '' : `${c.api}, `}created ${show(c.creationTime)})`;
}

/**
 * The summary's line about duplicates: `Duplicates: 2 live resources share 1 declared name; 1 is
 * kept of each, 1 deleted.` Undefined when there are none.
 */
export function duplicatesLine(plan: Plan): string | undefined {
  const groups = plan.duplicates ?? [];
  if (groups.length === 0) return undefined;
  const copies = groups.reduce((n, g) => n + 1 + g.remove.length, 0);
  const removed = copies - groups.length;
  return `Duplicates: ${copies} live resources share ${groups.length} declared ${groups.length === 1 ? 'name' : 'names'}; one of each name is kept, ${removed} ${removed === 1 ? 'is' : 'are'} deleted (counted by max_deletes).`;
}

/** One line per duplicated name: what is kept and why, what is deleted. */
export function duplicateGroupText(g: DuplicateGroup, show: (text: string) => string = displayPhrase): string {
  return `${g.kind === 'glossary' ? 'glossary' : 'style_rules'} "${show(g.name)}": keeps ${copyText(g.keep, show)}, ${KEPT_BECAUSE[g.keptBecause]}; deletes ${g.remove.map((c) => copyText(c, show)).join(', ')}`;
}
