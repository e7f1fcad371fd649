import type { ConfiguredRules, DesiredDictionary, DesiredGlossary, DesiredStyleRules } from './desired.js';
import type { Entries, LanguagePair } from './entries.js';
import type { EntryChange, ResourceKind } from './plan.js';
import type { LiveInstruction } from './live.js';

/**
 * What the service holds that the repository lacks, seen from the repository: `after` is the
 * service's value, `before` the repository's (an entry change added on the service has no
 * `before`, one removed there no `after`). `pull` writes the `after` side into the files.
 */
export interface DictionaryDrift extends LanguagePair {
  /** `update`: both have the pair; `add`: only the service has it; `remove`: only the repository. */
  readonly action: 'update' | 'add' | 'remove';
  /** The declared dictionary (update, remove). */
  readonly declared?: DesiredDictionary;
  /** The service's entries (update, add), in the order the service lists them. */
  readonly live?: Entries;
  readonly entryChanges: readonly EntryChange[];
}

export interface GlossaryDrift {
  readonly declared: DesiredGlossary;
  readonly liveId: string;
  readonly dictionaries: readonly DictionaryDrift[];
}

export interface InstructionDrift {
  readonly label: string;
  /** `change`: prompt or source language differ; `add`: only on the service; `remove`: only in the repository. */
  readonly action: 'change' | 'add' | 'remove';
  readonly before?: { readonly prompt: string; readonly sourceLanguage?: string };
  readonly after?: LiveInstruction;
}

export interface StyleRulesDrift {
  readonly declared: DesiredStyleRules;
  readonly liveId: string;
  /** The service's configured rules, when they differ from the repository's. */
  readonly configuredRules?: { readonly before: ConfiguredRules; readonly after: ConfiguredRules };
  readonly instructions: readonly InstructionDrift[];
}

/** A declared resource `pull` does not adopt, and why. */
export interface DriftNote {
  readonly kind: ResourceKind;
  readonly name: string;
  /** The resource file, for declared resources. */
  readonly file?: string;
  readonly reason: string;
}

export interface Drift {
  readonly target: string;
  readonly glossaries: readonly GlossaryDrift[];
  readonly styleRules: readonly StyleRulesDrift[];
  /** Declared resources the service does not hold (apply creates them; pull never deletes a file). */
  readonly notOnService: readonly DriftNote[];
  /** Live resources the repository does not declare (left to `import`). */
  readonly onlyOnService: readonly DriftNote[];
  /** Declared resources that differ in a way pull cannot write back (api, language, renames). */
  readonly skipped: readonly DriftNote[];
}

/** Whether the service holds edits the repository lacks. */
export function hasDrift(drift: Drift): boolean {
  return drift.glossaries.length > 0 || drift.styleRules.length > 0;
}
