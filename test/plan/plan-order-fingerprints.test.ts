import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareFingerprints, createPlan, dictionariesToRead, fingerprintLive, hashEntries } from '../../src/plan/index.js';
import { dictionariesOfFingerprints } from '../../src/live/select-dictionaries.js';
import { desiredState, glossary, liveState, styleRules } from './builders.js';

const desired = desiredState(
  {
    glossaries: [
      glossary('Zeta', { 'en-de': { a: 'A' } }),
      glossary('Alpha', { 'en-de': { a: 'A2' } }, { api: 'v2' }),
      glossary('Mid', { 'en-de': { a: 'A', b: 'B' }, 'en-fr': { é: 'ü' } }, { renamedFrom: 'Mid old' }),
    ],
    styleRules: [styleRules('Style', { rules: { a: { b: 'c' } } })],
  },
  { prune: 'all' },
);
const live = liveState({
  glossaries: [
    { id: 'g-alpha', name: 'Alpha', api: 'v2', dicts: { 'en-de': { a: 'A' } } },
    { id: 'g-mid', name: 'Mid old', dicts: { 'en-de': { a: 'A' }, 'en-fr': { x: 'X' } } },
    { id: 'g-gone', name: 'Gone', dicts: { 'de-en': { a: 'A' } } },
  ],
  styleRules: [{ id: 's1', name: 'Style', version: 3 }],
});

describe('plan order and summary', () => {
  const p = createPlan({ target: 'default', desired, live });

  it('sorts changes by kind then name and numbers operations creates-first, deletes-last', () => {
    expect(p.changes.map((c) => `${c.address.kind}:${c.address.name}:${c.action}`)).toEqual([
      'glossary:Alpha:replace',
      'glossary:Gone:delete',
      'glossary:Mid:update',
      'glossary:Zeta:create',
      'style_rules:Style:update',
    ]);
    expect(p.operations.map((op) => `${op.key} ${op.type} ${op.resource.name}`)).toEqual([
      'op-1 glossary_v2.create Alpha',
      'op-2 glossary.create Zeta',
      'op-3 glossary.patch Mid',
      'op-4 glossary.put_dictionary Mid',
      'op-5 style_rules.put_configured_rules Style',
      'op-6 glossary.delete Alpha',
      'op-7 glossary.delete Gone',
    ]);
    expect(p.operations[5]?.dependsOn).toEqual(['op-1']);
    // Every dependency points at an earlier operation.
    for (const [i, op] of p.operations.entries()) for (const dep of op.dependsOn) expect(Number(dep.slice(3))).toBeLessThan(i + 1);
    expect(p.changes.find((c) => c.address.name === 'Mid')?.operations).toEqual(['op-3', 'op-4']);
  });

  it('is deterministic: the order of inputs does not matter', () => {
    const shuffled = createPlan({
      target: 'default',
      desired: { ...desired, glossaries: [...desired.glossaries].reverse() },
      live: { ...live, glossaries: [...live.glossaries].reverse(), entries: new Map([...live.entries].reverse()) },
    });
    expect(shuffled).toEqual(p);
  });

  it('counts Terraform-style and measures the upload in UTF-8 bytes', () => {
    expect(p.summary).toEqual({
      add: 2,
      change: 2,
      destroy: 2,
      dictionaries: 5,
      entriesAdded: 3,
      entriesChanged: 1,
      entriesRemoved: 2,
      calls: { POST: 2, PUT: 2, PATCH: 1, DELETE: 2 },
      // Alpha a\tA2 (4) + Zeta a\tA (3) + Mid en-de patch b\tB (3) + Mid en-fr put é\tü (2+1+2): no final line break
      uploadBytes: 4 + 3 + 3 + 5,
    });
  });
});

describe('dictionariesToRead', () => {
  it('reads only the pairs a matched glossary shares with the repository, v2 duplicates included', () => {
    const state = desiredState({
      glossaries: [
        glossary('A', { 'en-de': {}, 'en-fr': {} }),
        glossary('B', { 'en-de': {} }, { renamedFrom: 'B old' }),
        glossary('V', { 'en-de': {} }, { api: 'v2' }),
      ],
    });
    const glossaries = liveState({
      glossaries: [
        { id: 'a', name: 'A', dicts: { 'en-de': {}, 'en-it': {} } },
        { id: 'b', name: 'B old', dicts: { 'en-de': {} } },
        { id: 'v1', name: 'V', api: 'v2', dicts: { 'en-de': {} } },
        { id: 'v2', name: 'V', api: 'v2', dicts: { 'en-de': {} } },
        { id: 'v3', name: 'V', api: 'v2', dicts: { 'de-en': {} } },
        { id: 'x', name: 'Undeclared', dicts: { 'en-de': {} } },
      ],
    }).glossaries;
    const toRead = dictionariesToRead(state, glossaries);
    // Each read carries the repository's entries of its pair, for the fetch to compare as it reads.
    const declared = (name: string): unknown => state.glossaries.find((g) => g.name === name)?.dictionaries.find((d) => d.targetLang === 'de')?.entries;
    expect(toRead.map((d) => d.expected)).toEqual([declared('A'), declared('B'), declared('V'), declared('V')]);
    expect(toRead[0]?.expected).toBe(declared('A'));
    expect(toRead.map(({ expected: _, ...read }) => read)).toEqual([
      { glossaryId: 'a', api: 'v3', sourceLang: 'en', targetLang: 'de' },
      { glossaryId: 'b', api: 'v3', sourceLang: 'en', targetLang: 'de' },
      { glossaryId: 'v1', api: 'v2', sourceLang: 'en', targetLang: 'de' },
      { glossaryId: 'v2', api: 'v2', sourceLang: 'en', targetLang: 'de' },
    ]);
  });
});

describe('fingerprints', () => {
  const p = createPlan({ target: 'default', desired, live });

  it('holds what the plan depends on: declared names, touched resources, entry hashes of what was read', () => {
    expect(p.fingerprints.glossaries.map((g) => g.id)).toEqual(['g-alpha', 'g-gone', 'g-mid']);
    expect(p.fingerprints.glossaries.find((g) => g.id === 'g-mid')?.dictionaries).toEqual(['en-de:1', 'en-fr:1']);
    expect(Object.keys(p.fingerprints.glossaries.find((g) => g.id === 'g-mid')?.entryHashes ?? {})).toEqual(['en-de', 'en-fr']);
    expect(p.fingerprints.styleRules).toEqual([{ id: 's1', name: 'Style', version: 3 }]);
    expect(p.fingerprints.names).toEqual({ glossaries: ['Alpha', 'Mid', 'Zeta'], styleRules: ['Style'] });
    expect(dictionariesOfFingerprints(p.fingerprints, live.glossaries).map((d) => `${d.glossaryId}/${d.sourceLang}-${d.targetLang}`)).toEqual([
      'g-alpha/en-de',
      'g-gone/de-en',
      'g-mid/en-de',
      'g-mid/en-fr',
    ]);
  });

  it('without entry hashes (a plan only shown or applied at once) is the same plan, its entries unhashed', () => {
    const shown = createPlan({ target: 'default', desired, live, entryHashes: false });
    expect(shown.fingerprints.glossaries.every((g) => Object.keys(g.entryHashes).length === 0)).toBe(true);
    const withoutHashes = (plan: typeof p): unknown => ({ ...plan, fingerprints: { ...plan.fingerprints, glossaries: plan.fingerprints.glossaries.map((g) => ({ ...g, entryHashes: {} })) } });
    expect(withoutHashes(shown)).toEqual(withoutHashes(p));
  });

  it('hashes entries independently of their order, as JSON pairs sorted by source', () => {
    const entries = new Map([
      ['b', 'x "quoted"'],
      ['a', 'tab\there'],
    ]);
    const expected = createHash('sha256').update('["a","tab\\there"]\n["b","x \\"quoted\\""]\n').digest('hex');
    expect(hashEntries(entries)).toBe(expected);
    expect(hashEntries(new Map([...entries].reverse()))).toBe(expected);
  });

  it('is fresh against the same live state, whatever the entry order', () => {
    const reordered = { ...live, entries: new Map([...live.entries].map(([k, v]) => [k, new Map([...v].reverse())])) };
    expect(compareFingerprints(p.fingerprints, fingerprintLive(reordered))).toEqual([]);
  });

  it('names every difference that makes a saved plan stale', () => {
    const changed = liveState({
      glossaries: [
        { id: 'g-alpha', name: 'Alpha', api: 'v2', dicts: { 'en-de': { a: 'changed' } } },
        { id: 'g-mid', name: 'Mid renamed', dicts: { 'en-de': { a: 'A' }, 'en-fr': { x: 'X' }, 'en-it': {} } },
        { id: 'g-new', name: 'Zeta', dicts: { 'en-de': { a: 'A' } } },
        { id: 'g-unrelated', name: 'Someone else', dicts: {} },
      ],
      styleRules: [{ id: 's1', name: 'Style', version: 4 }],
    });
    expect(compareFingerprints(p.fingerprints, fingerprintLive(changed))).toEqual([
      'glossary "Alpha" (id g-alpha): entries of en-de changed',
      'glossary "Gone" (id g-gone) no longer exists',
      'glossary "Mid old" (id g-mid) was renamed to "Mid renamed"',
      'glossary "Mid old" (id g-mid): dictionaries changed (en-de:1, en-fr:1 → en-de:1, en-fr:1, en-it:0)',
      'glossary "Zeta" (id g-new) appeared since the plan was made',
      'style rule list "Style" (id s1) changed (version 3 → 4)',
    ]);
  });

  it('ignores changes to resources the plan leaves alone (not managed)', () => {
    const d = desiredState({ glossaries: [glossary('Mine', { 'en-de': { a: 'A' } })] });
    const before = liveState({ glossaries: [{ id: 'm', name: 'Mine', dicts: { 'en-de': { a: 'A' } } }, { id: 'o', name: 'Other', dicts: { 'en-de': { a: 'A' } } }] });
    const after = liveState({ glossaries: [{ id: 'm', name: 'Mine', dicts: { 'en-de': { a: 'A' } } }, { id: 'o2', name: 'Other 2', dicts: {} }] });
    const saved = createPlan({ target: 'd', desired: d, live: before }).fingerprints;
    expect(compareFingerprints(saved, fingerprintLive(after))).toEqual([]);
  });
});
