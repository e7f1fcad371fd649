import { describe, expect, it } from 'vitest';
import { NOT_STARTED_INTERRUPTED, type ApplyResult } from '../../src/model/index.js';
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
      '  ✗ op-2 PUT /v3/glossaries/g1/dictionaries  glossary "Product": http_400: Invalid glossary entries (trace id tr-1)',
      '  - op-3 DELETE /v2/glossaries/g-old  glossary "Legacy": skipped (op-1 did not succeed)',
      '',
      // A 400 comes back the same: no "run apply again".
      'Apply incomplete: 1 applied, 1 failed, 1 skipped.',
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

describe('apply result text: hints only where they help', () => {
  const op = (key: string, extra: Partial<ApplyResult['outcomes'][number]>): ApplyResult['outcomes'][number] => ({
    key,
    type: 'glossary.put_dictionary',
    resource: { kind: 'glossary', name: 'Product' },
    request: 'PUT /v3/glossaries/g1/dictionaries',
    status: 'applied',
    ...extra,
  });
  const of = (outcomes: ApplyResult['outcomes']): ApplyResult => ({
    target: 'default',
    outcomes,
    applied: outcomes.filter((o) => o.status === 'applied').length,
    failed: outcomes.filter((o) => o.status === 'failed').length,
    skipped: outcomes.filter((o) => o.status === 'skipped').length,
    ids: { glossaries: {}, style_rules: {} },
  });
  const last = (r: ApplyResult): string => renderApplyResultText(r).trimEnd().split('\n').at(-1) ?? '';

  it('no "run apply again" after failures that would come back the same (400, 403)', () => {
    for (const code of ['http_400', 'http_403', 'http_422', 'invalid_response']) {
      const r = of([op('op-1', { status: 'failed', error: { code, message: 'no' } }), op('op-2', { status: 'skipped', skippedBecause: 'not attempted: the key was refused (403)' })]);
      expect(last(r)).toBe('Apply incomplete: 0 applied, 1 failed, 1 skipped.');
    }
  });

  it('"run apply again" after failures that may pass (5xx, throttling, network)', () => {
    for (const code of ['http_503', 'throttled', 'network', 'glossary_quota']) {
      const r = of([op('op-1', { status: 'failed', error: { code, message: 'later' } }), op('op-2', { status: 'failed', error: { code: 'http_400', message: 'no' } })]);
      expect(last(r)).toBe('Apply incomplete: 0 applied, 2 failed, 0 skipped. Run apply again to retry.');
    }
  });

  it('an interrupted run: each operation not started is listed as skipped, and one line says the run was interrupted', () => {
    const r = of([
      op('op-1', {}),
      op('op-2', { status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED }),
      op('op-3', { status: 'skipped', skippedBecause: NOT_STARTED_INTERRUPTED }),
    ]);
    const text = renderApplyResultText(r);
    expect(text).toContain('  - op-2 PUT /v3/glossaries/g1/dictionaries  glossary "Product": skipped (not started)\n');
    expect(text.match(/interrupted/g)).toHaveLength(1);
    expect(last(r)).toBe('Apply interrupted: 1 applied, 0 failed, 2 skipped (2 not started). Run apply again to finish.');
  });

  it('prints the trace id once, whether the message names it or not', () => {
    const named = of([op('op-1', { status: 'failed', error: { code: 'http_400', message: 'PUT /x: bad request (400) (trace id tr-9)', traceId: 'tr-9' } })]);
    expect(renderApplyResultText(named).match(/tr-9/g)).toHaveLength(1);
    const bare = of([op('op-1', { status: 'failed', error: { code: 'http_400', message: 'bad request', traceId: 'tr-9' } })]);
    expect(renderApplyResultText(bare)).toContain('http_400: bad request (trace id tr-9)');
  });
});
