import { type Diagnostic, error } from '../lib/diagnostics.js';
import type { LanguagePair } from '../model/entries.js';
import type { CsvDelimiter } from '../formats/entries-format.js';
import { extensionOf, formatOfFile } from '../formats/registry.js';
import { MAX_YAML_FILE_BYTES, parseYaml } from './load-resources.js';
import { entriesOutcome } from './read-entries.js';
import { validateResource } from './validate-resource.js';

/** A dictionary an entries file feeds, as the repository declares it. */
export interface WrittenDictionary {
  readonly pair: LanguagePair;
  readonly delimiter?: CsvDelimiter;
}

/**
 * The errors `validate` would report in a file of the repository if it held `text` (pure): what a
 * command that writes the repository (`pull`) checks before it writes, by the validator's own rules
 * for that file — its size, its YAML, the resource's schema and values, the entries of each
 * dictionary it feeds (read with its declared `delimiter`, as the loader reads it), credentials.
 * Rules that span files (a name used twice) are not repeated.
 */
export function writtenTextErrors(file: string, text: string, dictionaries: readonly WrittenDictionary[]): Diagnostic[] {
  const extension = extensionOf(file);
  const format = formatOfFile(file);
  const size = Buffer.byteLength(text, 'utf8');
  const diagnostics: Diagnostic[] = [];
  if (extension === '.yaml' || extension === '.yml') {
    if (size > MAX_YAML_FILE_BYTES) return [error('yaml/too-large', `the file would be ${size} bytes: a YAML file may be at most ${MAX_YAML_FILE_BYTES} bytes (10 MiB)`, file, 1, 1)];
    const yaml = parseYaml(text, file, diagnostics);
    if (yaml !== undefined) diagnostics.push(...validateResource(yaml).diagnostics);
  } else if (format?.readEntries !== undefined) {
    if (size > format.maxBytes) {
      return [error('entries-file/too-large', `the file would be ${size} bytes: an entries file may be at most ${format.maxBytes} bytes (10 MiB)`, file, 1, 1)];
    }
    const at = { file, line: 1, column: 1 };
    for (const { pair, delimiter } of dictionaries) diagnostics.push(...entriesOutcome(text, format.name, pair, file, at, { terms: 'preferred', ...(delimiter === undefined ? {} : { delimiter }) }).diagnostics);
  }
  return diagnostics.filter((d) => d.severity === 'error');
}
