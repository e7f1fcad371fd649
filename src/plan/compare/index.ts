/**
 * The comparison of live dictionaries with the repository's entries, as the live fetch reads
 * them: pure, fed the answer by the fetch's callback (compareDictionary) and, for deferred entries,
 * the loader's re-read of their file as an explicit handle (Reread).
 */
export { compareDictionary, compareLiveEntries } from './compare-live-entries.js';
export { expectedLiteral, KEPT_LITERAL_CHARS, KeptSorted, NO_REREAD, ReadOnce, type Reread } from './read-once.js';
export { WHOLE_TEXT_CHARS } from './same-text.js';
