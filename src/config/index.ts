export { type LoadMemo } from './load-memo.js';
export { loadProjectConfig, loadRepository, parallelFromEnv, type LoadOptions, type LoadResult } from './load-repository.js';
export { parseEntries } from '../formats/registry.js';
export { refreshForFiles, resourcesForFiles } from './resources-for-files.js';
export { jsonSchemas } from './schemas.js';
export { catalogEntries, SCHEMA_BASE_URL, SCHEMA_FILES, schemaUrl, type CatalogEntry, type SchemaName } from './schema-urls.js';
export { looksLikeSecret } from './detect-secrets.js';
