import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import type { CapabilitySetting, DesiredGlossary, DesiredState, DesiredStyleRules, LiveState, PruneMode } from '../../src/model/index.js';
import { createPlan, fingerprintLive, compareFingerprints } from '../../src/plan/index.js';
import { desiredState, glossary, liveState, styleRules, type LiveGlossarySpec, type LiveStyleSpec } from './builders.js';
import { simulateApply } from './simulate-apply.js';

// A small universe, so random desired and live states overlap often.
const GLOSSARY_NAMES = ['A', 'B', 'C', 'D'];
const STYLE_NAMES = ['S', 'T', 'U'];
const PAIRS = ['en-de', 'en-fr', 'de-en'];
const terms = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.constantFrom('1', '2', '3'), { maxKeys: 5 });
const dictsOf = (min: number, max: number) =>
  fc.uniqueArray(fc.tuple(fc.constantFrom(...PAIRS), terms), { minLength: min, maxLength: max, selector: ([pair]) => pair }).map((list) => Object.fromEntries(list));
const api = fc.constantFrom<'v2' | 'v3'>('v2', 'v3');
const rules = fc.constantFrom({}, { punctuation: { apostrophe: 'use_curly_apostrophes' } }, { punctuation: { apostrophe: 'other' }, style_and_tone: { abbreviations: 'x' } });
const instruction = fc.record(
  { label: fc.constantFrom('L1', 'L2', 'L3'), prompt: fc.constantFrom('p', 'q'), sourceLanguage: fc.constantFrom('en', 'fr') },
  { requiredKeys: ['label', 'prompt'] },
);

const desiredGlossary = (name: string, renameFrom: readonly string[]): fc.Arbitrary<DesiredGlossary> =>
  fc
    .record({ api, renamedFrom: fc.option(fc.constantFrom(...renameFrom), { nil: undefined }), v2: dictsOf(1, 1), v3: dictsOf(1, 3) })
    .map((r) => glossary(name, r.api === 'v2' ? r.v2 : r.v3, { api: r.api, ...(r.renamedFrom === undefined || r.renamedFrom === name ? {} : { renamedFrom: r.renamedFrom }) }));

const desiredStyle = (name: string, renameFrom: readonly string[]): fc.Arbitrary<DesiredStyleRules> =>
  fc
    .record({
      language: fc.constantFrom('de', 'fr'),
      rules,
      instructions: fc.uniqueArray(instruction, { maxLength: 3, selector: (i) => i.label }),
      renamedFrom: fc.option(fc.constantFrom(...renameFrom), { nil: undefined }),
    })
    .map((r) => styleRules(name, { language: r.language, rules: r.rules, instructions: r.instructions, ...(r.renamedFrom === undefined || r.renamedFrom === name ? {} : { renamedFrom: r.renamedFrom }) }));

function desiredArb(renameFromDeclared: boolean): fc.Arbitrary<DesiredState> {
  return fc
    .record({
      glossaryNames: fc.subarray(GLOSSARY_NAMES),
      styleNames: fc.subarray(STYLE_NAMES),
      prune: fc.constantFrom<PruneMode>('off', 'owned', 'all'),
      deleteInstruction: fc.constantFrom<CapabilitySetting>('auto', 'yes', 'no'),
    })
    .chain(({ glossaryNames, styleNames, prune, deleteInstruction }) => {
      // For the exact write count, rename sources are names the repository does not declare.
      const gFrom = renameFromDeclared ? GLOSSARY_NAMES : GLOSSARY_NAMES.filter((n) => !glossaryNames.includes(n));
      const sFrom = renameFromDeclared ? STYLE_NAMES : STYLE_NAMES.filter((n) => !styleNames.includes(n));
      return fc
        .record({
          glossaries: fc.tuple(...glossaryNames.map((n) => desiredGlossary(n, gFrom.length > 0 ? gFrom : [n]))),
          styles: fc.tuple(...styleNames.map((n) => desiredStyle(n, sFrom.length > 0 ? sFrom : [n]))),
        })
        .map(({ glossaries, styles }) =>
          desiredState(
            { glossaries, styleRules: styles },
            {
              prune,
              ownedNames: '{A,B,S}',
              guards: { maxDeletes: 1000, maxRemovedEntriesPercent: 100, allowEmpty: true },
              targets: [{ name: 't', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY', capabilities: { deleteCustomInstruction: deleteInstruction } }],
            },
          ),
        );
    });
}

function liveArb(uniqueNames: boolean): fc.Arbitrary<LiveState> {
  const liveGlossary = fc
    .record({ name: fc.constantFrom(...GLOSSARY_NAMES), api, v2: dictsOf(1, 1), v3: dictsOf(0, 3), day: fc.integer({ min: 10, max: 28 }) })
    .map((r) => ({ name: r.name, api: r.api, dicts: r.api === 'v2' ? r.v2 : r.v3, creationTime: `2026-01-${r.day}T00:00:00.000Z` }));
  const liveStyle = fc.record({
    name: fc.constantFrom(...STYLE_NAMES),
    language: fc.constantFrom('de', 'fr'),
    rules,
    instructions: fc.array(instruction, { maxLength: 3 }),
    day: fc.integer({ min: 10, max: 28 }),
  });
  const gs = uniqueNames ? fc.uniqueArray(liveGlossary, { maxLength: 4, selector: (g) => g.name }) : fc.array(liveGlossary, { maxLength: 5 });
  const ss = uniqueNames ? fc.uniqueArray(liveStyle, { maxLength: 3, selector: (s) => s.name }) : fc.array(liveStyle, { maxLength: 4 });
  return fc.record({ gs, ss }).map(({ gs: glossaries, ss: styles }) =>
    liveState({
      glossaries: glossaries.map((g, i): LiveGlossarySpec => ({ id: `g${i}`, ...g })),
      styleRules: styles.map(
        (s, i): LiveStyleSpec => ({
          id: `s${i}`,
          name: s.name,
          language: s.language,
          rules: s.rules,
          creationTime: `2026-01-${s.day}T00:00:00.000Z`,
          // Unique labels unless duplicates are wanted (they force a replace).
          instructions: (uniqueNames ? s.instructions.filter((x, j, all) => all.findIndex((y) => y.label === x.label) === j) : s.instructions).map((x, j) => ({ id: `s${i}-i${j}`, ...x })),
        }),
      ),
    }),
  );
}

/** The minimum number of writes, counted from the spec's rules without the planner. */
function minimumWrites(desired: DesiredState, live: LiveState): number {
  let writes = 0;
  const claimedG = new Set<string>();
  for (const d of desired.glossaries) {
    // The live glossary it becomes: same name and api, else the renamed_from one (keeping a v3 id
    // beats saving a call), else the same name with the other api. Any other of the name is a leftover.
    const sameName = live.glossaries.find((g) => g.name === d.name);
    const renamed = live.glossaries.find((g) => d.renamedFrom !== undefined && g.name === d.renamedFrom && !claimedG.has(g.id));
    const l = sameName?.api === d.api ? sameName : (renamed ?? sameName);
    if (sameName !== undefined && sameName !== l) {
      writes += 1;
      claimedG.add(sameName.id);
    }
    if (l === undefined) {
      writes += 1;
      continue;
    }
    claimedG.add(l.id);
    const liveDicts = new Map(l.dictionaries.map((x) => [`${x.sourceLang}-${x.targetLang}`, live.entries.get(`${l.id}/${x.sourceLang}-${x.targetLang}`) ?? new Map<string, string>()]));
    const same = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
    if (l.api !== d.api) {
      writes += 2;
    } else if (d.api === 'v2') {
      const [want] = d.dictionaries;
      const have = want === undefined ? undefined : liveDicts.get(`${want.sourceLang}-${want.targetLang}`);
      writes += l.name === d.name && want !== undefined && have !== undefined && liveDicts.size === 1 && same(want.entries, have) ? 0 : 2;
    } else {
      let differing = 0;
      let mergeable = false;
      const pairs = new Set([...liveDicts.keys(), ...d.dictionaries.map((x) => `${x.sourceLang}-${x.targetLang}`)]);
      for (const pair of pairs) {
        const want = d.dictionaries.find((x) => `${x.sourceLang}-${x.targetLang}` === pair)?.entries;
        const have = liveDicts.get(pair);
        if (want !== undefined && have !== undefined && same(want, have)) continue;
        differing += 1;
        if (want !== undefined && have !== undefined && [...have.keys()].every((k) => want.has(k))) mergeable = true;
      }
      // A rename rides along with a merge; without one it is a call of its own.
      writes += differing + (l.name !== d.name && !mergeable ? 1 : 0);
    }
  }
  const claimedS = new Set<string>();
  for (const d of desired.styleRules) {
    const l = live.styleRules.find((s) => s.name === d.name) ?? live.styleRules.find((s) => d.renamedFrom !== undefined && s.name === d.renamedFrom && !claimedS.has(s.id));
    if (l === undefined) {
      writes += 1;
      continue;
    }
    claimedS.add(l.id);
    const labels = new Map(d.customInstructions.map((i) => [i.label, i]));
    // A source language is compared only when declared; a removed instruction is one DELETE,
    // unless the target says it cannot (capability no): then the list is replaced.
    const removedCount = l.customInstructions.filter((i) => !labels.has(i.label)).length;
    const noDelete = desired.config.targets[0]?.capabilities?.deleteCustomInstruction === 'no';
    const mustReplace =
      l.language !== d.language ||
      (noDelete && removedCount > 0) ||
      l.customInstructions.some((i) => {
        const want = labels.get(i.label);
        return want !== undefined && want.sourceLanguage !== undefined && want.sourceLanguage !== (i.sourceLanguage ?? '');
      });
    if (mustReplace) {
      writes += 2;
      continue;
    }
    writes += removedCount;
    const rulesKey = (r: object): string => JSON.stringify(Object.entries(r).map(([c, o]) => [c, Object.entries(o as object).sort()]).sort());
    writes += (l.name !== d.name ? 1 : 0) + (rulesKey(l.configuredRules) !== rulesKey(d.configuredRules) ? 1 : 0);
    for (const i of d.customInstructions) {
      const have = l.customInstructions.find((x) => x.label === i.label);
      if (have === undefined || have.prompt !== i.prompt) writes += 1;
    }
  }
  const owned = (name: string): boolean => desired.config.prune === 'all' || (desired.config.prune === 'owned' && ['A', 'B', 'S'].includes(name));
  writes += live.glossaries.filter((g) => !claimedG.has(g.id) && owned(g.name)).length;
  writes += live.styleRules.filter((s) => !claimedS.has(s.id) && owned(s.name)).length;
  return writes;
}

describe('planner properties (in-memory service model)', () => {
  it('converges: applying a plan makes the follow-up plan empty, also with duplicates and crash leftovers', () => {
    fc.assert(
      fc.property(desiredArb(true), liveArb(false), (desired, live) => {
        const plan = createPlan({ target: 't', desired, live });
        const after = simulateApply(live, plan.operations);
        const followUp = createPlan({ target: 't', desired, live: after });
        expect(followUp.operations).toEqual([]);
        expect(followUp.changes).toEqual([]);
        // The plan's own fingerprints are fresh against the state it was made from.
        expect(compareFingerprints(plan.fingerprints, fingerprintLive(live))).toEqual([]);
      }),
      { numRuns: runs(250) },
    );
  });

  it('is minimal: the writes equal the dictionaries, instructions and resources that differ', () => {
    fc.assert(
      fc.property(desiredArb(false), liveArb(true), (desired, live) => {
        const plan = createPlan({ target: 't', desired, live });
        expect(plan.operations.length).toBe(minimumWrites(desired, live));
        const calls = plan.summary.calls;
        expect(calls.POST + calls.PUT + calls.PATCH + calls.DELETE).toBe(plan.operations.length);
      }),
      { numRuns: runs(250) },
    );
  });

  it('recovers from a run cut off at any point, and a declared glossary is never missing meanwhile', () => {
    fc.assert(
      fc.property(desiredArb(true), liveArb(false), fc.nat(), (desired, live, cut) => {
        const plan = createPlan({ target: 't', desired, live });
        const done = plan.operations.slice(0, plan.operations.length === 0 ? 0 : cut % (plan.operations.length + 1));
        const interrupted = simulateApply(live, done);
        for (const d of desired.glossaries) {
          if (live.glossaries.some((g) => g.name === d.name)) expect(interrupted.glossaries.some((g) => g.name === d.name)).toBe(true);
        }
        const rerun = createPlan({ target: 't', desired, live: interrupted });
        const final = simulateApply(interrupted, rerun.operations);
        expect(createPlan({ target: 't', desired, live: final }).operations).toEqual([]);
      }),
      { numRuns: runs(200) },
    );
  });

  it('never deletes before the create it depends on, and never deletes and recreates a v3 glossary', () => {
    fc.assert(
      fc.property(desiredArb(true), liveArb(false), (desired, live) => {
        const plan = createPlan({ target: 't', desired, live });
        const createdNames = new Set(plan.operations.filter((op) => op.type === 'glossary.create').map((op) => op.resource.name));
        for (const op of plan.operations) {
          if (op.type === 'glossary.delete' && op.api === 'v3') expect(createdNames.has(op.resource.name) && plan.changes.some((c) => c.action === 'replace' && c.liveId === op.glossaryId && c.api === 'v3')).toBe(false);
        }
        const position = new Map(plan.operations.map((op, i) => [op.key, i]));
        plan.operations.forEach((op, i) => op.dependsOn.forEach((dep) => expect(position.get(dep)).toBeLessThan(i)));
      }),
      { numRuns: runs(200) },
    );
  });
});
