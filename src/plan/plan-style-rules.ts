import { canonicalLang } from '../lib/canonical.js';
import type {
  CapabilitySetting,
  ConfiguredRules,
  DesiredInstruction,
  DesiredStyleRules,
  LiveInstruction,
  LiveStyleRules,
  ResourceAddress,
  StyleRulesPayload,
} from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import type { DraftChange, DraftOperation, Refs } from './draft.js';
import { keptReason, type Match } from './match-live.js';

function flattenRules(rules: ConfiguredRules): Map<string, string> {
  const out = new Map<string, string>();
  for (const [category, byRule] of Object.entries(rules)) for (const [rule, option] of Object.entries(byRule)) out.set(`${category}.${rule}`, option);
  return out;
}

/** Per-rule differences for people: `+ a.b = x`, `~ a.b: x → y`, `- a.b = x`. */
function diffRules(want: ConfiguredRules, have: ConfiguredRules): string[] {
  const w = flattenRules(want);
  const h = flattenRules(have);
  const out: [string, string][] = [];
  for (const [key, option] of w) {
    const before = h.get(key);
    if (before === undefined) out.push([key, `+ ${key} = ${option}`]);
    else if (before !== option) out.push([key, `~ ${key}: ${before} → ${option}`]);
  }
  for (const [key, option] of h) if (!w.has(key)) out.push([key, `- ${key} = ${option}`]);
  // Empty categories carry no rule but still differ on the service.
  const wantCats = Object.keys(want).filter((c) => Object.keys(want[c] ?? {}).length === 0);
  const haveCats = Object.keys(have).filter((c) => Object.keys(have[c] ?? {}).length === 0);
  for (const c of wantCats) if (!haveCats.includes(c)) out.push([c, `+ ${c} (empty category)`]);
  for (const c of haveCats) if (!wantCats.includes(c)) out.push([c, `- ${c} (empty category)`]);
  return out.sort((a, b) => compareStrings(a[0], b[0])).map(([, line]) => line);
}

function sameSourceLanguage(a: string | undefined, b: string | undefined): boolean {
  return canonicalLang(a ?? '') === canonicalLang(b ?? '');
}

function instructionBody(i: DesiredInstruction): { label: string; prompt: string; sourceLanguage?: string } {
  return { label: i.label, prompt: i.prompt, ...(i.sourceLanguage === undefined ? {} : { sourceLanguage: i.sourceLanguage }) };
}

const REPLACE = 'replace (create new, then delete old)';

/**
 * Why the list cannot be edited in place: the language changed, an instruction appears twice on
 * the service, or a declared source language differs (no endpoint changes these). `removed`: live
 * instructions the repository no longer declares: a replace too, unless the target can delete one.
 */
function replaceReasons(d: DesiredStyleRules, s: LiveStyleRules): { reasons: string[]; removed: LiveInstruction[] } {
  const reasons: string[] = [];
  const removed: LiveInstruction[] = [];
  if (canonicalLang(d.language) !== canonicalLang(s.language)) reasons.push(`language changed from ${s.language} to ${d.language} → ${REPLACE}`);
  const desiredByLabel = new Map(d.customInstructions.map((i) => [i.label, i]));
  const seen = new Set<string>();
  for (const live of [...s.customInstructions].sort((a, b) => compareStrings(a.label, b.label))) {
    const want = desiredByLabel.get(live.label);
    if (want === undefined) removed.push(live);
    else if (seen.has(live.label)) reasons.push(`instruction "${live.label}" appears twice on the service → ${REPLACE}`);
    // An instruction declared without `source_language` takes whatever the service chose (a
    // server may fill it in, e.g. with the list's language): compared only when declared.
    else if (want.sourceLanguage !== undefined && !sameSourceLanguage(want.sourceLanguage, live.sourceLanguage)) {
      reasons.push(`instruction "${live.label}": source_language changed from ${live.sourceLanguage ?? '(none)'} to ${want.sourceLanguage} → ${REPLACE}`);
    }
    seen.add(live.label);
  }
  return { reasons: [...new Set(reasons)], removed };
}

/** The reasons of a replace: the hard ones, then each removed instruction. */
function allReplaceReasons(found: { reasons: string[]; removed: LiveInstruction[] }, setting: CapabilitySetting): string[] {
  const why = setting === 'no' ? ' (capabilities.delete_custom_instruction: no)' : '';
  return [...found.reasons, ...[...new Set(found.removed.map((i) => i.label))].map((label) => `instruction "${label}" removed → ${REPLACE}${why}`)];
}

export function rulesEqual(a: ConfiguredRules, b: ConfiguredRules): boolean {
  return diffRules(a, b).length === 0;
}

/** Whether a live list already is the declared one. */
export function styleRulesEqual(d: DesiredStyleRules, s: LiveStyleRules): boolean {
  const replace = replaceReasons(d, s);
  if (d.name !== s.name || replace.reasons.length > 0 || replace.removed.length > 0 || !rulesEqual(d.configuredRules, s.configuredRules)) return false;
  const live = new Map(s.customInstructions.map((i) => [i.label, i]));
  return d.customInstructions.every((i) => live.get(i.label)?.prompt === i.prompt);
}

function payloadOf(d: DesiredStyleRules): StyleRulesPayload {
  return { name: d.name, language: canonicalLang(d.language), configuredRules: d.configuredRules, customInstructions: d.customInstructions.map(instructionBody) };
}

/**
 * `deleteInstruction`: the target's `capabilities.delete_custom_instruction`. Unless `no`, a list
 * that differs only by removed instructions (and in-place edits) keeps its id: each removed one is
 * deleted by its own route (with `auto`, falling back to a replace where the service lacks it).
 */
export function planStyleRules(match: Match<DesiredStyleRules, LiveStyleRules>, refs: Refs, deleteInstruction: CapabilitySetting = 'auto'): DraftChange[] {
  const { desired: d, current: s } = match;
  const address: ResourceAddress = { kind: 'style_rules', name: d.name };
  const create = (): DraftOperation => refs.op({ type: 'style_rules.create', resource: address, ...payloadOf(d) });
  let main: DraftChange | undefined;
  if (s === undefined) {
    const reasons = ['not on the service → create'];
    if (d.renamedFrom !== undefined) reasons.push(`renamed from "${d.renamedFrom}", but no live list has that name either`);
    const details = [...diffRules(d.configuredRules, {}), ...d.customInstructions.map((i) => `+ instruction "${i.label}"`)];
    main = { change: { address, action: 'create', reasons, dictionaries: [], details }, ops: [create()] };
  } else {
    const found = replaceReasons(d, s);
    const replace = found.reasons.length > 0 || deleteInstruction === 'no' ? allReplaceReasons(found, deleteInstruction) : [];
    const renamed = s.name === d.name ? {} : { renamedFrom: s.name };
    if (replace.length > 0) {
      const reasons = [...replace, ...(s.name === d.name ? [] : [`renamed from "${s.name}"`])];
      const details = [...diffRules(d.configuredRules, s.configuredRules), ...instructionDetails(d.customInstructions, s.customInstructions)];
      const c = create();
      const remove = refs.op({ type: 'style_rules.delete', resource: address, styleId: s.id }, [c.ref]);
      main = { change: { address, action: 'replace', reasons, liveId: s.id, ...renamed, dictionaries: [], details }, ops: [c, remove] };
    } else {
      main = planInPlace(d, s, address, refs, found.removed, deleteInstruction);
    }
  }
  const createRef = main?.ops.find((op) => op.body.type === 'style_rules.create')?.ref;
  const leftovers = match.leftovers.map(
    (l): DraftChange => ({
      change: { address, action: 'delete', reasons: [`duplicate list of this name (two runs created it, or a run was cut off; ${match.current === undefined ? 'keeps the new one' : keptReason(match.current, match.keptBecause, main?.change.action === 'replace')}) → delete`], liveId: l.id, dictionaries: [], details: [] },
      ops: [refs.op({ type: 'style_rules.delete', resource: address, styleId: l.id }, createRef === undefined ? [] : [createRef])],
    }),
  );
  return main === undefined ? leftovers : [main, ...leftovers];
}

function instructionDetails(want: readonly DesiredInstruction[], have: readonly LiveInstruction[]): string[] {
  const live = new Map(have.map((i) => [i.label, i]));
  const desired = new Set(want.map((i) => i.label));
  const out: string[] = [];
  for (const i of want) {
    const l = live.get(i.label);
    if (l === undefined) out.push(`+ instruction "${i.label}"`);
    else if (l.prompt !== i.prompt) out.push(`~ instruction "${i.label}": prompt changed`);
  }
  for (const l of have) if (!desired.has(l.label)) out.push(`- instruction "${l.label}"`);
  return out;
}

function planInPlace(
  d: DesiredStyleRules,
  s: LiveStyleRules,
  address: ResourceAddress,
  refs: Refs,
  removed: readonly LiveInstruction[],
  setting: CapabilitySetting,
): DraftChange | undefined {
  const ops: DraftOperation[] = [];
  const reasons: string[] = [];
  const details: string[] = [];
  if (s.name !== d.name) {
    reasons.push(`renamed from "${s.name}" → PATCH`);
    ops.push(refs.op({ type: 'style_rules.rename', resource: address, styleId: s.id, name: d.name }));
  }
  const ruleDiff = diffRules(d.configuredRules, s.configuredRules);
  if (ruleDiff.length > 0) {
    reasons.push('configured rules differ → PUT configured_rules');
    details.push(...ruleDiff);
    ops.push(refs.op({ type: 'style_rules.put_configured_rules', resource: address, styleId: s.id, configuredRules: d.configuredRules }));
  }
  const live = new Map(s.customInstructions.map((i) => [i.label, i]));
  for (const i of d.customInstructions) {
    const l = live.get(i.label);
    if (l === undefined) {
      reasons.push(`instruction "${i.label}" added → POST`);
      details.push(`+ instruction "${i.label}"`);
      ops.push(refs.op({ type: 'style_rules.create_instruction', resource: address, styleId: s.id, ...instructionBody(i) }));
    } else if (l.prompt !== i.prompt) {
      reasons.push(`instruction "${i.label}": prompt changed → PUT`);
      details.push(`~ instruction "${i.label}": prompt changed`);
      // The source language goes along (the declared one, else the one the service holds), so a
      // server that resets an omitted field does not turn the next plan into a replace.
      const sourceLanguage = i.sourceLanguage ?? l.sourceLanguage;
      ops.push(
        refs.op({
          type: 'style_rules.update_instruction',
          resource: address,
          styleId: s.id,
          instructionId: l.id,
          label: i.label,
          prompt: i.prompt,
          ...(sourceLanguage === undefined ? {} : { sourceLanguage }),
        }),
      );
    }
  }
  // Deletes last, each after everything else on this list (and after the previous delete): when
  // the fallback replaces the list, the edits before it were harmless and the deletes after it
  // find the work done.
  let after = ops.map((op) => op.ref);
  for (const l of removed) {
    reasons.push(
      setting === 'yes'
        ? `instruction "${l.label}" removed → DELETE it (capabilities.delete_custom_instruction: yes)`
        : `instruction "${l.label}" removed → DELETE it, or ${REPLACE} if the service has no such route (capabilities.delete_custom_instruction: auto)`,
    );
    details.push(`- instruction "${l.label}"`);
    const remove = refs.op(
      {
        type: 'style_rules.delete_instruction',
        resource: address,
        styleId: s.id,
        instructionId: l.id,
        label: l.label,
        ...(setting === 'auto' ? { fallback: payloadOf(d) } : {}),
      },
      after,
    );
    ops.push(remove);
    after = [...after, remove.ref];
  }
  if (ops.length === 0) return undefined;
  return { change: { address, action: 'update', reasons, liveId: s.id, ...(s.name === d.name ? {} : { renamedFrom: s.name }), dictionaries: [], details }, ops };
}
