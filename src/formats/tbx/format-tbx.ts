import type { ConceptTable } from '../common/concept-table.js';

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
