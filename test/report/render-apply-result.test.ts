import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/model/index.js';
import { renderApplyResultJson, renderApplyResultText } from '../../src/report/index.js';

const result: ApplyResult = {
  target: 'default',
  outcomes: [
    { key: 'op-1', type: 'glossary_v2.create', resource: { kind: 'glossary', name: 'Legacy' }, request: 'POST /v2/glossaries', status: 'applied', createdId: 'g-new' },
    {
      key: 'op-2',
      type: 'glossary.put_dictionary',
      resource: { kind: 'glossary', name: 'Product' },
      request: 'PUT /v3/glossaries/g1/dictionaries',
      status: 'failed',
      error: { code: 'http_400', message: 'Invalid glossary entries', traceId: 'tr-1' },
    },
    {
      key: 'op-3',
      type: 'glossary.delete',
      resource: { kind: 'glossary', name: 'Legacy' },
      request: 'DELETE /v2/glossaries/g-old',
      status: 'skipped',
      skippedBecause: 'op-1 did not succeed',
    },
  ],
  applied: 1,
  failed: 1,
  skipped: 1,
  ids: { glossaries: { Legacy: 'g-new', Product: 'g1' }, style_rules: {} },
};

describe('apply result renderers', () => {
  it('text: one line per operation and the totals', () => {
    expect(renderApplyResultText(result).split('\n')).toEqual([
      'Applying to target "default":',
      '  ✓ op-1 POST /v2/glossaries  glossary "Legacy" → id g-new',
      '  ✗ op-2 PUT /v3/glossaries/g1/dictionaries  glossary "Product": http_400: Invalid glossary entries (trace tr-1)',
      '  - op-3 DELETE /v2/glossaries/g-old  glossary "Legacy": skipped (op-1 did not succeed)',
      '',
      'Apply incomplete: 1 applied, 1 failed, 1 skipped. Run apply again to retry.',
      '',
    ]);
  });

  it('text: complete and empty applies', () => {
    const ok = { ...result, outcomes: result.outcomes.slice(0, 1), failed: 0, skipped: 0 };
    expect(renderApplyResultText(ok)).toMatch(/\nApply complete: 1 applied, 0 failed, 0 skipped\.\n$/);
    expect(renderApplyResultText({ ...ok, outcomes: [], applied: 0 })).toBe('Nothing to apply on target "default".\nApply complete: 0 applied, 0 failed, 0 skipped.\n');
  });

  it('json: the result with snake_case property names (ids keyed by resource names as they are), keys in a stable order', () => {
    const text = renderApplyResultJson(result);
    const [first, second, third] = result.outcomes;
    expect(JSON.parse(text)).toEqual({
      ...result,
      outcomes: [
        { ...first, createdId: undefined, created_id: 'g-new' },
        { ...second, error: { code: 'http_400', message: 'Invalid glossary entries', trace_id: 'tr-1' } },
        { ...third, skippedBecause: undefined, skipped_because: 'op-1 did not succeed' },
      ].map((o) => JSON.parse(JSON.stringify(o)) as unknown),
    });
    expect([...text.matchAll(/"([^"]+)": /g)].map((m) => m[1]).filter((name) => /[a-z][A-Z]/.test(name ?? ''))).toEqual([]);
    expect(text.split('\n')[1]).toBe('  "target": "default",');
  });
});
