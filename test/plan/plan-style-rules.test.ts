import { describe, expect, it } from 'vitest';
import type { DesiredStyleRules, Operation, Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { desiredState, liveState, styleRules, type LiveStyleSpec } from './builders.js';

function plan(lists: readonly DesiredStyleRules[], live: readonly LiveStyleSpec[]): Plan {
  return createPlan({ target: 'default', desired: desiredState({ styleRules: lists }), live: liveState({ styleRules: live }) });
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

  it('replaces the list when an instruction is removed (no endpoint removes one)', () => {
    const p = plan(
      [styleRules('M', { rules, instructions: [formal] })],
      [{ id: 's1', name: 'M', instructions: [{ id: 'i1', ...formal }, { id: 'i2', ...short }] }],
    );
    expect(types(p)).toEqual(['style_rules.create', 'style_rules.delete']);
    expect(op(p, 'style_rules.create')).toMatchObject({ name: 'M', configuredRules: rules, customInstructions: [formal] });
    expect(op(p, 'style_rules.delete')).toMatchObject({ styleId: 's1', dependsOn: ['op-1'] });
    expect(p.changes[0]?.action).toBe('replace');
    expect(p.changes[0]?.reasons).toEqual(['instruction "Short" removed → replace (create new, then delete old)']);
    expect(p.summary).toMatchObject({ add: 1, change: 0, destroy: 1 });
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
