import type { ConfiguredRules } from '../model/desired.js';
import type { DictionaryDrift, Drift, DriftNote } from '../model/drift.js';
import { hasDrift } from '../model/drift.js';
import type { EntryChange } from '../model/plan.js';
import { displayPhrase } from './format-plan.js';

function q(text: string): string {
  return `"${displayPhrase(text)}"`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function entryLine(c: EntryChange): string {
  if (c.before === undefined) return `        + ${q(c.source)}: ${q(c.after ?? '')}`;
  if (c.after === undefined) return `        - ${q(c.source)}: ${q(c.before)}`;
  return `        ~ ${q(c.source)}: ${q(c.before)} → ${q(c.after)}`;
}

function counts(changes: readonly EntryChange[]): string {
  const added = changes.filter((c) => c.before === undefined).length;
  const removed = changes.filter((c) => c.after === undefined).length;
  const changed = changes.length - added - removed;
  return [changed > 0 ? `${changed} changed` : '', added > 0 ? `${added} added` : '', removed > 0 ? `${removed} removed` : ''].filter((s) => s !== '').join(', ');
}

function dictionaryLines(d: DictionaryDrift): string[] {
  const pair = `${d.sourceLang} → ${d.targetLang}`;
  if (d.action === 'add') return [`    + ${pair}: only on the service (${plural(d.entryChanges.length, 'entry', 'entries')})`, ...d.entryChanges.map(entryLine)];
  if (d.action === 'remove') return [`    - ${pair}: no longer on the service (the repository has ${plural(d.entryChanges.length, 'entry', 'entries')})`];
  const where = d.declared?.entriesFile === undefined ? 'inline entries' : displayPhrase(d.declared.entriesFile);
  return [`    ~ ${pair} (${where}): ${counts(d.entryChanges)} on the service`, ...d.entryChanges.map(entryLine)];
}

function flatten(rules: ConfiguredRules): Map<string, string> {
  const out = new Map<string, string>();
  for (const [category, byRule] of Object.entries(rules)) for (const [rule, option] of Object.entries(byRule)) out.set(`${category}.${rule}`, option);
  return out;
}

function ruleLines(before: ConfiguredRules, after: ConfiguredRules): string[] {
  const b = flatten(before);
  const a = flatten(after);
  const lines: string[] = [];
  for (const key of [...new Set([...b.keys(), ...a.keys()])].sort()) {
    const was = b.get(key);
    const now = a.get(key);
    if (was === now) continue;
    if (was === undefined) lines.push(`    + ${displayPhrase(key)} = ${displayPhrase(now ?? '')}`);
    else if (now === undefined) lines.push(`    - ${displayPhrase(key)} = ${displayPhrase(was)}`);
    else lines.push(`    ~ ${displayPhrase(key)}: ${displayPhrase(was)} → ${displayPhrase(now)}`);
  }
  return lines;
}

function noteLine(note: DriftNote): string {
  const kind = note.kind === 'glossary' ? 'glossary' : 'style rule list';
  return `  ${kind} ${q(note.name)}${note.file === undefined ? '' : ` (${displayPhrase(note.file)})`}: ${displayPhrase(note.reason)}`;
}

/** The drift, from the repository's point of view: what the service holds that the files lack, term by term. */
export function renderDriftText(drift: Drift, extraNotes: readonly DriftNote[] = []): string {
  const lines: string[] = [];
  if (hasDrift(drift)) {
    lines.push(`Drift on target "${displayPhrase(drift.target)}": the service holds edits the repository lacks.`, '');
    for (const g of drift.glossaries) {
      lines.push(`~ glossary ${q(g.declared.name)} (${displayPhrase(g.declared.origin.file)})`);
      for (const d of g.dictionaries) for (const line of dictionaryLines(d)) lines.push(line);
    }
    for (const s of drift.styleRules) {
      lines.push(`~ style rule list ${q(s.declared.name)} (${displayPhrase(s.declared.origin.file)})`);
      if (s.configuredRules !== undefined) lines.push(...ruleLines(s.configuredRules.before, s.configuredRules.after));
      for (const i of s.instructions) {
        const what = i.action === 'add' ? '+' : i.action === 'remove' ? '-' : '~';
        const why = i.action === 'change' ? (i.before?.prompt === i.after?.prompt ? ': source language changed' : ': prompt changed') : i.action === 'add' ? ': only on the service' : ': no longer on the service';
        lines.push(`    ${what} instruction ${q(i.label)}${why}`);
      }
    }
  } else {
    lines.push(`No drift on target "${displayPhrase(drift.target)}": the repository holds what the service has.`);
  }
  const notes = [...drift.skipped, ...extraNotes, ...drift.notOnService, ...drift.onlyOnService];
  if (notes.length > 0) lines.push('', 'Left alone:', ...notes.map(noteLine));
  if (hasDrift(drift)) {
    const terms = drift.glossaries.reduce((n, g) => n + g.dictionaries.reduce((m, d) => m + d.entryChanges.length, 0), 0);
    const parts = [
      drift.glossaries.length > 0 ? `${plural(terms, 'term change')} in ${plural(drift.glossaries.length, 'glossary', 'glossaries')}` : '',
      drift.styleRules.length > 0 ? plural(drift.styleRules.length, 'style rule list') : '',
    ].filter((p) => p !== '');
    lines.push('', `Drift: ${parts.join(', ')}.`);
  }
  return `${lines.join('\n')}\n`;
}
