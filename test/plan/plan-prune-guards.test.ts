import { describe, expect, it } from 'vitest';
import type { ProjectConfig } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { config, desiredState, glossary, liveState, styleRules } from './builders.js';

const live = liveState({
  glossaries: [
    { id: 'g1', name: 'termsync:a', dicts: { 'en-de': { a: 'A' } } },
    { id: 'g2', name: 'Manual', dicts: { 'en-de': { a: 'A', b: 'B' } } },
    { id: 'g3', name: 'termsync:team/b', api: 'v2', dicts: { 'en-fr': { a: 'A' } } },
  ],
  styleRules: [{ id: 's1', name: 'termsync:style' }],
});
const kept = glossary('Kept', { 'en-de': { a: 'A' } });
const keptLive = { id: 'k1', name: 'Kept', dicts: { 'en-de': { a: 'A' } } };

function planWith(overrides: Partial<ProjectConfig>) {
  return createPlan({ target: 'default', desired: desiredState({ glossaries: [kept] }, overrides), live: { ...live, glossaries: [...live.glossaries, ...liveState({ glossaries: [keptLive] }).glossaries], entries: new Map([...live.entries, ...liveState({ glossaries: [keptLive] }).entries]) } });
}

describe('prune', () => {
  it('off: lists undeclared resources as not managed and touches nothing', () => {
    const p = planWith({ prune: 'off' });
    expect(p.operations).toEqual([]);
    expect(p.notManaged).toEqual([
      { kind: 'glossary', name: 'Manual', id: 'g2' },
      { kind: 'glossary', name: 'termsync:a', id: 'g1' },
      { kind: 'glossary', name: 'termsync:team/b', id: 'g3' },
      { kind: 'style_rules', name: 'termsync:style', id: 's1' },
    ]);
  });

  it('owned: deletes only what owned_names matches (a `*` spans slashes), lists the rest', () => {
    const p = planWith({ prune: 'owned', ownedNames: 'termsync:*' });
    expect(p.operations.map((op) => [op.type, op.resource.name])).toEqual([
      ['glossary.delete', 'termsync:a'],
      ['glossary.delete', 'termsync:team/b'],
      ['style_rules.delete', 'termsync:style'],
    ]);
    expect(p.notManaged).toEqual([{ kind: 'glossary', name: 'Manual', id: 'g2' }]);
    expect(p.changes[0]?.reasons[0]).toBe('not declared in the repository, name matches owned_names "termsync:*" (prune: owned) → delete');
    expect(p.changes[0]?.dictionaries[0]).toMatchObject({ action: 'delete', method: 'DELETE', removed: 1 });
  });

  it('owned without owned_names owns nothing', () => {
    const p = planWith({ prune: 'owned' });
    expect(p.operations).toEqual([]);
    expect(p.notManaged).toHaveLength(4);
  });

  it('all: deletes every undeclared resource', () => {
    const p = planWith({ prune: 'all' });
    expect(p.operations).toHaveLength(4);
    expect(p.notManaged).toEqual([]);
    expect(p.summary).toMatchObject({ destroy: 4, calls: { DELETE: 4 } });
  });
});

describe('guards', () => {
  it('prevent_destroy blocks a replace and says a replace deletes', () => {
    const p = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('Legacy', { 'en-de': { a: 'B' } }, { api: 'v2', preventDestroy: true })] }),
      live: liveState({ glossaries: [{ id: 'g1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } } }] }),
    });
    expect(p.guards).toHaveLength(1);
    expect(p.guards[0]).toMatchObject({ guard: 'prevent_destroy', resource: { kind: 'glossary', name: 'Legacy' } });
    expect(p.guards[0]?.message).toContain('a replace deletes the old one');
  });

  it('prevent_destroy does not block an in-place update or the removal of duplicates', () => {
    const p = createPlan({
      target: 'default',
      desired: desiredState({
        glossaries: [glossary('G', { 'en-de': { a: 'B' } }, { preventDestroy: true }), glossary('L', { 'en-de': { a: 'A' } }, { api: 'v2', preventDestroy: true })],
        styleRules: [styleRules('S', { preventDestroy: true, rules: { a: { b: 'c' } } })],
      }),
      live: liveState({
        glossaries: [
          { id: 'g1', name: 'G', dicts: { 'en-de': { a: 'A' } } },
          { id: 'l1', name: 'L', api: 'v2', dicts: { 'en-de': { a: 'A' } } },
          { id: 'l2', name: 'L', api: 'v2', dicts: { 'en-de': { a: 'x' } } },
        ],
        styleRules: [{ id: 's1', name: 'S' }],
      }),
    });
    expect(p.operations.length).toBe(3);
    expect(p.guards).toEqual([]);
  });

  it('max_deletes counts prune deletes and replace deletes', () => {
    const desired = desiredState({ glossaries: [glossary('V', { 'en-de': { a: 'new' } }, { api: 'v2' })] }, { prune: 'all', guards: { maxDeletes: 1, maxRemovedEntriesPercent: 100, allowEmpty: false } });
    const p = createPlan({
      target: 'default',
      desired,
      live: liveState({ glossaries: [{ id: 'v', name: 'V', api: 'v2', dicts: { 'en-de': { a: 'old' } } }, { id: 'x', name: 'X', dicts: { 'en-de': {} } }] }),
    });
    expect(p.guards.map((g) => g.guard)).toEqual(['max_deletes']);
    expect(p.guards[0]?.message).toBe('the plan deletes 2 resources, more than max_deletes (1)');
    const atLimit = createPlan({
      target: 'default',
      desired: { ...desired, config: { ...desired.config, guards: { ...desired.config.guards, maxDeletes: 2 } } },
      live: liveState({ glossaries: [{ id: 'v', name: 'V', api: 'v2', dicts: { 'en-de': { a: 'old' } } }, { id: 'x', name: 'X', dicts: { 'en-de': {} } }] }),
    });
    expect(atLimit.guards).toEqual([]);
  });

  it('max_removed_entries_percent applies per remaining dictionary, strictly above the limit', () => {
    const guards = { maxDeletes: 10, maxRemovedEntriesPercent: 50, allowEmpty: false };
    const p = createPlan({
      target: 'default',
      desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' }, 'en-fr': { a: 'A' } })] }, { guards }),
      live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A', b: 'B', c: 'C' }, 'en-fr': { a: 'A', b: 'B' }, 'en-it': { a: 'A' } } }] }),
    });
    expect(p.guards.map((g) => g.message)).toEqual([
      'glossary "G" en-de loses 2 of 3 entries (66.7%), more than max_removed_entries_percent (50%)',
      'glossary "G" en-it is deleted and loses 1 of 1 entry (100%), more than max_removed_entries_percent (50%)',
    ]);
    expect(p.guards.every((g) => g.guard === 'max_removed_entries_percent')).toBe(true);
  });

  it('a deleted dictionary (dropped, or a live extra pair) counts as losing 100%: blocked unless the guard allows 100', () => {
    const desired = (percent: number) =>
      desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }, { guards: { maxDeletes: 10, maxRemovedEntriesPercent: percent, allowEmpty: false } });
    const live = liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' }, 'en-sv': { a: 'A', b: 'B' } } }] });
    const blocked = createPlan({ target: 'd', desired: desired(99), live });
    expect(blocked.operations.map((o) => o.type)).toEqual(['glossary.delete_dictionary']);
    expect(blocked.guards).toEqual([
      {
        guard: 'max_removed_entries_percent',
        resource: { kind: 'glossary', name: 'G' },
        message: 'glossary "G" en-sv is deleted and loses 2 of 2 entries (100%), more than max_removed_entries_percent (99%)',
      },
    ]);
    expect(createPlan({ target: 'd', desired: desired(100), live }).guards).toEqual([]);
  });

  it('a whole glossary deleted by prune is governed by max_deletes, not by max_removed_entries_percent', () => {
    const p = createPlan({
      target: 'd',
      desired: desiredState({ glossaries: [glossary('Kept', { 'en-de': { a: 'A' } })] }, { prune: 'all', guards: { maxDeletes: 10, maxRemovedEntriesPercent: 0, allowEmpty: false } }),
      live: liveState({ glossaries: [{ id: 'k', name: 'Kept', dicts: { 'en-de': { a: 'A' } } }, { id: 'x', name: 'X', dicts: { 'en-de': { a: 'A' } } }] }),
    });
    expect(p.operations.map((o) => o.type)).toEqual(['glossary.delete']);
    expect(p.guards).toEqual([]);
  });

  it('allow_empty: a repository that declares nothing deletes nothing unless allowed', () => {
    const liveAll = liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' } } }] });
    const blocked = createPlan({ target: 'd', desired: desiredState({}, { prune: 'all' }), live: liveAll });
    expect(blocked.guards.map((g) => g.guard)).toEqual(['allow_empty']);
    const allowed = createPlan({ target: 'd', desired: desiredState({}, { prune: 'all', guards: { ...config().guards, allowEmpty: true } }), live: liveAll });
    expect(allowed.guards).toEqual([]);
    expect(allowed.operations).toHaveLength(1);
    const nothingToDelete = createPlan({ target: 'd', desired: desiredState({}, { prune: 'off' }), live: liveAll });
    expect(nothingToDelete.guards).toEqual([]);
  });
});

describe('renamed_from when both the old and the new name exist live', () => {
  const live = liveState({
    glossaries: [
      { id: 'new', name: 'Payments', dicts: { 'en-de': { a: 'A' } } },
      { id: 'old', name: 'Checkout', dicts: { 'en-de': { a: 'A' } } },
    ],
  });
  const desired = (prune: ProjectConfig['prune']) =>
    desiredState({ glossaries: [glossary('Payments', { 'en-de': { a: 'A' } }, { renamedFrom: 'Checkout' })] }, { prune });

  it('warns that the rename was not done, and that the old one is pruned', () => {
    const p = createPlan({ target: 'd', desired: desired('all'), live });
    expect(p.warnings).toEqual([
      {
        resource: { kind: 'glossary', name: 'Payments' },
        message:
          'renamed_from "Checkout" not done: both "Checkout" (id old) and "Payments" (id new) exist on the service, so "Payments" is kept as it is and "Checkout" is not renamed; it is deleted by prune',
      },
    ]);
    const deleted = p.changes.find((c) => c.liveId === 'old');
    expect(deleted?.action).toBe('delete');
    expect(deleted?.reasons).toContain('named in renamed_from of "Payments", but "Payments" exists too, so it was not renamed');
  });

  it('warns that the old one is left alone when prune is off', () => {
    const p = createPlan({ target: 'd', desired: desired('off'), live });
    expect(p.changes).toEqual([]);
    expect(p.warnings?.map((w) => w.message)).toEqual([expect.stringMatching(/not done: both .*; it is left alone \(not managed/)]);
  });

  it('says nothing when only one of the names exists', () => {
    const onlyOld = liveState({ glossaries: [{ id: 'old', name: 'Checkout', dicts: { 'en-de': { a: 'A' } } }] });
    expect(createPlan({ target: 'd', desired: desired('all'), live: onlyOld }).warnings).toBeUndefined();
  });
});
