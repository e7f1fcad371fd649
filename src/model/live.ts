import type { ConfiguredRules, GlossaryApi } from './desired.js';
import type { Entries, EntryList, LanguagePair } from './entries.js';
import type { EntryChange } from './plan.js';

export interface LiveDictionary extends LanguagePair {
  readonly entryCount: number;
}

/**
 * A glossary on the service. A v2 glossary is also listed by `/v3/glossaries` under the same id;
 * the live fetch merges both listings by id so that one glossary never counts twice.
 */
export interface LiveGlossary {
  readonly id: string;
  readonly name: string;
  readonly api: GlossaryApi;
  readonly dictionaries: readonly LiveDictionary[];
  readonly creationTime: string;
}

export interface LiveInstruction {
  readonly id: string;
  readonly label: string;
  readonly prompt: string;
  readonly sourceLanguage?: string;
}

export interface LiveStyleRules {
  readonly id: string;
  readonly name: string;
  readonly language: string;
  readonly version: number;
  readonly configuredRules: ConfiguredRules;
  readonly customInstructions: readonly LiveInstruction[];
  readonly creationTime: string;
  readonly updatedTime: string;
}

/** Key of one live dictionary's entries: `${glossaryId}/${sourceLang}-${targetLang}` (lib/canonical.ts dictionaryKey). */
export type DictionaryKey = string;

/** One live dictionary whose entries the fetch reads. */
export interface DictionaryToRead {
  readonly glossaryId: string;
  readonly api: GlossaryApi;
  readonly sourceLang: string;
  readonly targetLang: string;
  /**
   * The repository's entries for this dictionary, when the plan compares them: the answer is
   * compared as it is read and only the comparison is kept (see plan/compare/).
   */
  readonly expected?: Entries;
}

/** Term-level difference of two canonical dictionaries: what must happen to the live one to make it the desired one. */
export interface EntriesDiff {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  /** Every change, sorted by source. */
  readonly entryChanges: readonly EntryChange[];
  /** Added and changed entries (what a PATCH merges), sorted by source. */
  readonly upserts: EntryList;
}

/**
 * A live dictionary compared with the repository's entries as it was read (see fetchEntries): the
 * answer itself is not kept, only what the plan shows and, when asked, the fingerprint's hash.
 */
export interface ComparedEntries {
  /** The repository's entries it was compared with (the very object). */
  readonly expected: Entries;
  /** What must happen to the live entries to make them `expected`. */
  readonly diff: EntriesDiff;
  /** The live entries' hash (hashEntries), when the read was asked for it. */
  readonly hash?: string;
}

export interface LiveState {
  readonly glossaries: readonly LiveGlossary[];
  readonly styleRules: readonly LiveStyleRules[];
  /** Canonical entries of the live dictionaries read whole (without entries to compare with). */
  readonly entries: ReadonlyMap<DictionaryKey, Entries>;
  /** The live dictionaries compared with the repository's entries as they were read (not in `entries`). */
  readonly compared?: ReadonlyMap<DictionaryKey, ComparedEntries>;
}

/**
 * An answer whose entries, a JSON string, are byte for byte (quotes included) the literal of deferred
 * entries whose literal digest (lib/text-digest.ts) is `sameLiteral`: told so from the answer's
 * bytes, before any decoding (the client's readEntries with an ExpectedLiteral). Sound: equal bytes
 * decode to equal text (JSON decoding is a function), so the entries are exactly that text.
 */
export interface SameLiteral {
  readonly sameLiteral: string;
}

/** Visits entries as sent, in order; `visit` returns false to stop. */
export type EntriesVisitor = (visit: (source: string, target: string) => boolean) => void;

/**
 * A live dictionary's entries as the service sent them: its TSV text (lines already checked), pairs,
 * or a reader that visits them in order and checks each line as it goes (the client's answer, see
 * EntriesText), with `usual` telling whether its phrases may take canonicalUsualPhrase. Or, for
 * deferred entries, the client's word that the answer's entries string is byte for byte one of their
 * literals (`sameLiteral`: the literal digest it matched, see SameLiteral): not decoded at all.
 */
export type RawEntries =
  | { readonly tsv: string }
  | { readonly list: EntryList }
  | { readonly usual: boolean; readonly visit: EntriesVisitor; readonly text?: string; readonly escaped?: boolean }
  | SameLiteral;

/** What the client is to tell an answer's entries string by: the literal digests of deferred entries and their literal's bytes. */
export interface ExpectedLiteral {
  readonly bytes: number;
  readonly digests: readonly string[];
  /**
   * A further digest, made only when asked (a string of `bytes` bytes is none of `digests`): the
   * entries sorted by source, made from their file read again; undefined when there is none.
   */
  readonly later?: () => string | undefined;
  /**
   * Digests of strings that are to be decoded as usual, neither told by their digest nor asked
   * `later` for (the text as read, for a plan that hashes it as the answer holds it).
   */
  readonly decoded?: readonly string[];
}
