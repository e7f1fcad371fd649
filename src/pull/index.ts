export { createDrift, dictionariesToPull } from './create-drift.js';
export { ENTRIES_WRITERS, CSV_WRITER, TSV_WRITER, writerFor, type DictionaryContent, type EntriesWriter } from './entries-writers.js';
export { planFileEdits, type FileEdit, type FileEdits } from './plan-file-edits.js';
export { rewriteResourceYaml, type GlossaryYamlEdit, type ResourceYamlEdit, type StyleRulesYamlEdit } from './rewrite-resource-yaml.js';
export { createCsv, rewriteCsv } from './rewrite-csv.js';
export { createTsv, rewriteTsv } from './rewrite-tsv.js';
export { unwritableEntries, unwritableInstruction, unwritableLines, unwritableMessage, unwritableName } from './find-unwritable.js';
