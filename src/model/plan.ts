import type { ConfiguredRules, GlossaryApi } from './desired.js';
import type { EntryList } from './entries.js';

/**
 * The plan is a value: versioned, serialisable (JSON.stringify gives the saved plan as is),
 * deterministically sorted, made of a closed union of operations. Reasons and summaries are for
 * people; apply reads only `operations`.
 */
export const PLAN_FORMAT_VERSION = '1.0';

export interface DictionaryPayload {
  readonly sourceLang: string;
  readonly targetLang: string;
  /** Canonical entries, sorted by source. */
  readonly entries: EntryList;
}

interface OperationBase {
  /** Unique within the plan, stable for equal inputs: `op-1`, `op-2`, ... in execution-safe order. */
  readonly key: string;
  /** Keys of operations that must have succeeded before this one runs (e.g. delete-old after create-new). */
  readonly dependsOn: readonly string[];
  /** Which resource of the plan this operation belongs to. */
  readonly resource: ResourceAddress;
}

export type Operation =
  | (OperationBase & { readonly type: 'glossary.create'; readonly name: string; readonly dictionaries: readonly DictionaryPayload[] })
  | (OperationBase & { readonly type: 'glossary_v2.create'; readonly name: string; readonly dictionary: DictionaryPayload })
  | (OperationBase & {
      readonly type: 'glossary.patch';
      readonly glossaryId: string;
      /** New name (rename); absent when the name stays. */
      readonly name?: string;
      /** Entries to merge (added and changed only); absent for a pure rename. */
      readonly dictionary?: DictionaryPayload;
    })
  | (OperationBase & { readonly type: 'glossary.put_dictionary'; readonly glossaryId: string; readonly dictionary: DictionaryPayload })
  | (OperationBase & {
      readonly type: 'glossary.delete_dictionary';
      readonly glossaryId: string;
      readonly sourceLang: string;
      readonly targetLang: string;
    })
  | (OperationBase & { readonly type: 'glossary.delete'; readonly glossaryId: string; readonly api: GlossaryApi })
  | (OperationBase & {
      readonly type: 'style_rules.create';
      readonly name: string;
      readonly language: string;
      readonly configuredRules: ConfiguredRules;
      readonly customInstructions: readonly { readonly label: string; readonly prompt: string; readonly sourceLanguage?: string }[];
    })
  | (OperationBase & { readonly type: 'style_rules.rename'; readonly styleId: string; readonly name: string })
  | (OperationBase & { readonly type: 'style_rules.put_configured_rules'; readonly styleId: string; readonly configuredRules: ConfiguredRules })
  | (OperationBase & {
      readonly type: 'style_rules.create_instruction';
      readonly styleId: string;
      readonly label: string;
      readonly prompt: string;
      readonly sourceLanguage?: string;
    })
  | (OperationBase & {
      readonly type: 'style_rules.update_instruction';
      readonly styleId: string;
      readonly instructionId: string;
      readonly label: string;
      readonly prompt: string;
      /** Sent along so a server that resets an omitted field keeps it (the declared value, else the live one). */
      readonly sourceLanguage?: string;
    })
  | (OperationBase & {
      readonly type: 'style_rules.delete_instruction';
      readonly styleId: string;
      readonly instructionId: string;
      readonly label: string;
      /**
       * With `capabilities.delete_custom_instruction: auto`: the whole declared list. When the
       * service has no such route (404/405/501) and the instruction is still there, apply replaces
       * the list with this one (create new, then delete old) instead.
       */
      readonly fallback?: StyleRulesPayload;
    })
  | (OperationBase & { readonly type: 'style_rules.delete'; readonly styleId: string });

/** A whole style rule list as created. */
export interface StyleRulesPayload {
  readonly name: string;
  readonly language: string;
  readonly configuredRules: ConfiguredRules;
  readonly customInstructions: readonly { readonly label: string; readonly prompt: string; readonly sourceLanguage?: string }[];
}

export type OperationType = Operation['type'];

export type ResourceKind = 'glossary' | 'style_rules';

export interface ResourceAddress {
  readonly kind: ResourceKind;
  /** The declared name (or the live name, for a resource the repo does not declare). */
  readonly name: string;
}

/**
 * Terraform's action vocabulary: create `+`, update `~`, delete `-`, replace `-/+` (create new,
 * then delete old), no-op (not listed in changes).
 */
export type ResourceAction = 'create' | 'update' | 'delete' | 'replace';

export interface EntryChange {
  readonly source: string;
  /** Absent for an added entry. */
  readonly before?: string;
  /** Absent for a removed entry. */
  readonly after?: string;
}

export interface DictionaryChange {
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly action: 'create' | 'update' | 'delete';
  /** How the change is written: PATCH (merge), PUT (replace), DELETE, or part of a create. */
  readonly method: 'PATCH' | 'PUT' | 'DELETE' | 'POST';
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  /** Entry count before and after. */
  readonly entriesBefore: number;
  readonly entriesAfter: number;
  /** The term-level diff, sorted by source: every change (renderers cap what they show). */
  readonly entryChanges: readonly EntryChange[];
}

export interface ResourceChange {
  readonly address: ResourceAddress;
  readonly action: ResourceAction;
  readonly api?: GlossaryApi;
  /** For people: `entries removed → PUT`, `immutable v2 → replace`, `renamed from "X"`. */
  readonly reasons: readonly string[];
  /** Live id, when the resource exists. */
  readonly liveId?: string;
  readonly renamedFrom?: string;
  readonly dictionaries: readonly DictionaryChange[];
  /** Style rule details for people (`configured rules replaced`, `instruction "X" added`). */
  readonly details: readonly string[];
  /** Keys of the operations that carry this change. */
  readonly operations: readonly string[];
}

export interface GuardViolation {
  readonly guard: 'prevent_destroy' | 'max_deletes' | 'max_removed_entries_percent' | 'allow_empty';
  readonly message: string;
  readonly resource?: ResourceAddress;
}

/** What the plan read from the service; apply of a saved plan re-reads and compares. */
export interface GlossaryFingerprint {
  readonly id: string;
  readonly name: string;
  readonly api: GlossaryApi;
  /** `src-tgt:count` for each dictionary, sorted. */
  readonly dictionaries: readonly string[];
  /** sha256 of the canonical entries of the dictionaries the plan read (`src-tgt` → hex). */
  readonly entryHashes: Readonly<Record<string, string>>;
}

export interface StyleRulesFingerprint {
  readonly id: string;
  readonly name: string;
  readonly version: number;
}

export interface Fingerprints {
  readonly glossaries: readonly GlossaryFingerprint[];
  readonly styleRules: readonly StyleRulesFingerprint[];
  /**
   * Names the repository declares (sorted). Set in a plan's fingerprints: a live resource of such a
   * name that the plan did not see (e.g. created by someone else since) makes the saved plan stale.
   */
  readonly names?: { readonly glossaries: readonly string[]; readonly styleRules: readonly string[] };
}

/** Something people should know that is not a change (e.g. a `renamed_from` that could not be done). */
export interface PlanWarning {
  readonly resource: ResourceAddress;
  readonly message: string;
}

/** One live resource of a declared name, as the duplicates list shows it. */
export interface LiveCopy {
  readonly id: string;
  readonly api?: GlossaryApi;
  readonly creationTime: string;
}

/**
 * Two or more live resources carry one declared name (two runners created it at once, or a run was
 * cut off): the plan keeps one and deletes the others.
 */
export interface DuplicateGroup {
  readonly kind: ResourceKind;
  readonly name: string;
  readonly keep: LiveCopy;
  /**
   * Why this one: `ids_file` (the ids file of the last apply names it), `matches` (a v2 glossary or
   * style rule list that already equals the repository: keeping it costs no write), `oldest`.
   */
  readonly keptBecause: 'ids_file' | 'matches' | 'oldest';
  /** Deleted by the plan, oldest first. */
  readonly remove: readonly LiveCopy[];
}

export interface NotManaged {
  readonly kind: ResourceKind;
  readonly name: string;
  readonly id: string;
}

export interface PlanSummary {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
  /** Dictionaries written (created, patched, put or deleted). */
  readonly dictionaries: number;
  readonly entriesAdded: number;
  readonly entriesChanged: number;
  readonly entriesRemoved: number;
  /** API calls by HTTP method. */
  readonly calls: Readonly<Record<'POST' | 'PUT' | 'PATCH' | 'DELETE', number>>;
  /** Bytes of entries (TSV) to upload. */
  readonly uploadBytes: number;
}

export interface Plan {
  readonly format_version: typeof PLAN_FORMAT_VERSION;
  /** The target (account) the plan was made for. */
  readonly target: string;
  readonly changes: readonly ResourceChange[];
  readonly operations: readonly Operation[];
  readonly guards: readonly GuardViolation[];
  readonly notManaged: readonly NotManaged[];
  /** Live resources that share a declared name; present only when there are some. */
  readonly duplicates?: readonly DuplicateGroup[];
  /** Present only when there is something to say. */
  readonly warnings?: readonly PlanWarning[];
  /**
   * Declared glossaries whose entries were not re-read (a plan of changed files only); present only
   * when there are some. Their entries were taken as equal to the repository's.
   */
  readonly notRefreshed?: number;
  readonly fingerprints: Fingerprints;
  readonly summary: PlanSummary;
}
