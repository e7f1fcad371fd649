import { describe, expect, it } from 'vitest';
import { createPlan } from '../../src/plan/index.js';
import { parsePlanJson, renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/report/index.js';
import { desiredState, glossary, liveState } from '../plan/builders.js';
import { samplePlan } from './fixtures.js';

function manyTerms(n: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`term ${String(i).padStart(3, '0')}`, `Ziel ${i}`]));
}

describe('renderPlanText', () => {
  const text = renderPlanText(samplePlan());
  const lines = text.split('\n');

  it('shows each resource Terraform-style with its dictionaries, terms and reasons', () => {
    expect(lines).toContain('  -/+ glossary "Alpha" (v2, id g-alpha)');
    expect(lines).toContain('      # immutable v2 → replace (create new, then delete old)');
    expect(lines).toContain('  ~ glossary "Mid" (v3, id g-mid)');
    expect(lines).toContain('      # renamed from "Mid old"');
    expect(lines).toContain('      ~ en-fr  +1 -1 entries (PUT)');
    expect(lines).toContain('          - x → X');
    expect(lines).toContain('          + é → ü');
    expect(lines).toContain('          ~ a: A → A2');
    expect(lines).toContain('  + glossary "Zeta" (v3)');
    expect(lines).toContain('  - glossary "termsync:gone" (v3, id g-gone)');
    expect(lines).toContain('  ~ style_rules "Style" (id s1)');
    expect(lines).toContain('      + punctuation.apostrophe = use_curly_apostrophes');
  });

  it('ends the changes with the Terraform summary line, then dictionaries and API calls', () => {
    const at = lines.indexOf('Plan: 2 to add, 2 to change, 2 to destroy.');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('Dictionaries: 4 written, 1 deleted; entries: +3 ~1 -2.');
    expect(lines[at + 2]).toBe('API calls: 3 POST, 2 PUT, 1 PATCH, 2 DELETE; 19 bytes of entries to upload.');
  });

  it('lists what it does not manage and the guard violations', () => {
    const notManaged = lines.indexOf('Not managed by this repository (left alone):');
    expect(lines[notManaged + 1]).toBe('  glossary "Manual" (id g-manual)');
    const guards = lines.indexOf('Guard violations (nothing will be applied):');
    expect(guards).toBeGreaterThan(notManaged);
    expect(lines[guards + 1]).toMatch(/^ {2}✗ prevent_destroy: glossary "Alpha" declares prevent_destroy, but the plan replaces it/);
  });

  it('shows no-break spaces, zero-width characters and tabs in changed terms visibly (text and markdown, not JSON)', () => {
    const p = createPlan({
      target: 'd',
      desired: desiredState({ glossaries: [glossary('G', { 'en-de': { checkout: 'Zur\u00a0Kasse', cart: 'Waren\u200bkorb' } })] }),
      live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { checkout: 'Zur Kasse', cart: 'Warenkorb' } } }] }),
    });
    const out = renderPlanText(p);
    expect(out).toContain('          ~ checkout: Zur Kasse → Zur\\u00a0Kasse\n');
    expect(out).toContain('          ~ cart: Warenkorb → Waren\\u200bkorb\n');
    expect(out).toContain('      ~ en-de  ~2 entries (PATCH)\n');
    expect(renderPlanMarkdown(p)).toContain('+ checkout → Zur\\u00a0Kasse\n');
    const json = renderPlanJson(p);
    expect(json).not.toContain('\\\\u00a0');
    expect(parsePlanJson(json).changes[0]?.dictionaries[0]?.entryChanges).toContainEqual({ source: 'checkout', before: 'Zur Kasse', after: 'Zur\u00a0Kasse' });
  });

  it('says "1 entry", and counts written and deleted dictionaries apart', () => {
    const p = createPlan({
      target: 'd',
      desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A', b: 'B' } })] }, { guards: { maxDeletes: 10, maxRemovedEntriesPercent: 100, allowEmpty: false } }),
      live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' }, 'en-fr': { a: 'A' } } }] }),
    });
    const out = renderPlanText(p).split('\n');
    expect(out).toContain('      ~ en-de  +1 entry (PATCH)');
    expect(out).toContain('      - en-fr  -1 entry (DELETE)');
    expect(out).toContain('Dictionaries: 1 written, 1 deleted; entries: +1 ~0 -1.');
    expect(out).toContain('API calls: 1 PATCH, 1 DELETE; 3 bytes of entries to upload.');
  });

  it('says exactly that nothing changes when nothing does', () => {
    const p = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }),
      live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' } } }] }),
    });
    expect(renderPlanText(p)).toBe('No changes. The service matches the repository.\n');
  });

  it('caps the terms per dictionary (10 by default) and counts the rest', () => {
    const p = createPlan({ target: 'd', desired: desiredState({ glossaries: [glossary('G', { 'en-de': manyTerms(25) })] }), live: liveState() });
    const termLines = (t: string): string[] => t.split('\n').filter((l) => l.startsWith('          + term'));
    expect(termLines(renderPlanText(p))).toHaveLength(10);
    expect(renderPlanText(p)).toContain('          … and 15 more\n');
    expect(termLines(renderPlanText(p, { maxTermsPerDictionary: 3 }))).toEqual(['          + term 000 → Ziel 0', '          + term 001 → Ziel 1', '          + term 002 → Ziel 2']);
    expect(renderPlanText(p, { maxTermsPerDictionary: 3 })).toContain('          … and 22 more\n');
  });

  it('keeps a term with control characters on one line', () => {
    const p = createPlan({ target: 'd', desired: desiredState({ glossaries: [glossary('G', { 'en-de': { 'a\nb': 'c\td' } })] }), live: liveState() });
    expect(renderPlanText(p).split('\n')).toContain('          + a\\nb → c\\td');
  });
});

describe('plan warnings', () => {
  it('are shown in text and markdown, and survive the JSON round trip', () => {
    const p = createPlan({
      target: 'd',
      desired: desiredState({ glossaries: [glossary('New', { 'en-de': { a: 'A' } }, { renamedFrom: 'Old' })] }),
      live: liveState({ glossaries: [{ id: 'n', name: 'New', dicts: { 'en-de': { a: 'A' } } }, { id: 'o', name: 'Old', dicts: {} }] }),
    });
    expect(renderPlanText(p)).toContain('\nWarnings:\n  ! glossary "New": renamed_from "Old" not done: both');
    expect(renderPlanMarkdown(p)).toContain('#### Warnings\n\n- glossary **New**: renamed\\_from "Old" not done');
    expect(parsePlanJson(renderPlanJson(p))).toEqual(p);
  });
});
