import type { SourceRef } from './desired.js';

/**
 * One translation `verify` asks for and what it checks in the answer: a declared test (`tests:` of a
 * glossary) or a sampled entry (its source translated alone must give its target).
 */
export interface VerifyCheck {
  readonly kind: 'test' | 'sample';
  readonly glossary: string;
  readonly sourceLang: string;
  /** The translation target sent to the service (`de`, `en-US`, ...). */
  readonly targetLang: string;
  /** The glossary dictionary's target language (`en` for `en-US`). */
  readonly dictionaryTarget: string;
  readonly text: string;
  readonly expect: readonly string[];
  readonly forbid: readonly string[];
  /** Tests: 1-based position in the glossary's `tests:`, and where it is declared. */
  readonly index?: number;
  readonly origin?: SourceRef;
  /** Samples: the entry. */
  readonly entry?: readonly [source: string, target: string];
}

/** What came of one check. */
export interface CheckResult {
  readonly check: VerifyCheck;
  readonly status: 'pass' | 'fail';
  /** The service's translation (absent when the check could not be sent). */
  readonly translation?: string;
  /** Expected terms the translation lacks. */
  readonly missing: readonly string[];
  /** Forbidden terms the translation holds. */
  readonly forbidden: readonly string[];
  /** Why the check could not be sent (the glossary or its dictionary is not on the service). */
  readonly problem?: string;
}

/** The characters a verify run sends to one target, against its cap. */
export interface VerifyBudget {
  readonly checks: number;
  readonly characters: number;
  readonly maxCharacters: number;
}
