import type { Entries, LanguagePair } from '../../model/entries.js';

/**
 * A glossary's dictionaries as concepts, one per source phrase, the shape of a TBX file or a
 * workbook: exact when every dictionary has the same source language (the glossary is then
 * `pairs: from <source>`, and reading the file back gives the same dictionaries). Undefined
 * otherwise: such a glossary cannot be written as one multilingual file without changing it.
 */
export interface ConceptTable {
  readonly source: string;
  readonly targets: readonly string[];
  /** Sorted by source phrase (code-unit order); `terms[i]` is the term in `targets[i]`, if any. */
  readonly rows: readonly { readonly source: string; readonly terms: readonly (string | undefined)[] }[];
}

export function toConceptTable(dictionaries: readonly (LanguagePair & { readonly entries: Entries })[]): ConceptTable | undefined {
  const source = dictionaries[0]?.sourceLang;
  if (source === undefined || dictionaries.some((d) => d.sourceLang !== source)) return undefined;
  const targets = dictionaries.map((d) => d.targetLang);
  const sources = new Set<string>();
  for (const d of dictionaries) for (const phrase of d.entries.keys()) sources.add(phrase);
  const rows = [...sources]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((phrase) => ({ source: phrase, terms: dictionaries.map((d) => d.entries.get(phrase)) }));
  return { source, targets, rows };
}

/** The table as the rows of a sheet: a header row of language codes, then one row per concept (null: no term). */
export function toSheetRows(table: ConceptTable): (string | null)[][] {
  return [[table.source, ...table.targets], ...table.rows.map((row) => [row.source, ...row.terms.map((term) => term ?? null)])];
}
