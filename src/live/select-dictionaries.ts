import { canonicalLang } from '../lib/canonical.js';
import type { DictionaryToRead, LiveGlossary } from '../model/live.js';
import type { Fingerprints } from '../model/plan.js';

/**
 * The dictionaries a saved plan read, so that re-reading exactly those gives fingerprints that can
 * be compared. A dictionary gone from the service is not read (the entry counts show the change).
 */
export function dictionariesOfFingerprints(fingerprints: Fingerprints, glossaries: readonly LiveGlossary[]): DictionaryToRead[] {
  const byId = new Map(glossaries.map((g) => [g.id, g] as const));
  const toRead: DictionaryToRead[] = [];
  for (const saved of fingerprints.glossaries) {
    const live = byId.get(saved.id);
    if (!live) continue;
    for (const pair of Object.keys(saved.entryHashes)) {
      const dash = pair.indexOf('-');
      const sourceLang = canonicalLang(pair.slice(0, dash));
      const targetLang = canonicalLang(pair.slice(dash + 1));
      if (!live.dictionaries.some((d) => canonicalLang(d.sourceLang) === sourceLang && canonicalLang(d.targetLang) === targetLang)) continue;
      toRead.push({ glossaryId: live.id, api: live.api, sourceLang, targetLang });
    }
  }
  return toRead;
}
