export { type LoadMemo } from './load-memo.js';
export { loadRepository, parallelFromEnv, type LoadOptions, type LoadResult } from './load-repository.js';
export { parseEntries, type EntriesFormat } from './parse-entries.js';
export { formatCsv, formatTsv } from './format-entries.js';
export { toEntryList } from '../lib/entries-tsv.js';
export { formatTbx, toConceptTable, toSheetRows, type ConceptTable } from './format-multilingual.js';
export { refreshForFiles, resourcesForFiles } from './resources-for-files.js';
export { jsonSchemas } from './schemas.js';
export { looksLikeSecret } from './detect-secrets.js';
