import { createHash, type Hash } from 'node:crypto';
import { dictionaryKey, pairKey } from '../lib/canonical.js';
import type { Entries, Fingerprints, GlossaryFingerprint, LiveState, StyleRulesFingerprint } from '../model/index.js';
import { compareStrings } from './compare-strings.js';
import { toEntryList } from '../lib/entries-tsv.js';
import { entriesOfCompared } from './diff-entries.js';

/** sha256 of canonical entries visited in ascending source order (code units): hashEntries' digest, entry by entry. */
export class EntriesHasher {
  private readonly hash: Hash = createHash('sha256');
  private chunk = '';

  add(source: string, target: string): void {
    // JSON keeps phrases with tabs or newlines unambiguous; chunks keep the number of update calls low.
    // JSON.stringify([source, target]), without building the pair.
    this.chunk += `[${JSON.stringify(source)},${JSON.stringify(target)}]\n`;
    if (this.chunk.length > 65_536) {
      this.hash.update(this.chunk);
      this.chunk = '';
    }
  }

  digest(): string {
    this.hash.update(this.chunk);
    this.chunk = '';
    return this.hash.digest('hex');
  }
}

/** sha256 of a dictionary's canonical entries, independent of their order. */
export function hashEntries(entries: Entries): string {
  const hasher = new EntriesHasher();
  for (const [source, target] of toEntryList(entries)) hasher.add(source, target);
  return hasher.digest();
}

/**
 * What the plan read from the service, sorted: apply of a saved plan re-reads and compares.
 * `hashed` false leaves the entries unhashed (a plan that is never saved).
 */
export function fingerprintLive(live: LiveState, hashed = true): Fingerprints {
  const glossaries: GlossaryFingerprint[] = live.glossaries.map((g) => {
    const entryHashes: Record<string, string> = {};
    for (const dict of [...g.dictionaries].sort((a, b) => compareStrings(pairKey(a), pairKey(b)))) {
      if (!hashed) break;
      const key = dictionaryKey(g.id, dict.sourceLang, dict.targetLang);
      const entries = live.entries.get(key);
      if (entries !== undefined) {
        entryHashes[pairKey(dict)] = hashEntries(entries);
        continue;
      }
      const compared = live.compared?.get(key);
      // Hashed as it was read when the read was asked to (a plan that may be saved), else rebuilt.
      if (compared !== undefined) entryHashes[pairKey(dict)] = compared.hash ?? hashEntries(entriesOfCompared(compared));
    }
    return {
      id: g.id,
      name: g.name,
      api: g.api,
      dictionaries: g.dictionaries.map((dict) => `${pairKey(dict)}:${dict.entryCount}`).sort(compareStrings),
      entryHashes,
    };
  });
  const styleRules: StyleRulesFingerprint[] = live.styleRules.map((s) => ({ id: s.id, name: s.name, version: s.version }));
  return {
    glossaries: glossaries.sort((a, b) => compareStrings(a.id, b.id)),
    styleRules: styleRules.sort((a, b) => compareStrings(a.id, b.id)),
  };
}

/**
 * Differences between a saved plan's fingerprints and the live state now, for people; [] means
 * the plan is still fresh. Only what the saved plan holds matters: its resources (by id) must be
 * unchanged, and no new live resource may carry a name the repository declares.
 */
export function compareFingerprints(saved: Fingerprints, current: Fingerprints): string[] {
  const problems: string[] = [];
  const currentGlossaries = new Map(current.glossaries.map((g) => [g.id, g]));
  for (const was of saved.glossaries) {
    const what = `glossary "${was.name}" (id ${was.id})`;
    const now = currentGlossaries.get(was.id);
    if (now === undefined) {
      problems.push(`${what} no longer exists`);
      continue;
    }
    if (now.name !== was.name) problems.push(`${what} was renamed to "${now.name}"`);
    if (now.api !== was.api) problems.push(`${what} is now a ${now.api} glossary`);
    if (now.dictionaries.join(',') !== was.dictionaries.join(',')) {
      problems.push(`${what}: dictionaries changed (${was.dictionaries.join(', ') || 'none'} → ${now.dictionaries.join(', ') || 'none'})`);
    }
    for (const [pair, hash] of Object.entries(was.entryHashes)) {
      const nowHash = now.entryHashes[pair];
      if (nowHash === undefined) problems.push(`${what}: entries of ${pair} were not read again`);
      else if (nowHash !== hash) problems.push(`${what}: entries of ${pair} changed`);
    }
  }
  const currentStyles = new Map(current.styleRules.map((s) => [s.id, s]));
  for (const was of saved.styleRules) {
    const what = `style rule list "${was.name}" (id ${was.id})`;
    const now = currentStyles.get(was.id);
    if (now === undefined) problems.push(`${what} no longer exists`);
    else if (now.version !== was.version || now.name !== was.name) {
      problems.push(`${what} changed (version ${was.version} → ${now.version}${now.name === was.name ? '' : `, now named "${now.name}"`})`);
    }
  }
  if (saved.names !== undefined) {
    const seenGlossaries = new Set(saved.glossaries.map((g) => g.id));
    const declaredGlossaries = new Set(saved.names.glossaries);
    for (const g of current.glossaries) {
      if (!seenGlossaries.has(g.id) && declaredGlossaries.has(g.name)) problems.push(`glossary "${g.name}" (id ${g.id}) appeared since the plan was made`);
    }
    const seenStyles = new Set(saved.styleRules.map((s) => s.id));
    const declaredStyles = new Set(saved.names.styleRules);
    for (const s of current.styleRules) {
      if (!seenStyles.has(s.id) && declaredStyles.has(s.name)) problems.push(`style rule list "${s.name}" (id ${s.id}) appeared since the plan was made`);
    }
  }
  return problems.sort(compareStrings);
}
