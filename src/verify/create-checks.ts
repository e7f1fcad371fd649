import { pairKey } from '../lib/canonical.js';
import type { DesiredGlossary } from '../model/desired.js';
import type { VerifyCheck } from '../model/verify.js';
import { translationTarget } from '../lib/translation-targets.js';
import { sampleEntries } from './sample-entries.js';

export interface CheckOptions {
  /** Entries per dictionary to translate alone (0: none). */
  readonly sample: number;
  readonly seed: number;
  /** Only these glossaries (by name); default: all. */
  readonly glossaries?: ReadonlySet<string>;
}

function byName(a: DesiredGlossary, b: DesiredGlossary): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * The checks of a verify run (pure): every declared test of the selected glossaries, then the
 * sampled entries of each of their dictionaries, glossaries by name and dictionaries by pair.
 */
export function createChecks(glossaries: readonly DesiredGlossary[], options: CheckOptions): VerifyCheck[] {
  const checks: VerifyCheck[] = [];
  const selected = glossaries.filter((g) => options.glossaries === undefined || options.glossaries.has(g.name)).sort(byName);
  for (const glossary of selected) {
    (glossary.tests ?? []).forEach((test, i) => {
      checks.push({
        kind: 'test',
        glossary: glossary.name,
        sourceLang: test.sourceLang,
        ...translationTarget(test.targetLang),
        text: test.text,
        expect: test.expect,
        forbid: test.forbid,
        index: i + 1,
        origin: test.origin,
      });
    });
  }
  if (options.sample > 0) {
    for (const glossary of selected) {
      const dictionaries = [...glossary.dictionaries].sort((a, b) => (pairKey(a) < pairKey(b) ? -1 : pairKey(a) > pairKey(b) ? 1 : 0));
      for (const dictionary of dictionaries) {
        for (const entry of sampleEntries(dictionary.entries, options.sample, options.seed, `${glossary.name}\0${pairKey(dictionary)}`)) {
          checks.push({
            kind: 'sample',
            glossary: glossary.name,
            sourceLang: dictionary.sourceLang,
            ...translationTarget(dictionary.targetLang),
            text: entry[0],
            expect: [entry[1]],
            forbid: [],
            entry,
          });
        }
      }
    }
  }
  return checks;
}

/** Characters a text costs: Unicode code points (what a person counts, not UTF-16 units). */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
