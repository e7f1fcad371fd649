import { canonicalLang, pairKey } from '../lib/canonical.js';
import type { DesiredState, DesiredStyleRules } from '../model/desired.js';
import type { DictionaryDrift, Drift, DriftNote, GlossaryDrift, InstructionDrift, StyleRulesDrift } from '../model/drift.js';
import type { Entries } from '../model/entries.js';
import type { LiveGlossary, LiveState, LiveStyleRules } from '../model/live.js';
import { compareStrings } from '../plan/compare-strings.js';
import { dictionaryKey } from '../lib/canonical.js';
import { diffEntries } from '../plan/diff-entries.js';
import { matchGlossaries, matchStyleRules } from '../plan/match-live.js';
import { v2Equals, type EntriesOf } from '../plan/plan-glossary.js';
import { rulesEqual, styleRulesEqual } from '../plan/plan-style-rules.js';

const EMPTY: Entries = new Map();

/** The live dictionaries of the glossaries a repository declares: what `pull` must read. */
export function dictionariesToPull(desired: DesiredState, glossaries: readonly LiveGlossary[]): { glossaryId: string; api: LiveGlossary['api']; sourceLang: string; targetLang: string }[] {
  return matchGlossaries(desired.glossaries, glossaries)
    .matches.flatMap((m) => (m.current === undefined ? [] : [m.current]))
    .flatMap((g) => g.dictionaries.map((d) => ({ glossaryId: g.id, api: g.api, sourceLang: d.sourceLang, targetLang: d.targetLang })));
}

function glossaryDrift(match: { desired: DesiredState['glossaries'][number]; current: LiveGlossary }, entriesOf: EntriesOf): GlossaryDrift | DriftNote {
  const { desired: d, current: g } = match;
  if (d.api !== g.api) {
    return { kind: 'glossary', name: d.name, file: d.origin.file, reason: `the service holds a ${g.api} glossary of this name, the repository declares ${d.api}: apply replaces it` };
  }
  const declared = new Map(d.dictionaries.map((dict) => [pairKey(dict), dict]));
  const live = new Map(g.dictionaries.map((dict) => [pairKey(dict), dict]));
  const dictionaries: DictionaryDrift[] = [];
  for (const pair of [...new Set([...declared.keys(), ...live.keys()])].sort(compareStrings)) {
    const want = declared.get(pair);
    const have = live.get(pair);
    const langs = { sourceLang: canonicalLang((want ?? have)?.sourceLang ?? ''), targetLang: canonicalLang((want ?? have)?.targetLang ?? '') };
    if (have === undefined) {
      if (want === undefined) continue;
      const entryChanges = diffEntries(EMPTY, want.entries).entryChanges;
      dictionaries.push({ ...langs, action: 'remove', declared: want, entryChanges });
      continue;
    }
    const entries = entriesOf(g, have) ?? EMPTY;
    if (want === undefined) {
      dictionaries.push({ ...langs, action: 'add', live: entries, entryChanges: diffEntries(entries, EMPTY).entryChanges });
      continue;
    }
    const diff = diffEntries(entries, want.entries);
    if (diff.entryChanges.length > 0) dictionaries.push({ ...langs, action: 'update', declared: want, live: entries, entryChanges: diff.entryChanges });
  }
  return { declared: d, liveId: g.id, dictionaries };
}

function sameLanguage(a: string | undefined, b: string | undefined): boolean {
  return canonicalLang(a ?? '') === canonicalLang(b ?? '');
}

function styleRulesDrift(d: DesiredStyleRules, s: LiveStyleRules): StyleRulesDrift | DriftNote | undefined {
  if (!sameLanguage(d.language, s.language)) {
    return { kind: 'style_rules', name: d.name, file: d.origin.file, reason: `the service's list is for ${s.language}, the repository's for ${d.language}: apply replaces it` };
  }
  if (styleRulesEqual({ ...d, name: s.name }, s)) return undefined;
  const instructions: InstructionDrift[] = [];
  const live = new Map(s.customInstructions.map((i) => [i.label, i]));
  for (const i of d.customInstructions) {
    const l = live.get(i.label);
    const before = { prompt: i.prompt, ...(i.sourceLanguage === undefined ? {} : { sourceLanguage: i.sourceLanguage }) };
    if (l === undefined) instructions.push({ label: i.label, action: 'remove', before });
    // An undeclared source language is whatever the service chose (as in the plan): not drift.
    else if (l.prompt !== i.prompt || (i.sourceLanguage !== undefined && !sameLanguage(l.sourceLanguage, i.sourceLanguage))) instructions.push({ label: i.label, action: 'change', before, after: l });
  }
  const declared = new Set(d.customInstructions.map((i) => i.label));
  for (const l of s.customInstructions) if (!declared.has(l.label)) instructions.push({ label: l.label, action: 'add', after: l });
  const rules = rulesEqual(d.configuredRules, s.configuredRules) ? {} : { configuredRules: { before: d.configuredRules, after: s.configuredRules } };
  if (instructions.length === 0 && rules.configuredRules === undefined) return undefined;
  return { declared: d, liveId: s.id, ...rules, instructions };
}

function isNote(value: object): value is DriftNote {
  return 'reason' in value;
}

/**
 * What the service holds that the repository lacks (pure): per declared resource that has a live
 * counterpart, the entries, dictionaries, configured rules and instructions that differ. Names are
 * identity, so a renamed resource (`renamed_from`) keeps its declared name. `live.entries` must
 * hold every dictionary of the matched glossaries (see dictionariesToPull).
 */
export function createDrift(target: string, desired: DesiredState, live: LiveState): Drift {
  const entriesOf: EntriesOf = (g, dict) => live.entries.get(dictionaryKey(g.id, dict.sourceLang, dict.targetLang));
  const glossaries: GlossaryDrift[] = [];
  const styleRules: StyleRulesDrift[] = [];
  const notOnService: DriftNote[] = [];
  const skipped: DriftNote[] = [];
  const glossaryMatching = matchGlossaries(desired.glossaries, live.glossaries, (d, g) => v2Equals(d, g, entriesOf));
  for (const match of glossaryMatching.matches) {
    const d = match.desired;
    if (match.current === undefined) {
      notOnService.push({ kind: 'glossary', name: d.name, file: d.origin.file, reason: 'not on the service: apply creates it (delete its file to adopt a deletion made on the service)' });
      continue;
    }
    const drift = glossaryDrift({ desired: d, current: match.current }, entriesOf);
    if (isNote(drift)) skipped.push(drift);
    else if (drift.dictionaries.length > 0) glossaries.push(drift);
    if (match.current.name !== d.name) {
      skipped.push({ kind: 'glossary', name: d.name, file: d.origin.file, reason: `the service still calls it "${match.current.name}" (renamed_from): apply renames it` });
    }
  }
  const styleMatching = matchStyleRules(desired.styleRules, live.styleRules, styleRulesEqual);
  for (const match of styleMatching.matches) {
    const d = match.desired;
    if (match.current === undefined) {
      notOnService.push({ kind: 'style_rules', name: d.name, file: d.origin.file, reason: 'not on the service: apply creates it (delete its file to adopt a deletion made on the service)' });
      continue;
    }
    const drift = styleRulesDrift(d, match.current);
    if (drift !== undefined && isNote(drift)) skipped.push(drift);
    else if (drift !== undefined) styleRules.push(drift);
    if (match.current.name !== d.name) {
      skipped.push({ kind: 'style_rules', name: d.name, file: d.origin.file, reason: `the service still calls it "${match.current.name}" (renamed_from): apply renames it` });
    }
  }
  const onlyOnService: DriftNote[] = [
    ...glossaryMatching.unclaimed.map((g): DriftNote => ({ kind: 'glossary', name: g.name, reason: 'only on the service: `termsync import` writes its files' })),
    ...styleMatching.unclaimed.map((s): DriftNote => ({ kind: 'style_rules', name: s.name, reason: 'only on the service: `termsync import` writes its files' })),
  ];
  return { target, glossaries, styleRules, notOnService, onlyOnService, skipped };
}
