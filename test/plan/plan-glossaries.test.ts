import { describe, expect, it } from 'vitest';
import type { Operation, Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { desiredState, glossary, liveState, type LiveGlossarySpec } from './builders.js';
import type { DesiredGlossary } from '../../src/model/index.js';
import { PackedEntries } from '../../src/model/packed-entries.js';

function plan(glossaries: readonly DesiredGlossary[], live: readonly LiveGlossarySpec[]): Plan {
  return createPlan({ target: 'default', desired: desiredState({ glossaries }), live: liveState({ glossaries: live }) });
}

function types(p: Plan): string[] {
  return p.operations.map((op) => op.type);
}

function only<T extends Operation['type']>(p: Plan, type: T): Extract<Operation, { type: T }> {
  const ops = p.operations.filter((op): op is Extract<Operation, { type: T }> => op.type === type);
  expect(ops).toHaveLength(1);
  return ops[0] as Extract<Operation, { type: T }>;
}

describe('v3 glossaries', () => {
  it('targets planned from one loaded repository share a created dictionary\'s entries and added terms, instead of a copy each', () => {
    // The daemon plans many targets side by side from one load: a copy per target of every entry
    // (a pair, its phrases, an added change) made memory grow with the targets at once.
    const product: DesiredGlossary = { ...glossary('Product', {}), dictionaries: [{ sourceLang: 'en', targetLang: 'de', entries: PackedEntries.fromText('b\tB\na\tA\n', 2, true), origin: { file: 'glossaries/product.yaml', line: 1, column: 1 } }] };
    const desired = desiredState({ glossaries: [product] });
    const first = createPlan({ target: 'one', desired, live: liveState({ glossaries: [] }) });
    const second = createPlan({ target: 'two', desired, live: liveState({ glossaries: [] }) });
    const entries = (p: Plan) => only(p, 'glossary.create').dictionaries[0]?.entries;
    expect(entries(first)).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(entries(second)).toBe(entries(first));
    expect(second.changes[0]?.dictionaries[0]?.entryChanges).toEqual([
      { source: 'a', after: 'A' },
      { source: 'b', after: 'B' },
    ]);
    expect(second.changes[0]?.dictionaries[0]?.entryChanges).toBe(first.changes[0]?.dictionaries[0]?.entryChanges);
  });

  it('creates a missing glossary with one POST carrying every dictionary, sorted', () => {
    const p = plan([glossary('Product', { 'en-fr': { b: 'B' }, 'en-de': { a: 'A', c: 'C' } })], []);
    const op = only(p, 'glossary.create');
    expect(p.operations).toHaveLength(1);
    expect(op.name).toBe('Product');
    expect(op.dictionaries.map((d) => `${d.sourceLang}-${d.targetLang}`)).toEqual(['en-de', 'en-fr']);
    expect(op.dictionaries[0]?.entries).toEqual([
      ['a', 'A'],
      ['c', 'C'],
    ]);
    expect(p.changes[0]?.action).toBe('create');
    expect(p.changes[0]?.dictionaries.map((d) => [d.method, d.added])).toEqual([
      ['POST', 2],
      ['POST', 1],
    ]);
    expect(p.summary).toMatchObject({ add: 1, change: 0, destroy: 0, dictionaries: 2, entriesAdded: 3, calls: { POST: 1, PUT: 0, PATCH: 0, DELETE: 0 } });
  });

  it('plans nothing when the glossary equals the repository, whatever the entry order', () => {
    const p = plan([glossary('Product', { 'en-de': { a: 'A', b: 'B' } })], [{ id: 'g1', name: 'Product', dicts: { 'en-de': { b: 'B', a: 'A' } } }]);
    expect(p.changes).toEqual([]);
    expect(p.operations).toEqual([]);
    expect(p.summary).toMatchObject({ add: 0, change: 0, destroy: 0, dictionaries: 0, uploadBytes: 0 });
  });

  it('PATCHes only the added and changed entries when nothing was removed', () => {
    const p = plan(
      [glossary('Product', { 'en-de': { a: 'A', b: 'B2', c: 'C' } })],
      [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A', b: 'B' } } }],
    );
    const op = only(p, 'glossary.patch');
    expect(op.glossaryId).toBe('g1');
    expect(op.name).toBeUndefined();
    expect(op.dictionary?.entries).toEqual([
      ['b', 'B2'],
      ['c', 'C'],
    ]);
    const change = p.changes[0];
    expect(change?.action).toBe('update');
    expect(change?.reasons).toEqual(['en-de: entries added or changed only → PATCH']);
    expect(change?.dictionaries[0]).toMatchObject({ method: 'PATCH', added: 1, changed: 1, removed: 0, entriesBefore: 2, entriesAfter: 3 });
    expect(change?.dictionaries[0]?.entryChanges).toEqual([
      { source: 'b', before: 'B', after: 'B2' },
      { source: 'c', after: 'C' },
    ]);
    // What the client sends: lines joined by LF, no final line break.
    expect(p.summary.uploadBytes).toBe('b\tB2\nc\tC'.length);
  });

  it('PUTs the whole dictionary when any entry was removed', () => {
    const p = plan([glossary('Product', { 'en-de': { a: 'A', c: 'C' } })], [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A', b: 'B' } } }]);
    const op = only(p, 'glossary.put_dictionary');
    expect(op.dictionary.entries).toEqual([
      ['a', 'A'],
      ['c', 'C'],
    ]);
    expect(types(p)).toEqual(['glossary.put_dictionary']);
    expect(p.changes[0]?.reasons).toEqual(['en-de: entries removed → PUT']);
    expect(p.changes[0]?.dictionaries[0]).toMatchObject({ method: 'PUT', added: 1, changed: 0, removed: 1 });
  });

  it('adds a new language pair with PUT and drops a vanished one with DELETE', () => {
    const p = plan([glossary('Product', { 'en-de': { a: 'A' }, 'en-fr': { a: 'Af' } })], [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A' }, 'en-it': { a: 'Ai' } } }]);
    expect(types(p)).toEqual(['glossary.put_dictionary', 'glossary.delete_dictionary']);
    const del = only(p, 'glossary.delete_dictionary');
    expect([del.sourceLang, del.targetLang, del.glossaryId]).toEqual(['en', 'it', 'g1']);
    expect(only(p, 'glossary.put_dictionary').dictionary.targetLang).toBe('fr');
    expect(p.changes[0]?.dictionaries.map((d) => [d.targetLang, d.action, d.method])).toEqual([
      ['fr', 'create', 'PUT'],
      ['it', 'delete', 'DELETE'],
    ]);
    expect(p.changes[0]?.reasons).toEqual(['en-fr: new language pair → PUT', 'en-it: language pair no longer declared → DELETE']);
  });

  it('deletes a replaced language pair only after the new pair is in (the glossary is never empty)', () => {
    const p = plan([glossary('Product', { 'en-fr': { a: 'Af' } })], [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A' } } }]);
    const put = only(p, 'glossary.put_dictionary');
    const del = only(p, 'glossary.delete_dictionary');
    expect(del.targetLang).toBe('de');
    expect(del.dependsOn).toEqual([put.key]);
    expect(put.dependsOn).toEqual([]);
  });

  it('folds a rename into the first dictionary merge: one PATCH, not two', () => {
    const p = plan(
      [glossary('New', { 'en-de': { a: 'A', b: 'B' }, 'en-fr': { a: 'Af', b: 'Bf' } }, { renamedFrom: 'Old' })],
      [{ id: 'g1', name: 'Old', dicts: { 'en-de': { a: 'A' }, 'en-fr': { a: 'Af' } } }],
    );
    expect(types(p)).toEqual(['glossary.patch', 'glossary.patch']);
    const [first, second] = p.operations.filter((op) => op.type === 'glossary.patch');
    expect(first?.name).toBe('New');
    expect(first?.dictionary?.targetLang).toBe('de');
    expect(second?.name).toBeUndefined();
    expect(p.changes[0]).toMatchObject({ action: 'update', renamedFrom: 'Old', liveId: 'g1' });
    expect(p.changes[0]?.reasons[0]).toBe('renamed from "Old"');
    expect(p.summary.calls.PATCH).toBe(2);
  });

  it('renames with a name-only PATCH when no dictionary is merged', () => {
    const p = plan(
      [glossary('New', { 'en-de': { a: 'A' }, 'en-fr': { b: 'B' } }, { renamedFrom: 'Old' })],
      [{ id: 'g1', name: 'Old', dicts: { 'en-de': { a: 'A', x: 'X' }, 'en-fr': { b: 'B' } } }],
    );
    expect(types(p)).toEqual(['glossary.patch', 'glossary.put_dictionary']);
    const patch = only(p, 'glossary.patch');
    expect(patch.name).toBe('New');
    expect(patch.dictionary).toBeUndefined();
  });

  it('creates when neither the name nor renamed_from exists, and leaves the old name alone when both exist', () => {
    const created = plan([glossary('New', { 'en-de': { a: 'A' } }, { renamedFrom: 'Old' })], []);
    expect(types(created)).toEqual(['glossary.create']);
    const both = plan(
      [glossary('New', { 'en-de': { a: 'A' } }, { renamedFrom: 'Old' })],
      [
        { id: 'g1', name: 'Old', dicts: { 'en-de': { a: 'A' } } },
        { id: 'g2', name: 'New', dicts: { 'en-de': { a: 'A' } } },
      ],
    );
    expect(both.operations).toEqual([]);
    expect(both.notManaged).toEqual([{ kind: 'glossary', name: 'Old', id: 'g1' }]);
  });

  it('never deletes and recreates a v3 glossary, however much changes', () => {
    const p = plan(
      [glossary('Product', { 'en-de': { z: 'Z' }, 'en-fr': { y: 'Y' } })],
      [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A', b: 'B' }, 'en-it': { c: 'C' } } }],
    );
    expect(types(p)).not.toContain('glossary.delete');
    expect(types(p)).not.toContain('glossary.create');
    expect(p.changes.map((c) => c.action)).toEqual(['update']);
  });

  it('deletes a v2 glossary of the declared name left over from an api change, keeping the v3 one', () => {
    const p = plan(
      [glossary('Product', { 'en-de': { a: 'A' } })],
      [
        { id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A' } } },
        { id: 'g0', name: 'Product', api: 'v2', dicts: { 'en-de': { a: 'old' } } },
      ],
    );
    const del = only(p, 'glossary.delete');
    expect([del.glossaryId, del.api, del.dependsOn]).toEqual(['g0', 'v2', []]);
    expect(p.changes[0]?.reasons[0]).toContain('left over from an api change');
  });

  it('throws an internal error when entries the plan needs were not read', () => {
    const live = liveState({ glossaries: [{ id: 'g1', name: 'Product', dicts: { 'en-de': { a: 'A' } } }] });
    const unread = { ...live, entries: new Map() };
    expect(() => createPlan({ target: 't', desired: desiredState({ glossaries: [glossary('Product', { 'en-de': { a: 'A' } })] }), live: unread })).toThrow(
      /entries of en-de in glossary "Product" \(id g1\) were not read/,
    );
  });
});

describe('v2 glossaries', () => {
  const v2 = (terms: Record<string, string>, name = 'Legacy'): DesiredGlossary => glossary(name, { 'en-de': terms }, { api: 'v2' });

  it('plans nothing when equal', () => {
    const p = plan([v2({ a: 'A' })], [{ id: 'g1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } } }]);
    expect(p.operations).toEqual([]);
  });

  it('replaces on any difference: create the new one first, then delete the old after it', () => {
    const p = plan([v2({ a: 'A', b: 'B' })], [{ id: 'g1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } } }]);
    expect(types(p)).toEqual(['glossary_v2.create', 'glossary.delete']);
    const [create, del] = p.operations;
    expect(create?.key).toBe('op-1');
    expect(del).toMatchObject({ key: 'op-2', glossaryId: 'g1', api: 'v2', dependsOn: ['op-1'] });
    expect(p.changes[0]).toMatchObject({ action: 'replace', api: 'v2', liveId: 'g1' });
    expect(p.changes[0]?.reasons).toContain('immutable v2 → replace (create new, then delete old)');
    expect(p.changes[0]?.dictionaries[0]).toMatchObject({ action: 'update', method: 'POST', added: 1 });
    expect(p.summary).toMatchObject({ add: 1, change: 0, destroy: 1 });
  });

  it('replaces a renamed v2 glossary (it cannot be renamed in place)', () => {
    const p = plan([glossary('New', { 'en-de': { a: 'A' } }, { api: 'v2', renamedFrom: 'Old' })], [{ id: 'g1', name: 'Old', api: 'v2', dicts: { 'en-de': { a: 'A' } } }]);
    expect(types(p)).toEqual(['glossary_v2.create', 'glossary.delete']);
    expect(p.changes[0]?.reasons).toContain('renamed from "Old"');
  });

  it('keeps the duplicate that already matches and deletes the rest', () => {
    const p = plan(
      [v2({ a: 'A' })],
      [
        { id: 'g1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'old' } }, creationTime: '2026-01-01T00:00:00.000Z' },
        { id: 'g2', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'A' } }, creationTime: '2026-01-02T00:00:00.000Z' },
        { id: 'g3', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'older' } }, creationTime: '2026-01-03T00:00:00.000Z' },
      ],
    );
    expect(types(p)).toEqual(['glossary.delete', 'glossary.delete']);
    expect(p.operations.map((op) => (op.type === 'glossary.delete' ? op.glossaryId : ''))).toEqual(['g1', 'g3']);
    expect(p.changes.every((c) => c.action === 'delete' && c.reasons[0]?.startsWith('duplicate v2 glossary'))).toBe(true);
  });

  it('with duplicates and none matching, creates one and deletes every old one after it', () => {
    const p = plan(
      [v2({ a: 'A' })],
      [
        { id: 'g1', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'x' } } },
        { id: 'g2', name: 'Legacy', api: 'v2', dicts: { 'en-de': { a: 'y' } } },
      ],
    );
    expect(types(p)).toEqual(['glossary_v2.create', 'glossary.delete', 'glossary.delete']);
    expect(p.operations.slice(1).map((op) => op.dependsOn)).toEqual([['op-1'], ['op-1']]);
    expect(p.changes.map((c) => c.action)).toEqual(['replace', 'delete']);
  });

  it('replaces on an api change in either direction and says why', () => {
    const toV3 = plan([glossary('G', { 'en-de': { a: 'A' } })], [{ id: 'g1', name: 'G', api: 'v2', dicts: { 'en-de': { a: 'A' } } }]);
    expect(types(toV3)).toEqual(['glossary.create', 'glossary.delete']);
    expect(only(toV3, 'glossary.delete')).toMatchObject({ glossaryId: 'g1', api: 'v2', dependsOn: ['op-1'] });
    expect(toV3.changes[0]?.reasons[0]).toBe('api changed from v2 to v3 → replace (create new, then delete old)');

    const toV2 = plan([v2({ a: 'A' }, 'G')], [{ id: 'g1', name: 'G', api: 'v3', dicts: { 'en-de': { a: 'A' } } }]);
    expect(types(toV2)).toEqual(['glossary_v2.create', 'glossary.delete']);
    expect(only(toV2, 'glossary.delete').api).toBe('v3');
    expect(toV2.changes[0]?.reasons[0]).toBe('api changed from v3 to v2 → replace (create new, then delete old)');
  });
});
