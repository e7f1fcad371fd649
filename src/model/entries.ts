/**
 * Entries of one dictionary in canonical form (see `lib/canonical.ts`): source phrase → target phrase.
 * The order of entries never matters; a Map keeps the comparison linear.
 */
export type Entries = ReadonlyMap<string, string>;

/** Entries as a serialisable list, sorted by source phrase (code-unit order). */
export type EntryList = readonly (readonly [source: string, target: string])[];

/** A dictionary's language pair. Codes are lowercase glossary codes (`en`, `de`, ...). */
export interface LanguagePair {
  readonly sourceLang: string;
  readonly targetLang: string;
}

/**
 * Which term of a language counts when a concept of a multilingual file has several: `preferred`
 * ranks TBX usage status (preferred, then admitted, then none); `first` takes document order.
 * Deprecated and superseded terms never count.
 */
export type TermChoice = 'preferred' | 'first';
