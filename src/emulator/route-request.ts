import type { EmulatorBehaviour } from './emulator-types.js';
import type { RequestContext, ServiceResponse } from './request-context.js';
import { ServiceError, notFound } from './service-error.js';
import * as glossaries from './routes-glossaries.js';
import * as styleRules from './routes-style-rules.js';
import * as text from './routes-text.js';
import * as info from './routes-info.js';

type Handler = (ctx: RequestContext, params: readonly string[]) => ServiceResponse;

interface MethodDef {
  readonly write: boolean;
  readonly handle: Handler;
  /** Served only when the server behaves this way (a route the spec does not show). */
  readonly when?: keyof EmulatorBehaviour;
}

interface RouteDef {
  readonly pattern: readonly string[];
  readonly methods: Readonly<Record<string, MethodDef>>;
}

const read = (handle: Handler): { write: boolean; handle: Handler } => ({ write: false, handle });
const write = (handle: Handler): { write: boolean; handle: Handler } => ({ write: true, handle });
const p = (params: readonly string[], i: number): string => params[i] ?? '';

/** Every endpoint of the spec's Endpoints section. `:` marks a path parameter. */
const ROUTES: readonly RouteDef[] = [
  { pattern: ['v3', 'glossaries'], methods: { GET: read((c) => glossaries.listGlossariesV3(c)), POST: write((c) => glossaries.createGlossaryV3(c)) } },
  {
    pattern: ['v3', 'glossaries', ':'],
    methods: {
      GET: read((c, a) => glossaries.getGlossaryV3(c, p(a, 0))),
      PATCH: write((c, a) => glossaries.patchGlossaryV3(c, p(a, 0))),
      DELETE: write((c, a) => glossaries.deleteGlossary(c, p(a, 0))),
    },
  },
  { pattern: ['v3', 'glossaries', ':', 'entries'], methods: { GET: read((c, a) => glossaries.getEntriesV3(c, p(a, 0))) } },
  {
    pattern: ['v3', 'glossaries', ':', 'dictionaries'],
    methods: { PUT: write((c, a) => glossaries.putDictionaryV3(c, p(a, 0))), DELETE: write((c, a) => glossaries.deleteDictionaryV3(c, p(a, 0))) },
  },
  { pattern: ['v2', 'glossaries'], methods: { GET: read((c) => glossaries.listGlossariesV2(c)), POST: write((c) => glossaries.createGlossaryV2(c)) } },
  {
    pattern: ['v2', 'glossaries', ':'],
    methods: { GET: read((c, a) => glossaries.getGlossaryV2(c, p(a, 0))), DELETE: write((c, a) => glossaries.deleteGlossaryV2(c, p(a, 0))) },
  },
  { pattern: ['v2', 'glossaries', ':', 'entries'], methods: { GET: read((c, a) => glossaries.getEntriesV2(c, p(a, 0))) } },
  { pattern: ['v2', 'glossary-language-pairs'], methods: { GET: read(() => glossaries.glossaryLanguagePairs()) } },
  { pattern: ['v2', 'translate'], methods: { POST: read((c) => text.translate(c)) } },
  { pattern: ['v3', 'style_rules'], methods: { GET: read((c) => styleRules.listStyleRules(c)), POST: write((c) => styleRules.createStyleRules(c)) } },
  {
    pattern: ['v3', 'style_rules', ':'],
    methods: {
      GET: read((c, a) => styleRules.getStyleRules(c, p(a, 0))),
      PATCH: write((c, a) => styleRules.renameStyleRules(c, p(a, 0))),
      DELETE: write((c, a) => styleRules.deleteStyleRules(c, p(a, 0))),
    },
  },
  { pattern: ['v3', 'style_rules', ':', 'configured_rules'], methods: { PUT: write((c, a) => styleRules.putConfiguredRules(c, p(a, 0))) } },
  { pattern: ['v3', 'style_rules', ':', 'custom_instructions'], methods: { POST: write((c, a) => styleRules.addCustomInstruction(c, p(a, 0))) } },
  {
    pattern: ['v3', 'style_rules', ':', 'custom_instructions', ':'],
    methods: {
      GET: read((c, a) => styleRules.getCustomInstruction(c, p(a, 0), p(a, 1))),
      PUT: write((c, a) => styleRules.putCustomInstruction(c, p(a, 0), p(a, 1))),
      DELETE: { ...write((c, a) => styleRules.deleteCustomInstruction(c, p(a, 0), p(a, 1))), when: 'deleteInstruction' },
    },
  },
  { pattern: ['v2', 'write', 'rephrase'], methods: { POST: read((c) => text.rephrase(c)) } },
  { pattern: ['v2', 'write', 'correct'], methods: { POST: read((c) => text.correct(c)) } },
  { pattern: ['v3', 'languages'], methods: { GET: read((c) => info.listLanguagesV3(c)) } },
  { pattern: ['v2', 'languages'], methods: { GET: read((c) => info.listLanguagesV2(c)) } },
  { pattern: ['v3', 'translation_memories'], methods: { GET: read((c) => info.listTranslationMemories(c)) } },
];

export interface MatchedRoute {
  /** Changes state: a read-scoped key gets 403. */
  readonly write: boolean;
  readonly params: readonly string[];
  readonly handle: Handler;
}

/** Finds the endpoint for a method and path; 404 for an unknown path, 405 for a known path with another method. */
export function matchRoute(method: string, segments: readonly string[], behaviour: EmulatorBehaviour = {}): MatchedRoute {
  for (const route of ROUTES) {
    if (route.pattern.length !== segments.length) continue;
    const params: string[] = [];
    const matches = route.pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part === ':') {
        params.push(segment);
        return segment !== '';
      }
      return part === segment;
    });
    if (!matches) continue;
    const served = Object.entries(route.methods).filter(([, d]) => d.when === undefined || behaviour[d.when] === true);
    const def = served.find(([m]) => m === method)?.[1];
    if (def === undefined) {
      const allowed = served.map(([m]) => m).join(', ');
      throw new ServiceError(405, `Method ${method} is not supported on this endpoint (allowed: ${allowed})`, { headers: { Allow: allowed } });
    }
    return { write: def.write, params, handle: def.handle };
  }
  throw notFound(`No endpoint at /${segments.join('/').slice(0, 200)}`);
}

export function isGlossaryPath(path: string): boolean {
  return path.startsWith('/v2/glossaries') || path.startsWith('/v3/glossaries') || path === '/v2/glossary-language-pairs';
}

/** Largest body read per endpoint family (bytes); more is 413. */
export function bodyLimitFor(path: string): number {
  if (path.startsWith('/v2/write/')) return 10 * 1024; // rephrase rule 10
  // A 10 MiB glossary grows when JSON-escaped or percent-encoded; the glossary limit itself is checked on the entries.
  if (path.startsWith('/v2/glossaries') || path.startsWith('/v3/glossaries')) return 40 * 1024 * 1024;
  if (path === '/v2/translate') return 128 * 1024;
  return 1024 * 1024;
}
