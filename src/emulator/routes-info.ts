import { V3_LANGUAGE_RESOURCES, languagesV2, languagesV3 } from './languages-data.js';
import { readQueryInteger } from './read-fields.js';
import { jsonResponse, type RequestContext, type ServiceResponse } from './request-context.js';
import { badRequest } from './service-error.js';

export function listLanguagesV3(ctx: RequestContext): ServiceResponse {
  const resource = ctx.query.get('resource');
  if (resource === null) throw badRequest(`Missing required query parameter \`resource\` (one of ${V3_LANGUAGE_RESOURCES.join(', ')})`);
  const languages = languagesV3(resource);
  if (languages === undefined) throw badRequest(`Unsupported \`resource\` "${resource.slice(0, 40)}": expected one of ${V3_LANGUAGE_RESOURCES.join(', ')}`);
  return jsonResponse(200, languages);
}

export function listLanguagesV2(ctx: RequestContext): ServiceResponse {
  const type = ctx.query.get('type') ?? 'source';
  if (type !== 'source' && type !== 'target') throw badRequest(`Unsupported \`type\` "${type.slice(0, 40)}": expected source or target`);
  return jsonResponse(200, languagesV2(type));
}

export function listTranslationMemories(ctx: RequestContext): ServiceResponse {
  const page = readQueryInteger(ctx.query, 'page', 0, 0, 1_000_000);
  const pageSize = readQueryInteger(ctx.query, 'page_size', 10, 1, 25);
  const all = ctx.account.translationMemories;
  return jsonResponse(200, { translation_memories: all.slice(page * pageSize, page * pageSize + pageSize), total_count: all.length });
}
