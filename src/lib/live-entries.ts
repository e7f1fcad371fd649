import { canonicalPhrase, canonicalUsualPhrase, isUsualText } from './canonical.js';
import { visitTsvEntries } from './entries-tsv.js';
import type { Entries, EntryList } from '../model/entries.js';
import type { EntriesVisitor, RawEntries } from '../model/live.js';

/**
 * The service returns entries as it stores them; the plan compares canonical forms only, so that
 * an encoding, whitespace or ordering difference never shows up as a change.
 */
export function canonicalEntries(list: EntryList): Entries {
  const entries = new Map<string, string>();
  for (const [source, target] of list) entries.set(canonicalPhrase(source), canonicalPhrase(target));
  return entries;
}

/** An answer's entries as visited in order, with the canonical form its phrases take. */
export interface Reader {
  readonly canonical: (phrase: string) => string;
  readonly visit: EntriesVisitor;
}

export function readerOf(raw: RawEntries): Reader {
  if ('sameLiteral' in raw) throw new Error('internal error: entries told by their literal digest have no text to read');
  if ('list' in raw) {
    return {
      canonical: canonicalPhrase,
      visit: (visit) => {
        for (const [source, target] of raw.list) if (!visit(source, target)) return;
      },
    };
  }
  if ('tsv' in raw) {
    const text = raw.tsv;
    return { canonical: isUsualText(text) ? canonicalUsualPhrase : canonicalPhrase, visit: (visit) => void visitTsvEntries(text, visit) };
  }
  return { canonical: raw.usual ? canonicalUsualPhrase : canonicalPhrase, visit: raw.visit };
}

/** The canonical live entries as a map, as canonicalEntries builds them (a later duplicate source wins). */
export function entriesOf(reader: Reader): Map<string, string> {
  const entries = new Map<string, string>();
  const { canonical } = reader;
  reader.visit((source, target) => {
    entries.set(canonical(source), canonical(target));
    return true;
  });
  return entries;
}

/** The canonical entries of a live dictionary, read whole (`pull`, `import`, a saved plan's check). */
export function readLiveEntries(raw: RawEntries): Entries {
  if ('list' in raw) return canonicalEntries(raw.list);
  return entriesOf(readerOf(raw));
}
