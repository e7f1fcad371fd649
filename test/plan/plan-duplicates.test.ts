import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/index.js';
import { createPlan, selectRefresh, type KeepIds } from '../../src/plan/index.js';
import { parsePlanJson, renderPlanJson, renderPlanMarkdown, renderPlanText } from '../../src/report/index.js';
import { desiredState, glossary, liveState, styleRules, type LiveGlossarySpec, type LiveStyleSpec } from './builders.js';
import type { DesiredGlossary, DesiredStyleRules, ProjectConfig } from '../../src/model/index.js';

/**
 * Two runners on different machines share no lock: both may create the same declared resource.
 * Every plan finds the live resources that share a declared name, shows them, keeps one (the one the
 * last ids file names, else the oldest) and deletes the others, whatever `prune` says.
 */

const day = (d: number): string => `2026-01-0${d}T00:00:00.000Z`;

function plan(
  resources: { glossaries?: readonly DesiredGlossary[]; styleRules?: readonly DesiredStyleRules[] },
  live: { glossaries?: readonly LiveGlossarySpec[]; styleRules?: readonly LiveStyleSpec[] },
  options: { keepIds?: KeepIds; config?: Partial<ProjectConfig> } = {},
): Plan {
  return createPlan({
    target: 'default',
    desired: desiredState(resources, options.config),
    live: liveState(live),
    ...(options.keepIds === undefined ? {} : { keepIds: options.keepIds }),
  });
}

const deleted = (p: Plan): string[] => p.operations.flatMap((op) => (op.type === 'glossary.delete' ? [op.glossaryId] : op.type === 'style_rules.delete' ? [op.styleId] : []));

const product = glossary('Product', { 'en-de': { a: 'A' } });
const twoV3: LiveGlossarySpec[] = [
  { id: 'g-new', name: 'Product', dicts: { 'en-de': { a: 'A' } }, creationTime: day(2) },
  { id: 'g-old', name: 'Product', dicts: { 'en-de': { a: 'A' } }, creationTime: day(1) },
];

describe('live duplicates of a declared name', () => {
  it('two equal v3 glossaries of one name with prune off: the newer is deleted, the oldest kept (today: "No changes")', () => {
    const p = plan({ glossaries: [product] }, { glossaries: twoV3 });
    expect(deleted(p)).toEqual(['g-new']);
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]).toMatchObject({ action: 'delete', liveId: 'g-new', address: { kind: 'glossary', name: 'Product' } });
    expect(p.changes[0]?.reasons[0]).toBe('duplicate v3 glossary of this name (two runs created it, or a run was cut off; keeps id g-old, the oldest) → delete');
    expect(p.duplicates).toEqual([
      {
        kind: 'glossary',
        name: 'Product',
        keep: { id: 'g-old', api: 'v3', creationTime: day(1) },
        keptBecause: 'oldest',
        remove: [{ id: 'g-new', api: 'v3', creationTime: day(2) }],
      },
    ]);
    expect(p.notManaged).toEqual([]);
    expect(p.summary).toMatchObject({ add: 0, change: 0, destroy: 1, calls: { DELETE: 1 } });
  });

  it('keeps the one the ids file names, and edits that one', () => {
    const p = plan({ glossaries: [glossary('Product', { 'en-de': { a: 'A2' } })] }, { glossaries: twoV3 }, { keepIds: { glossaries: { Product: 'g-new' }, styleRules: {} } });
    expect(deleted(p)).toEqual(['g-old']);
    expect(p.operations.find((op) => op.type === 'glossary.patch')).toMatchObject({ glossaryId: 'g-new' });
    expect(p.duplicates?.[0]).toMatchObject({ keep: { id: 'g-new' }, keptBecause: 'ids_file', remove: [{ id: 'g-old' }] });
    // An id the ids file names that is not live (or of another name) changes nothing: the oldest is kept.
    const stale = plan({ glossaries: [product] }, { glossaries: twoV3 }, { keepIds: { glossaries: { Product: 'g-gone', Other: 'g-new' }, styleRules: {} } });
    expect(stale.duplicates?.[0]).toMatchObject({ keep: { id: 'g-old' }, keptBecause: 'oldest' });
  });

  it('reads the entries of the one it keeps', () => {
    const desired = desiredState({ glossaries: [product] });
    const live = liveState({ glossaries: twoV3 });
    expect(selectRefresh(desired, live.glossaries).toRead.map((r) => r.glossaryId)).toEqual(['g-old']);
    expect(selectRefresh(desired, live.glossaries, undefined, { glossaries: { Product: 'g-new' }, styleRules: {} }).toRead.map((r) => r.glossaryId)).toEqual(['g-new']);
  });

  it('three v2 glossaries: keeps the one named, else one that already matches, else the oldest (replaced)', () => {
    const legacy = glossary('Legacy', { 'en-de': { a: 'A' } }, { api: 'v2' });
    const live: LiveGlossarySpec[] = [
      { id: 'v-1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'x' } }, creationTime: day(1) },
      { id: 'v-2', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } }, creationTime: day(2) },
      { id: 'v-3', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } }, creationTime: day(3) },
    ];
    const matching = plan({ glossaries: [legacy] }, { glossaries: live });
    expect(deleted(matching)).toEqual(['v-1', 'v-3']);
    expect(matching.duplicates?.[0]).toMatchObject({ keep: { id: 'v-2' }, keptBecause: 'matches' });
    const named = plan({ glossaries: [legacy] }, { glossaries: live }, { keepIds: { glossaries: { Legacy: 'v-3' }, styleRules: {} } });
    expect(deleted(named)).toEqual(['v-1', 'v-2']);
    expect(named.duplicates?.[0]?.keptBecause).toBe('ids_file');
    const none = plan({ glossaries: [glossary('Legacy', { 'en-de': { a: 'B' } }, { api: 'v2' })] }, { glossaries: live });
    expect(none.operations.map((op) => op.type)).toEqual(['glossary_v2.create', 'glossary.delete', 'glossary.delete', 'glossary.delete']);
    expect(none.duplicates?.[0]).toMatchObject({ keep: { id: 'v-1' }, keptBecause: 'oldest', remove: [{ id: 'v-2' }, { id: 'v-3' }] });
    expect(none.changes.find((c) => c.liveId === 'v-2')?.reasons[0]).toContain('keeps the replacement of id v-1, the oldest');
  });

  it('two style rule lists of one name: keeps the named one, else a matching one, else the oldest', () => {
    const desired = styleRules('Marketing');
    const live: LiveStyleSpec[] = [
      { id: 's-2', name: 'Marketing', creationTime: day(2) },
      { id: 's-1', name: 'Marketing', creationTime: day(1) },
    ];
    const p = plan({ styleRules: [desired] }, { styleRules: live });
    expect(deleted(p)).toEqual(['s-2']);
    expect(p.duplicates).toEqual([{ kind: 'style_rules', name: 'Marketing', keep: { id: 's-1', creationTime: day(1) }, keptBecause: 'matches', remove: [{ id: 's-2', creationTime: day(2) }] }]);
    const named = plan({ styleRules: [desired] }, { styleRules: live }, { keepIds: { glossaries: {}, styleRules: { Marketing: 's-2' } } });
    expect(deleted(named)).toEqual(['s-1']);
  });

  it('duplicate deletes count for max_deletes (and block the plan past it); prevent_destroy does not stop them', () => {
    const three: LiveGlossarySpec[] = [...twoV3, { id: 'g-3', name: 'Product', dicts: { 'en-de': { a: 'A' } }, creationTime: day(3) }];
    const guarded = glossary('Product', { 'en-de': { a: 'A' } }, { preventDestroy: true });
    expect(plan({ glossaries: [guarded] }, { glossaries: three }, { config: { guards: { maxDeletes: 2, maxRemovedEntriesPercent: 50, allowEmpty: false } } }).guards).toEqual([]);
    const blocked = plan({ glossaries: [guarded] }, { glossaries: three }, { config: { guards: { maxDeletes: 1, maxRemovedEntriesPercent: 50, allowEmpty: false } } });
    expect(blocked.guards).toEqual([{ guard: 'max_deletes', message: 'the plan deletes 2 resources, more than max_deletes (1)' }]);
  });

  it('no duplicates, no list: a plan of unique names has no `duplicates`', () => {
    const p = plan({ glossaries: [product] }, { glossaries: [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A' } } }] });
    expect(p.duplicates).toBeUndefined();
    expect(renderPlanText(p)).not.toContain('Duplicates');
  });

  it('shows them in text, markdown and JSON; a saved plan keeps them', () => {
    const p = plan({ glossaries: [product], styleRules: [styleRules('Marketing')] }, {
      glossaries: twoV3,
      styleRules: [
        { id: 's-1', name: 'Marketing', creationTime: day(1) },
        { id: 's-2', name: 'Marketing', creationTime: day(2) },
      ],
    });
    const text = renderPlanText(p);
    expect(text).toContain('Plan: 0 to add, 0 to change, 2 to destroy.');
    expect(text).toContain('Duplicates: 4 live resources share 2 declared names; one of each name is kept, 2 are deleted (counted by max_deletes).');
    expect(text).toContain(
      [
        'Duplicates (live resources that share a declared name):',
        `  glossary "Product": keeps id g-old (v3, created ${day(1)}), the oldest; deletes id g-new (v3, created ${day(2)})`,
        `  style_rules "Marketing": keeps id s-1 (created ${day(1)}), already matches the repository; deletes id s-2 (created ${day(2)})`,
      ].join('\n'),
    );
    const markdown = renderPlanMarkdown(p);
    expect(markdown).toContain('#### Duplicates');
    expect(markdown).toContain(`- glossary "Product": keeps id g-old (v3, created ${day(1)}), the oldest; deletes id g-new (v3, created ${day(2)})`);
    expect(markdown).toContain('counted by max\\_deletes');
    const json = JSON.parse(renderPlanJson(p)) as { duplicates: unknown[] };
    expect(json.duplicates[0]).toEqual({
      kind: 'glossary',
      name: 'Product',
      keep: { id: 'g-old', api: 'v3', creation_time: day(1) },
      kept_because: 'oldest',
      remove: [{ id: 'g-new', api: 'v3', creation_time: day(2) }],
    });
    expect(parsePlanJson(renderPlanJson(p)).duplicates).toEqual(p.duplicates);
  });
});
