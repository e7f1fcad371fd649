import type { ConfiguredRules, GlossaryApi } from './desired.js';
import type { Entries, LanguagePair } from './entries.js';

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

/** Key of one live dictionary's entries: `${glossaryId}/${sourceLang}-${targetLang}`. */
export type DictionaryKey = string;

export interface LiveState {
  readonly glossaries: readonly LiveGlossary[];
  readonly styleRules: readonly LiveStyleRules[];
  /** Canonical entries of the live dictionaries the plan must compare (only those were read). */
  readonly entries: ReadonlyMap<DictionaryKey, Entries>;
}
