import type { Entries, LanguagePair } from '../model/entries.js';

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

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A TBX-Basic document (TBX 2, `martif` root) of the table: one termEntry per source phrase, one
 * langSet per language that has a term. Canonical phrases hold no control character, so escaping
 * the XML specials is all a phrase needs.
 */
export function formatTbx(title: string, table: ConceptTable): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<martif type="TBX-Basic" xml:lang="${table.source}">`,
    '  <martifHeader>',
    '    <fileDesc>',
    `      <titleStmt><title>${escapeXml(title)}</title></titleStmt>`,
    '      <sourceDesc><p>Written by termsync import from the live glossary</p></sourceDesc>',
    '    </fileDesc>',
    '  </martifHeader>',
    '  <text>',
    '    <body>',
  ];
  const langSet = (lang: string, term: string): string => `        <langSet xml:lang="${lang}"><tig><term>${escapeXml(term)}</term></tig></langSet>`;
  table.rows.forEach((row, i) => {
    lines.push(`      <termEntry id="c${i + 1}">`, langSet(table.source, row.source));
    row.terms.forEach((term, k) => {
      if (term !== undefined) lines.push(langSet(table.targets[k] as string, term));
    });
    lines.push('      </termEntry>');
  });
  lines.push('    </body>', '  </text>', '</martif>', '');
  return lines.join('\n');
}

/** The table as the rows of a sheet: a header row of language codes, then one row per concept (null: no term). */
export function toSheetRows(table: ConceptTable): (string | null)[][] {
  return [[table.source, ...table.targets], ...table.rows.map((row) => [row.source, ...row.terms.map((term) => term ?? null)])];
}
