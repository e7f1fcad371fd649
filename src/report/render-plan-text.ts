import type { Plan, ResourceChange } from '../model/index.js';
import {
  ACTION_SYMBOL,
  NO_CHANGES,
  callsLine,
  dictionariesLine,
  dictionaryLine,
  displayPhrase,
  duplicateGroupText,
  duplicatesLine,
  guardLines,
  kindLabel,
  notRefreshedLine,
  summaryLine,
  termLine,
} from './format-plan.js';

export interface PlanTextOptions {
  /** Term changes shown per dictionary (default 10); the rest is counted. */
  readonly maxTermsPerDictionary?: number;
}

function kindName(kind: string): string {
  return kind === 'glossary' ? 'glossary' : 'style_rules';
}

function header(change: ResourceChange): string {
  const facts = [change.api, change.liveId === undefined ? undefined : `id ${displayPhrase(change.liveId)}`].filter((f) => f !== undefined);
  const suffix = facts.length === 0 ? '' : ` (${facts.join(', ')})`;
  return `${ACTION_SYMBOL[change.action]} ${kindLabel(change)} "${displayPhrase(change.address.name)}"${suffix}`;
}

function renderChange(change: ResourceChange, maxTerms: number): string[] {
  const lines = [`  ${header(change)}`];
  for (const reason of change.reasons) lines.push(`      # ${displayPhrase(reason)}`);
  for (const detail of change.details) lines.push(`      ${displayPhrase(detail)}`);
  for (const dict of change.dictionaries) {
    lines.push(`      ${dictionaryLine(dict)}`);
    const shown = dict.entryChanges.slice(0, maxTerms);
    for (const e of shown) lines.push(`          ${termLine(e)}`);
    const rest = dict.entryChanges.length - shown.length;
    if (rest > 0) lines.push(`          … and ${rest} more`);
  }
  return lines;
}

/** Terraform-style text: resources, then the summary lines, then what is not managed and any guard violations. */
export function renderPlanText(plan: Plan, options: PlanTextOptions = {}): string {
  const maxTerms = Math.max(0, options.maxTermsPerDictionary ?? 10);
  const lines: string[] = [];
  if (plan.changes.length === 0) {
    lines.push(NO_CHANGES);
  } else {
    lines.push(`termsync will perform the following actions on target "${displayPhrase(plan.target)}":`, '');
    for (const change of plan.changes) lines.push(...renderChange(change, maxTerms), '');
    lines.push(summaryLine(plan.summary), dictionariesLine(plan), callsLine(plan.summary));
    const duplicates = duplicatesLine(plan);
    if (duplicates !== undefined) lines.push(duplicates);
  }
  const notRefreshed = notRefreshedLine(plan);
  if (notRefreshed !== undefined) lines.push(notRefreshed);
  if (plan.duplicates !== undefined && plan.duplicates.length > 0) {
    lines.push('', 'Duplicates (live resources that share a declared name):');
    for (const g of plan.duplicates) lines.push(`  ${duplicateGroupText(g)}`);
  }
  if (plan.warnings !== undefined && plan.warnings.length > 0) {
    lines.push('', 'Warnings:');
    for (const w of plan.warnings) lines.push(`  ! ${kindName(w.resource.kind)} "${displayPhrase(w.resource.name)}": ${displayPhrase(w.message)}`);
  }
  if (plan.notManaged.length > 0) {
    lines.push('', 'Not managed by this repository (left alone):');
    for (const r of plan.notManaged) lines.push(`  ${r.kind} "${displayPhrase(r.name)}" (id ${displayPhrase(r.id)})`);
  }
  if (plan.guards.length > 0) {
    lines.push('', 'Guard violations (nothing will be applied):');
    lines.push(...guardLines(plan));
  }
  return `${lines.join('\n')}\n`;
}
