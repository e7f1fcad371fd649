import type {
  ConfiguredRules,
  DesiredGlossary,
  DesiredInstruction,
  DesiredState,
  DesiredStyleRules,
  Entries,
  GlossaryApi,
  LiveGlossary,
  LiveInstruction,
  LiveState,
  LiveStyleRules,
  ProjectConfig,
} from '../../src/model/index.js';

/** Small hand-made states for planner tests: dictionaries are written `{ 'en-de': { term: target } }`. */
export type Dicts = Readonly<Record<string, Readonly<Record<string, string>>>>;

const origin = { file: 'glossaries/x.yaml', line: 1, column: 1 };

export function entries(terms: Readonly<Record<string, string>>): Entries {
  return new Map(Object.entries(terms));
}

function splitPair(pair: string): { sourceLang: string; targetLang: string } {
  const [sourceLang = '', targetLang = ''] = pair.split('-');
  return { sourceLang, targetLang };
}

export function config(overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  return {
    version: 1,
    resources: ['glossaries'],
    prune: 'off',
    guards: { maxDeletes: 100, maxRemovedEntriesPercent: 100, allowEmpty: false },
    rateLimit: { requestsPerSecond: 5, concurrency: 4 },
    targets: [{ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY' }],
    ...overrides,
  };
}

export function glossary(
  name: string,
  dicts: Dicts,
  options: { api?: GlossaryApi; preventDestroy?: boolean; renamedFrom?: string } = {},
): DesiredGlossary {
  return {
    kind: 'glossary',
    name,
    api: options.api ?? 'v3',
    preventDestroy: options.preventDestroy ?? false,
    ...(options.renamedFrom === undefined ? {} : { renamedFrom: options.renamedFrom }),
    dictionaries: Object.entries(dicts).map(([pair, terms]) => ({ ...splitPair(pair), entries: entries(terms), origin })),
    origin,
  };
}

export function styleRules(
  name: string,
  options: {
    language?: string;
    rules?: ConfiguredRules;
    instructions?: readonly DesiredInstruction[];
    preventDestroy?: boolean;
    renamedFrom?: string;
  } = {},
): DesiredStyleRules {
  return {
    kind: 'style_rules',
    name,
    language: options.language ?? 'de',
    preventDestroy: options.preventDestroy ?? false,
    ...(options.renamedFrom === undefined ? {} : { renamedFrom: options.renamedFrom }),
    configuredRules: options.rules ?? {},
    customInstructions: options.instructions ?? [],
    origin,
  };
}

export function desiredState(
  resources: { glossaries?: readonly DesiredGlossary[]; styleRules?: readonly DesiredStyleRules[] } = {},
  overrides: Partial<ProjectConfig> = {},
): DesiredState {
  return {
    root: '/repo',
    configFile: 'config/termsync.yaml',
    config: config(overrides),
    glossaries: resources.glossaries ?? [],
    styleRules: resources.styleRules ?? [],
  };
}

export interface LiveGlossarySpec {
  readonly id: string;
  readonly name: string;
  readonly api?: GlossaryApi;
  readonly dicts: Dicts;
  readonly creationTime?: string;
}

export interface LiveStyleSpec {
  readonly id: string;
  readonly name: string;
  readonly language?: string;
  readonly version?: number;
  readonly rules?: ConfiguredRules;
  readonly instructions?: readonly LiveInstruction[];
  readonly creationTime?: string;
}

export function liveStyle(spec: LiveStyleSpec): LiveStyleRules {
  return {
    id: spec.id,
    name: spec.name,
    language: spec.language ?? 'de',
    version: spec.version ?? 1,
    configuredRules: spec.rules ?? {},
    customInstructions: spec.instructions ?? [],
    creationTime: spec.creationTime ?? '2026-01-01T00:00:00.000Z',
    updatedTime: spec.creationTime ?? '2026-01-01T00:00:00.000Z',
  };
}

/** A live state with every dictionary's entries read (the planner reads only what it needs). */
export function liveState(spec: { glossaries?: readonly LiveGlossarySpec[]; styleRules?: readonly LiveStyleSpec[] } = {}): LiveState {
  const glossaries: LiveGlossary[] = [];
  const all = new Map<string, Entries>();
  for (const g of spec.glossaries ?? []) {
    glossaries.push({
      id: g.id,
      name: g.name,
      api: g.api ?? 'v3',
      creationTime: g.creationTime ?? '2026-01-01T00:00:00.000Z',
      dictionaries: Object.entries(g.dicts).map(([pair, terms]) => ({ ...splitPair(pair), entryCount: Object.keys(terms).length })),
    });
    for (const [pair, terms] of Object.entries(g.dicts)) all.set(`${g.id}/${pair}`, entries(terms));
  }
  return { glossaries, styleRules: (spec.styleRules ?? []).map(liveStyle), entries: all };
}
