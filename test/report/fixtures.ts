import type { Plan } from '../../src/model/index.js';
import { createPlan } from '../../src/plan/index.js';
import { desiredState, glossary, liveState, styleRules } from '../plan/builders.js';

/** A plan with one change of every kind, made by the real planner. */
export function samplePlan(): Plan {
  const desired = desiredState(
    {
      glossaries: [
        glossary('Zeta', { 'en-de': { a: 'A' } }),
        glossary('Alpha', { 'en-de': { a: 'A2' } }, { api: 'v2', preventDestroy: true }),
        glossary('Mid', { 'en-de': { a: 'A', b: 'B' }, 'en-fr': { é: 'ü', k: 'K' } }, { renamedFrom: 'Mid old' }),
      ],
      styleRules: [styleRules('Style', { rules: { punctuation: { apostrophe: 'use_curly_apostrophes' } }, instructions: [{ label: 'Formal', prompt: 'Be formal.' }] })],
    },
    { prune: 'owned', ownedNames: 'termsync:*' },
  );
  const live = liveState({
    glossaries: [
      { id: 'g-alpha', name: 'Alpha', api: 'v2', dicts: { 'en-de': { a: 'A' } } },
      { id: 'g-mid', name: 'Mid old', dicts: { 'en-de': { a: 'A' }, 'en-fr': { x: 'X', k: 'K' } } },
      { id: 'g-gone', name: 'termsync:gone', dicts: { 'de-en': { a: 'A' } } },
      { id: 'g-manual', name: 'Manual', dicts: {} },
    ],
    styleRules: [{ id: 's1', name: 'Style', version: 3 }],
  });
  return createPlan({ target: 'default', desired, live });
}
