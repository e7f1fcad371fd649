/** The in-memory state of one account (one API key). */

export interface Dictionary {
  readonly sourceLang: string;
  readonly targetLang: string;
  /** source → target, in order: merges replace in place and append new sources. */
  entries: Map<string, string>;
  /** Size as TSV lines joined by newlines, in UTF-8 bytes: kept up to date for the 10 MiB glossary limit. */
  bytes: number;
}

export interface Glossary {
  readonly id: string;
  /** The API that created it: with separate stores (a behaviour), only that API sees it. */
  readonly api: 'v2' | 'v3';
  name: string;
  readonly creationTime: string;
  readonly dictionaries: Dictionary[];
}

export interface CustomInstruction {
  readonly id: string;
  label: string;
  prompt: string;
  sourceLanguage: string | undefined;
}

export type ConfiguredRules = Record<string, Record<string, string>>;

export interface StyleRuleList {
  readonly id: string;
  name: string;
  readonly language: string;
  readonly creationTime: string;
  updatedTime: string;
  version: number;
  configuredRules: ConfiguredRules;
  readonly instructions: CustomInstruction[];
}

export interface TranslationMemory {
  readonly translation_memory_id: string;
  readonly name: string;
  readonly source_language: string;
  readonly target_languages: readonly string[];
  readonly segment_count: number;
}

export interface Account {
  readonly label: string;
  readonly glossaries: Map<string, Glossary>;
  readonly styleRules: Map<string, StyleRuleList>;
  readonly translationMemories: readonly TranslationMemory[];
}

export const MAX_GLOSSARIES_PER_ACCOUNT = 1000;
export const MAX_GLOSSARY_BYTES = 10 * 1024 * 1024;

const TM_PAIRS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['en', ['de']],
  ['en', ['de', 'fr']],
  ['en', ['es', 'it', 'pt-BR']],
  ['de', ['en-US']],
  ['fr', ['en-GB']],
  ['en', ['ja']],
  ['en', ['zh-Hans']],
  ['es', ['en-US']],
  ['en', ['nl']],
  ['it', ['en-GB']],
  ['en', ['pl']],
  ['en', ['ko']],
];

/**
 * Every account starts with the same twelve translation memories (there is no endpoint to create
 * one), so pagination of `/v3/translation_memories` can be exercised.
 */
export function createAccount(label: string, newId: () => string): Account {
  const translationMemories = TM_PAIRS.map(([source, targets], i) => ({
    translation_memory_id: newId(),
    name: `Translation memory ${i + 1} (${source} → ${targets.join(', ')})`,
    source_language: source,
    target_languages: targets,
    segment_count: 100 * (i + 1) + 7,
  }));
  return { label, glossaries: new Map(), styleRules: new Map(), translationMemories };
}
