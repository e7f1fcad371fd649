export { createDrift, dictionariesToPull } from './create-drift.js';
export { ENTRIES_WRITERS, writerFor } from '../formats/registry.js';
export type { DictionaryContent, EntriesWriter } from '../formats/entries-format.js';
export { planFileEdits, type FileEdit, type FileEdits } from './plan-file-edits.js';
export { rewriteResourceYaml, type GlossaryYamlEdit, type ResourceYamlEdit, type StyleRulesYamlEdit } from './rewrite-resource-yaml.js';
export { unwritableEntries, unwritableInstruction, unwritableLines, unwritableMessage, unwritableName } from './find-unwritable.js';
