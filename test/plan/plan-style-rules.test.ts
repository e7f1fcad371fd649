import { describe, expect, it } from 'vitest';
import type { CapabilitySetting, DesiredStyleRules, Operation, Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { desiredState, liveState, styleRules, type LiveStyleSpec } from './builders.js';

function plan(lists: readonly DesiredStyleRules[], live: readonly LiveStyleSpec[]): Plan {
  return createPlan({ target: 'default', desired: desiredState({ styleRules: lists }), live: liveState({ styleRules: live }) });
}

function planFor(setting: CapabilitySetting, lists: readonly DesiredStyleRules[], live: readonly LiveStyleSpec[]): Plan {
  const targets = [{ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY', capabilities: { deleteCustomInstruction: setting } }];
  return createPlan({ target: 'default', desired: desiredState({ styleRules: lists }, { targets }), live: liveState({ styleRules: live }) });
}

function types(p: Plan): string[] {
  return p.operations.map((op) => op.type);
}

function op<T extends Operation['type']>(p: Plan, type: T): Extract<Operation, { type: T }> {
  const found = p.operations.find((o): o is Extract<Operation, { type: T }> => o.type === type);
  if (found === undefined) throw new Error(`no ${type} in ${types(p).join(', ')}`);
  return found;
}

const formal = { label: 'Formal', prompt: 'Address the reader formally.' };
const short = { label: 'Short', prompt: 'Use short sentences.', sourceLanguage: 'en' };
const rules = { punctuation: { apostrophe: 'use_curly_apostrophes' } };

describe('style rule lists', () => {
  it('creates a missing list with its rules and instructions', () => {
    const p = plan([styleRules('Marketing', { rules, instructions: [formal, short] })], []);
    const create = op(p, 'style_rules.create');
    expect(types(p)).toEqual(['style_rules.create']);
    expect(create).toMatchObject({ name: 'Marketing', language: 'de', configuredRules: rules });
    expect(create.customInstructions).toEqual([formal, short]);
    expect(p.changes[0]?.details).toEqual(['+ punctuation.apostrophe = use_curly_apostrophes', '+ instruction "Formal"', '+ instruction "Short"']);
  });

  it('plans nothing when equal (rule key order and instruction order do not matter)', () => {
    const p = plan(
      [styleRules('M', { rules: { b: { y: '2' }, a: { x: '1' } }, instructions: [formal, short] })],
      [{ id: 's1', name: 'M', rules: { a: { x: '1' }, b: { y: '2' } }, instructions: [{ id: 'i2', ...short }, { id: 'i1', ...formal }] }],
    );
    expect(p.operations).toEqual([]);
    expect(p.changes).toEqual([]);
  });

  it('renames with PATCH', () => {
    const p = plan([styleRules('New', { renamedFrom: 'Old' })], [{ id: 's1', name: 'Old' }]);
    expect(types(p)).toEqual(['style_rules.rename']);
    expect(op(p, 'style_rules.rename')).toMatchObject({ styleId: 's1', name: 'New' });
    expect(p.changes[0]).toMatchObject({ action: 'update', renamedFrom: 'Old' });
  });

  it('PUTs configured rules when they differ and lists each rule change', () => {
    const p = plan(
      [styleRules('M', { rules: { punctuation: { apostrophe: 'use_curly_apostrophes' }, style_and_tone: { abbreviations: 'use_abbreviations_and_symbols' } } })],
      [{ id: 's1', name: 'M', rules: { punctuation: { apostrophe: 'other' }, dates_and_times: { calendar_era: 'use_bc_and_ad' } } }],
    );
    expect(types(p)).toEqual(['style_rules.put_configured_rules']);
    expect(p.changes[0]?.reasons).toEqual(['configured rules differ → PUT configured_rules']);
    expect(p.changes[0]?.details).toEqual([
      '- dates_and_times.calendar_era = use_bc_and_ad',
      '~ punctuation.apostrophe: other → use_curly_apostrophes',
      '+ style_and_tone.abbreviations = use_abbreviations_and_symbols',
    ]);
  });

  it('POSTs a new instruction and PUTs a changed prompt, by label', () => {
    const p = plan(
      [styleRules('M', { instructions: [{ ...formal, prompt: 'Be formal.' }, short] })],
      [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }] }],
    );
    expect(types(p)).toEqual(['style_rules.update_instruction', 'style_rules.create_instruction']);
    expect(op(p, 'style_rules.update_instruction')).toMatchObject({ styleId: 's1', instructionId: 'i1', label: 'Formal', prompt: 'Be formal.' });
    expect(op(p, 'style_rules.create_instruction')).toMatchObject({ styleId: 's1', label: 'Short', sourceLanguage: 'en' });
    expect(p.summary.calls).toEqual({ POST: 1, PUT: 1, PATCH: 0, DELETE: 0 });
  });

  it('deletes a removed instruction by its route, after the other edits, keeping the id (capabilities.delete_custom_instruction: auto)', () => {
    const p = plan(
      [styleRules('M', { rules, instructions: [formal] })],
      [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }, { id: 'i2', ...short }, { id: 'i3', label: 'Zed', prompt: 'Z.' }] }],
    );
    expect(types(p)).toEqual(['style_rules.put_configured_rules', 'style_rules.delete_instruction', 'style_rules.delete_instruction']);
    const [put, first, second] = p.operations;
    expect(first).toMatchObject({ styleId: 's1', instructionId: 'i2', label: 'Short', dependsOn: [put?.key] });
    expect(second).toMatchObject({ styleId: 's1', instructionId: 'i3', label: 'Zed', dependsOn: [put?.key, first?.key] });
    // The whole declared list rides along: where the service lacks the route, apply replaces the list with it.
    expect(op(p, 'style_rules.delete_instruction').fallback).toEqual({ name: 'M', language: 'de', configuredRules: rules, customInstructions: [formal] });
    expect(p.changes[0]).toMatchObject({ action: 'update', liveId: 's1' });
    expect(p.changes[0]?.reasons).toEqual([
      'configured rules differ → PUT configured_rules',
      'instruction "Short" removed → DELETE it, or replace (create new, then delete old) if the service has no such route (capabilities.delete_custom_instruction: auto)',
      'instruction "Zed" removed → DELETE it, or replace (create new, then delete old) if the service has no such route (capabilities.delete_custom_instruction: auto)',
    ]);
    expect(p.changes[0]?.details).toContain('- instruction "Short"');
    expect(p.summary).toMatchObject({ add: 0, change: 1, destroy: 0, calls: { POST: 0, PUT: 1, PATCH: 0, DELETE: 2 } });
  });

  it('with capabilities.delete_custom_instruction: yes, deletes by the route with no fallback', () => {
    const p = planFor('yes', [styleRules('M', { instructions: [formal] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }, { id: 'i2', ...short }] }]);
    expect(types(p)).toEqual(['style_rules.delete_instruction']);
    expect(op(p, 'style_rules.delete_instruction')).not.toHaveProperty('fallback');
    expect(p.changes[0]?.reasons).toEqual(['instruction "Short" removed → DELETE it (capabilities.delete_custom_instruction: yes)']);
  });

  it('with capabilities.delete_custom_instruction: no, replaces the list when an instruction is removed', () => {
    const p = planFor('no', [styleRules('M', { rules, instructions: [formal] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }, { id: 'i2', ...short }] }]);
    expect(types(p)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(op(p, 'style_rules.create')).toMatchObject({ name: 'M', configuredRules: rules, customInstructions: [formal] });
    expect(op(p, 'style_rules.delete')).toMatchObject({ styleId: 's1', dependsOn: ['op-1'] });
    expect(p.changes[0]?.action).toBe('replace');
    expect(p.changes[0]?.reasons).toEqual(['instruction "Short" removed → replace (create new, then delete old) (capabilities.delete_custom_instruction: no)']);
    expect(p.summary).toMatchObject({ add: 1, change: 0, destroy: 1 });
  });

  it('replaces (whatever the capability) when another reason forbids editing in place', () => {
    const p = plan([styleRules('M', { language: 'fr', instructions: [formal] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }, { id: 'i2', ...short }] }]);
    expect(types(p)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(p.changes[0]?.reasons).toEqual(['language changed from de to fr → replace (create new, then delete old)', 'instruction "Short" removed → replace (create new, then delete old)']);
  });

  it('an instruction declared without source_language takes whatever the service chose (no replace, ever)', () => {
    const declared = { label: 'Short', prompt: 'Use short sentences.' };
    const p = plan([styleRules('M', { instructions: [declared] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...declared, sourceLanguage: 'de' }] }]);
    expect(p.operations).toEqual([]);
    expect(p.changes).toEqual([]);
    // Declared: compared (as before).
    const q = plan([styleRules('M', { instructions: [{ ...declared, sourceLanguage: 'en' }] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...declared, sourceLanguage: 'de' }] }]);
    expect(types(q)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(q.changes[0]?.reasons).toEqual(['instruction "Short": source_language changed from de to en → replace (create new, then delete old)']);
  });

  it('an update of a prompt sends the source language along: the declared one, else the one the service holds', () => {
    const p = plan(
      [styleRules('M', { instructions: [{ label: 'Formal', prompt: 'Be formal.' }, { ...short, prompt: 'Shorter.' }] })],
      [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal, sourceLanguage: 'de' }, { id: 'i2', ...short }] }],
    );
    expect(p.operations.map((o) => (o.type === 'style_rules.update_instruction' ? [o.instructionId, o.sourceLanguage] : o.type))).toEqual([
      ['i1', 'de'],
      ['i2', 'en'],
    ]);
    const none = plan([styleRules('M', { instructions: [{ label: 'Formal', prompt: 'Be formal.' }] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }] }]);
    expect(op(none, 'style_rules.update_instruction')).not.toHaveProperty('sourceLanguage');
  });

  it('replaces the list when an instruction changes its source_language', () => {
    const p = plan([styleRules('M', { instructions: [{ ...short, sourceLanguage: 'fr' }] })], [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...short }] }]);
    expect(types(p)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(p.changes[0]?.reasons[0]).toBe('instruction "Short": source_language changed from en to fr → replace (create new, then delete old)');
  });

  it('replaces the list when its language changes, keeping the new name on a rename', () => {
    const p = plan([styleRules('New', { language: 'fr', renamedFrom: 'Old' })], [{ id: 's1', name: 'Old', language: 'de' }]);
    expect(types(p)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(op(p, 'style_rules.create')).toMatchObject({ name: 'New', language: 'fr' });
    expect(p.changes[0]?.reasons).toEqual(['language changed from de to fr → replace (create new, then delete old)', 'renamed from "Old"']);
  });

  it('keeps the duplicate list that matches and deletes the others', () => {
    const p = plan(
      [styleRules('M', { rules })],
      [
        { id: 's1', name: 'M', creationTime: '2026-01-01T00:00:00.000Z' },
        { id: 's2', name: 'M', rules, creationTime: '2026-01-02T00:00:00.000Z' },
      ],
    );
    expect(types(p)).toEqual(['style_rules.delete']);
    expect(op(p, 'style_rules.delete').styleId).toBe('s1');
  });
});
