import { describe, expect, it } from 'vitest';
import type { DesiredGlossary } from '../../src/model/desired.js';
import { checkTranslation, createChecks, sampleEntries } from '../../src/verify/index.js';

const origin = { file: 'glossaries/g.yaml', line: 1, column: 1 };

function entries(n: number): Map<string, string> {
  return new Map(Array.from({ length: n }, (_, i) => [`term ${i}`, `Begriff ${i}`]));
}

describe('sampleEntries', () => {
  it('is a function of the seed and the entries, not of their order', () => {
    const forward = entries(100);
    const backward = new Map([...forward].reverse());
    expect(sampleEntries(forward, 5, 7, 'G\0en-de')).toEqual(sampleEntries(backward, 5, 7, 'G\0en-de'));
    expect(sampleEntries(forward, 5, 7, 'G\0en-de')).not.toEqual(sampleEntries(forward, 5, 8, 'G\0en-de'));
    expect(sampleEntries(forward, 500, 7, 'G\0en-de')).toHaveLength(100);
    expect(sampleEntries(forward, 0, 7, 'G\0en-de')).toEqual([]);
  });

  it('changes by at most one entry when an entry is added', () => {
    const before = new Set(sampleEntries(entries(100), 10, 3, 's').map(([s]) => s));
    const after = sampleEntries(new Map([...entries(100), ['new term', 'neuer Begriff']]), 10, 3, 's').map(([s]) => s);
    expect(after.filter((s) => !before.has(s)).length).toBeLessThanOrEqual(1);
  });
});

describe('createChecks and checkTranslation', () => {
  const glossary: DesiredGlossary = {
    kind: 'glossary',
    name: 'G',
    api: 'v3',
    preventDestroy: false,
    origin,
    dictionaries: [
      { sourceLang: 'en', targetLang: 'en', entries: new Map(), origin },
      { sourceLang: 'de', targetLang: 'en', entries: new Map([['Warenkorb', 'shopping cart']]), origin },
    ],
    tests: [{ sourceLang: 'de', targetLang: 'en-gb', text: 'Zum Warenkorb', expect: ['Shopping Cart'], forbid: ['basket'], origin }],
  };

  it('sends tests first, then samples; an en target goes as a variant', () => {
    const checks = createChecks([glossary], { sample: 1, seed: 1 });
    expect(checks.map((c) => [c.kind, c.sourceLang, c.targetLang, c.dictionaryTarget, c.text])).toEqual([
      ['test', 'de', 'en-GB', 'en', 'Zum Warenkorb'],
      ['sample', 'de', 'en-US', 'en', 'Warenkorb'],
    ]);
    expect(createChecks([glossary], { sample: 0, seed: 1, glossaries: new Set(['other']) })).toEqual([]);
  });

  it('matches terms ignoring case, inflected forms included, and names what is missing or forbidden', () => {
    const [test] = createChecks([glossary], { sample: 0, seed: 1 });
    if (test === undefined) throw new Error('no check');
    expect(checkTranslation(test, 'To the shopping carts').status).toBe('pass');
    expect(checkTranslation(test, 'To the basket')).toMatchObject({ status: 'fail', missing: ['Shopping Cart'], forbidden: ['basket'] });
  });
});
