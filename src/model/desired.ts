import type { Entries, LanguagePair, TermChoice } from './entries.js';

/** Where something was declared: a repository-relative path (forward slashes), 1-based line and column. */
export interface SourceRef {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export type GlossaryApi = 'v2' | 'v3';

export interface DesiredDictionary extends LanguagePair {
  readonly entries: Entries;
  /** The `dictionaries[i]` item in the resource file. */
  readonly origin: SourceRef;
  /** The entries file, when entries are not inline (repository-relative). */
  readonly entriesFile?: string;
  /** The entries come from the glossary-level `entries_file`, which feeds several dictionaries. */
  readonly shared?: true;
  /** A TSV or CSV entries file's declared dialect, when its resource gives one: what pull writes it in. */
  readonly textDialect?: { readonly delimiter?: ',' | ';' | '\t'; readonly encoding?: string };
  /** A multilingual entries file (TBX, workbook, CSV/TSV with language columns): how the loader read it, so that pull writes it back alike. */
  readonly multilingual?: MultilingualSource;
}

/** How a multilingual entries file is read: the languages of a concept, the dictionaries it feeds, and the file's options. */
export interface MultilingualSource {
  readonly languages: readonly string[];
  /** Every dictionary the file feeds, in the order the loader derives them. */
  readonly pairs: readonly LanguagePair[];
  readonly terms: TermChoice;
  readonly sheet?: string | number;
  readonly headerRow?: number;
  readonly delimiter?: ',' | ';' | '\t';
  readonly encoding?: string;
}

/**
 * A smoke test of a glossary (`tests:` in its resource file): `text` translated with the glossary
 * must contain every `expect` term and no `forbid` term.
 */
export interface GlossaryTest {
  /** Glossary language codes; `targetLang` may be a variant the base dictionary applies to (`en-gb`). */
  readonly sourceLang: string;
  readonly targetLang: string;
  readonly text: string;
  readonly expect: readonly string[];
  readonly forbid: readonly string[];
  /** The `tests[i]` item in the resource file. */
  readonly origin: SourceRef;
}

export interface DesiredGlossary {
  readonly kind: 'glossary';
  readonly name: string;
  readonly api: GlossaryApi;
  readonly preventDestroy: boolean;
  readonly renamedFrom?: string;
  readonly dictionaries: readonly DesiredDictionary[];
  /** Smoke tests run by `verify` (not synchronised: the service has no such thing). */
  readonly tests?: readonly GlossaryTest[];
  readonly origin: SourceRef;
}

/** Configured rules: category → rule → option. */
export type ConfiguredRules = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface DesiredInstruction {
  readonly label: string;
  readonly prompt: string;
  readonly sourceLanguage?: string;
}

export interface DesiredStyleRules {
  readonly kind: 'style_rules';
  readonly name: string;
  readonly language: string;
  readonly preventDestroy: boolean;
  readonly renamedFrom?: string;
  readonly configuredRules: ConfiguredRules;
  readonly customInstructions: readonly DesiredInstruction[];
  readonly origin: SourceRef;
}

export type DesiredResource = DesiredGlossary | DesiredStyleRules;

export type PruneMode = 'off' | 'owned' | 'all';

export interface Guards {
  readonly maxDeletes: number;
  readonly maxRemovedEntriesPercent: number;
  readonly allowEmpty: boolean;
}

/** The Authorization scheme a target expects: the spec's, or the vendor's own service's. */
export type AuthScheme = 'Service-Auth-Key' | 'DeepL-Auth-Key';

/** `auto`: try the route, fall back when the service does not have it; `yes`/`no`: use it / never. */
export type CapabilitySetting = 'auto' | 'yes' | 'no';

export interface TargetCapabilities {
  /** `DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id}` (not in the spec; the vendor's API has it). */
  readonly deleteCustomInstruction: CapabilitySetting;
}

export interface TargetConfig {
  readonly name: string;
  readonly baseUrlEnv: string;
  readonly apiKeyEnv: string;
  /** Default `Service-Auth-Key`. */
  readonly authScheme?: AuthScheme;
  /** Default: every capability `auto`. */
  readonly capabilities?: TargetCapabilities;
  /** `suspend: true`: the daemon writes nothing to this target (it plans and reports). */
  readonly suspend?: boolean;
  /** The target's own `rate_limit`, in place of the config's (absent: the config's). */
  readonly rateLimit?: RateLimit;
}

/** Requests a second and requests in flight at once, for one target's client. */
export interface RateLimit {
  readonly requestsPerSecond: number;
  readonly concurrency: number;
}

export interface ProjectConfig {
  readonly version: 1;
  readonly resources: readonly string[];
  readonly prune: PruneMode;
  /** Glob of live names termsync may delete with `prune: owned`. */
  readonly ownedNames?: string;
  readonly guards: Guards;
  readonly rateLimit: RateLimit;
  /** Cron expression for the daemon's full reconcile. */
  readonly schedule?: string;
  /** Targets the daemon reconciles at once (absent: its default). */
  readonly parallelTargets?: number;
  /** `suspend: true`: the daemon writes nothing to any target (it plans and reports). */
  readonly suspend?: boolean;
  /** `verify:` settings; absent: the defaults (`lib/defaults.ts`). */
  readonly verify?: VerifySettings;
  /** `ui:` settings of the daemon's dashboard; absent: the defaults. */
  readonly ui?: UiSettings;
  /** `pull:` settings; absent: the defaults. */
  readonly pull?: PullSettings;
  readonly targets: readonly TargetConfig[];
}

/** The daemon's dashboard. */
export interface UiSettings {
  /** Whether terms are shown (term diffs, drift, problem messages); absent: the daemon decides by its listen address. */
  readonly showTerms?: boolean;
  /** Runs kept in memory with their plans. */
  readonly keepRuns: number;
}

/** How `verify` spends the account's character quota. */
export interface VerifySettings {
  /** Characters one run may send to one target; a run that would send more sends nothing. */
  readonly maxCharacters: number;
  /** Entries per dictionary checked alone (`--sample`); 0: only the declared tests. */
  readonly sample: number;
  /** Seed of the sample's choice: the same seed and entries give the same sample. */
  readonly seed: number;
}

/** How `pull` writes the service's edits into files of record. */
export interface PullSettings {
  /** A TBX term removed on the service: its term group removed (default), or kept and marked deprecated. */
  readonly tbxRemoved: 'remove' | 'deprecate';
}

export interface DesiredState {
  /** Absolute path of the repository root. */
  readonly root: string;
  /** Repository-relative path of the project config. */
  readonly configFile: string;
  readonly config: ProjectConfig;
  readonly glossaries: readonly DesiredGlossary[];
  readonly styleRules: readonly DesiredStyleRules[];
}
