import { canonicalPhrase } from '../lib/canonical.js';
import type { Entries, EntryList } from '../model/entries.js';

/**
 * The service returns entries as it stores them; the plan compares canonical forms only, so that
 * an encoding, whitespace or ordering difference never shows up as a change.
 */
export function canonicalEntries(list: EntryList): Entries {
  const entries = new Map<string, string>();
  for (const [source, target] of list) entries.set(canonicalPhrase(source), canonicalPhrase(target));
  return entries;
}
