import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/lib/errors.js';
import { createPlan } from '../../src/plan/index.js';
import { parsePlanJson, renderPlanJson } from '../../src/report/index.js';
import { desiredState, glossary, liveState } from '../plan/builders.js';
import { samplePlan } from './fixtures.js';

function thrown(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('renderPlanJson / parsePlanJson', () => {
  it('round-trips: render → parse gives the same plan', () => {
    const p = samplePlan();
    expect(parsePlanJson(renderPlanJson(p))).toStrictEqual(JSON.parse(JSON.stringify(p)));
    expect(parsePlanJson(renderPlanJson(p))).toEqual(p);
  });

  it('round-trips terms with tabs, newlines, quotes and non-BMP characters', () => {
    const p = createPlan({ target: 't', desired: desiredState({ glossaries: [glossary('G "x"', { 'en-de': { 'a\tb': 'c\nd', '😀': '"\\"' } })] }), live: liveState() });
    expect(parsePlanJson(renderPlanJson(p))).toEqual(p);
  });

  it('is stable: same plan, same bytes; format_version and target first', () => {
    const text = renderPlanJson(samplePlan());
    expect(renderPlanJson(parsePlanJson(text))).toBe(text);
    expect(text.split('\n').slice(0, 3)).toEqual(['{', '  "format_version": "1.0",', '  "target": "default",']);
    // One entry per line.
    expect(text).toMatch(/"entries": \[\n\s+\["a", "A2"\]\n\s+\]/);
  });

  it('spells every property name in snake_case, and leaves data keys (pairs, rule names, methods) as they are', () => {
    const p = samplePlan();
    const text = renderPlanJson(p);
    const propertyNames = [...text.matchAll(/"([^"\\]+)": /g)].map((m) => m[1] ?? '');
    expect(propertyNames.filter((name) => /[a-z][A-Z]/.test(name))).toEqual([]);
    expect(propertyNames).toEqual(expect.arrayContaining(['format_version', 'not_managed', 'depends_on', 'entries_after', 'upload_bytes', 'entry_hashes', 'style_rules']));
    const json = JSON.parse(text) as { summary: { calls: Record<string, number> }; fingerprints: { glossaries: { entry_hashes: Record<string, string> }[] } };
    expect(Object.keys(json.summary.calls)).toEqual(['DELETE', 'PATCH', 'POST', 'PUT']);
    expect(json.fingerprints.glossaries.flatMap((g) => Object.keys(g.entry_hashes)).every((k) => /^[a-z]+-[a-z]+$/.test(k))).toBe(true);
  });

  it('refuses a file that is not JSON', () => {
    const error = thrown(() => parsePlanJson('{"format_version": '));
    expect(error.code).toBe('plan_file_invalid');
    expect(error.message).toMatch(/^the plan file is not JSON: /);
  });

  it('refuses another format version with a clear message', () => {
    const text = renderPlanJson(samplePlan()).replace('"format_version": "1.0"', '"format_version": "2.0"');
    const error = thrown(() => parsePlanJson(text));
    expect(error.code).toBe('plan_format_version');
    expect(error.message).toBe('the plan file has format_version "2.0"; this termsync reads format_version "1.0": make the plan again with `termsync plan --out`');
    expect(thrown(() => parsePlanJson('{}')).message).toMatch(/^the plan file has no format_version;/);
    expect(thrown(() => parsePlanJson('[1]')).message).toMatch(/expected a JSON object/);
  });

  it('names the place of a malformed field', () => {
    const plan = JSON.parse(renderPlanJson(samplePlan())) as { operations: Record<string, unknown>[] };
    const second = plan.operations[1];
    if (second === undefined) throw new Error('sample plan has operations');
    delete second.name;
    const error = thrown(() => parsePlanJson(JSON.stringify(plan)));
    expect(error.code).toBe('plan_file_invalid');
    expect(error.message).toMatch(/^the plan file is not a valid saved plan: operations\[1\]\.name: /);
  });

  it('refuses an unknown operation type and a dependency on a later operation', () => {
    const plan = JSON.parse(renderPlanJson(samplePlan())) as { operations: { type: string; depends_on: string[] }[] };
    const first = plan.operations[0];
    if (first === undefined) throw new Error('sample plan has operations');
    expect(thrown(() => parsePlanJson(JSON.stringify({ ...plan, operations: [{ ...first, type: 'glossary.drop' }] }))).message).toMatch(/operations\[0\]\.type/);
    first.depends_on = ['op-2'];
    expect(thrown(() => parsePlanJson(JSON.stringify(plan))).message).toBe('the plan file is not a valid saved plan: operations[0].depends_on: "op-2" is not an earlier operation');
  });
});

describe('operation requests in the saved plan', () => {
  it('shows each operation as its HTTP request with the bytes it uploads, and reading drops them', () => {
    const p = samplePlan();
    const saved = JSON.parse(renderPlanJson(p)) as { operations: { key: string; request: string; upload_bytes: number }[] };
    expect(saved.operations.map((op) => `${op.key} ${op.request} ${op.upload_bytes}`)).toEqual([
      'op-1 POST /v2/glossaries 4',
      'op-2 POST /v3/glossaries 3',
      'op-3 PATCH /v3/glossaries/g-mid 3',
      'op-4 PUT /v3/glossaries/g-mid/dictionaries 9',
      'op-5 PUT /v3/style_rules/s1/configured_rules 0',
      'op-6 POST /v3/style_rules/s1/custom_instructions 0',
      'op-7 DELETE /v2/glossaries/g-alpha 0',
      'op-8 DELETE /v3/glossaries/g-gone 0',
    ]);
    expect(parsePlanJson(renderPlanJson(p)).operations[0]).not.toHaveProperty('request');
  });
});
