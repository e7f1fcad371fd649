/**
 * Every call termsync makes to the service, one row each: the method, the path template and the
 * query parameters it sends. The client builds its requests from these rows (api/), the plan and
 * its reports describe an operation's request with them (lib/operation-request.ts), and the
 * template is the route that labels the call in logs and metrics. A new endpoint is a row here,
 * a method in the client module of its resource, and the emulator's route (test/lib/endpoints.test.ts
 * checks that the emulator serves every row; the emulator itself shares no code with the client).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  readonly method: HttpMethod;
  /** Path template: `{name}` is a path parameter (percent-encoded when filled in). Also the route of logs and metrics. */
  readonly route: string;
  /** Query parameters the call sends, in the order shown. */
  readonly query?: readonly string[];
}

export const ENDPOINTS = {
  // Glossaries (v3).
  listGlossaries: { method: 'GET', route: '/v3/glossaries' },
  createGlossary: { method: 'POST', route: '/v3/glossaries' },
  getGlossary: { method: 'GET', route: '/v3/glossaries/{id}' },
  patchGlossary: { method: 'PATCH', route: '/v3/glossaries/{id}' },
  deleteGlossary: { method: 'DELETE', route: '/v3/glossaries/{id}' },
  getEntries: { method: 'GET', route: '/v3/glossaries/{id}/entries', query: ['source_lang', 'target_lang'] },
  putDictionary: { method: 'PUT', route: '/v3/glossaries/{id}/dictionaries' },
  deleteDictionary: { method: 'DELETE', route: '/v3/glossaries/{id}/dictionaries', query: ['source_lang', 'target_lang'] },
  // Glossaries (v2: one dictionary, immutable).
  listGlossariesV2: { method: 'GET', route: '/v2/glossaries' },
  createGlossaryV2: { method: 'POST', route: '/v2/glossaries' },
  deleteGlossaryV2: { method: 'DELETE', route: '/v2/glossaries/{id}' },
  getEntriesV2: { method: 'GET', route: '/v2/glossaries/{id}/entries' },
  // Style rules.
  listStyleRules: { method: 'GET', route: '/v3/style_rules', query: ['detailed', 'page', 'page_size'] },
  createStyleRules: { method: 'POST', route: '/v3/style_rules' },
  getStyleRules: { method: 'GET', route: '/v3/style_rules/{id}' },
  renameStyleRules: { method: 'PATCH', route: '/v3/style_rules/{id}' },
  deleteStyleRules: { method: 'DELETE', route: '/v3/style_rules/{id}' },
  putConfiguredRules: { method: 'PUT', route: '/v3/style_rules/{id}/configured_rules' },
  createInstruction: { method: 'POST', route: '/v3/style_rules/{id}/custom_instructions' },
  getInstruction: { method: 'GET', route: '/v3/style_rules/{id}/custom_instructions/{instructionId}' },
  updateInstruction: { method: 'PUT', route: '/v3/style_rules/{id}/custom_instructions/{instructionId}' },
  /** The vendor's API has it, the project's spec does not show it: a server without it answers 404, 405 or 501. */
  deleteInstruction: { method: 'DELETE', route: '/v3/style_rules/{id}/custom_instructions/{instructionId}' },
  // Everything else.
  listLanguages: { method: 'GET', route: '/v3/languages', query: ['resource'] },
  translate: { method: 'POST', route: '/v2/translate' },
} as const satisfies Readonly<Record<string, Endpoint>>;

export type EndpointName = keyof typeof ENDPOINTS;

/** The path parameters of a route template: `{ id: string }` for `/v3/glossaries/{id}`. */
export type PathParams<R extends string> = R extends `${string}{${infer P}}${infer Rest}` ? { readonly [K in P]: string } & PathParams<Rest> : unknown;

/** The query of an endpoint: exactly its parameters. */
export type QueryOf<E extends Endpoint> = E extends { readonly query: readonly (infer Q extends string)[] } ? { readonly [K in Q]: string } : undefined;

/** A request to one endpoint: what the client sends and what the plan and the reports show. */
export interface EndpointRequest<M extends HttpMethod = HttpMethod> {
  readonly method: M;
  /** The path with its parameters filled in (percent-encoded), without the query. */
  readonly path: string;
  /** The template: the route of logs and metrics. */
  readonly route: string;
  readonly query?: Readonly<Record<string, string>>;
}

/** The path of `route` with `params` filled in, each percent-encoded. */
export function fillRoute<R extends string>(route: R, params: PathParams<R>): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (params as Readonly<Record<string, string | undefined>>)[name];
    if (value === undefined) throw new Error(`internal error: no value for {${name}} of ${route}`);
    return encodeURIComponent(value);
  });
}

/** The request to `endpoint` with these path parameters (and its query, for an endpoint that has one). */
export function requestTo<E extends Endpoint>(endpoint: E, params: PathParams<E['route']>, ...query: QueryOf<E> extends undefined ? [] : [QueryOf<E>]): EndpointRequest<E['method']> {
  const [values] = query as [Readonly<Record<string, string>> | undefined];
  return {
    method: endpoint.method,
    path: fillRoute(endpoint.route, params),
    route: endpoint.route,
    ...(values === undefined ? {} : { query: values }),
  };
}

/**
 * `METHOD /path?query` as people read it (plans, apply results): ids and query values
 * percent-encoded, so safe in a code span.
 */
export function requestLine(request: EndpointRequest): string {
  const query = request.query === undefined ? '' : `?${Object.entries(request.query).map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`;
  return `${request.method} ${request.path}${query}`;
}
