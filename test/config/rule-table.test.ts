// The rule table (src/config/rules/rule-table.ts) is the one list of the loader's rules: every
// diagnostic code the loader can emit for a resource, its entries files, the project config or the
// repository is in it, with the severity it is emitted with, and docs/rules.md is the table as it is.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { renderRuleTable, RULE_TABLE } from '../../src/config/rules/rule-table.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CODE = /^[a-z0-9-]+\/[a-z0-9-]+$/;

function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.ts')) found.push(full);
    }
  };
  walk(path.join(ROOT, folder));
  return found;
}

/**
 * Every string literal of the loader's modules shaped like a rule id (`area/rule-name`), module
 * specifiers aside, with the severities it is emitted with: the first argument of error() or
 * warning(), or the `id` of an object with a `severity`. Codes passed through a variable (a table
 * of canonicalisation changes, a size limit) are literals somewhere all the same.
 */
function codesInSources(): Map<string, Set<string>> {
  const codes = new Map<string, Set<string>>();
  for (const file of ['src/config', 'src/formats', 'src/lib'].flatMap(sources)) {
    if (file.endsWith(path.join('rules', 'rule-table.ts'))) continue;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const add = (code: string, severity?: string): void => {
      const severities = codes.get(code) ?? new Set<string>();
      if (severity !== undefined) severities.add(severity);
      codes.set(code, severities);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && CODE.test(node.text)) add(node.text);
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['error', 'warning'].includes(node.expression.text)) {
        const first = node.arguments[0];
        if (first !== undefined && ts.isStringLiteral(first) && CODE.test(first.text)) add(first.text, node.expression.text);
      }
      if (ts.isObjectLiteralExpression(node)) {
        const property = (key: string): ts.Expression | undefined =>
          node.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(source) === key)?.initializer;
        const id = property('id');
        const severity = property('severity');
        if (id !== undefined && severity !== undefined && ts.isStringLiteral(id) && ts.isStringLiteral(severity)) add(id.text, severity.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  // Module specifiers of dynamic imports and package subpaths are not codes.
  for (const specifier of ['csv-parse/sync', 'zod/mini']) codes.delete(specifier);
  return codes;
}

describe('the rule table', () => {
  const codes = codesInSources();
  const table = new Map(RULE_TABLE.map((rule) => [rule.id, rule]));

  it('finds the loader\'s codes in its sources (the scan works)', () => {
    expect(codes.size).toBeGreaterThan(100);
    for (const code of ['glossary/blank-name', 'entries/duplicate-source', 'entries-file/too-large', 'yaml/syntax', 'config/api-key-in-repo', 'entries/not-nfc']) expect(codes.has(code)).toBe(true);
  });

  it('lists every diagnostic code the loader can emit', () => {
    expect([...codes.keys()].filter((code) => !table.has(code)).sort()).toEqual([]);
  });

  it('lists no rule the loader no longer has', () => {
    expect(RULE_TABLE.map((rule) => rule.id).filter((id) => !codes.has(id))).toEqual([]);
  });

  it('lists each rule once, with the severity it is emitted with, and says what it is', () => {
    expect(table.size).toBe(RULE_TABLE.length);
    for (const [code, severities] of codes) {
      for (const severity of severities) expect({ code, severity }).toEqual({ code, severity: table.get(code)?.severity });
    }
    for (const rule of RULE_TABLE) expect(rule.summary.length, rule.id).toBeGreaterThan(10);
  });

  it('is docs/rules.md (run `npm run build && node scripts/rules-doc.js` after a change)', () => {
    expect(readFileSync(path.join(ROOT, 'docs', 'rules.md'), 'utf8')).toBe(renderRuleTable());
  });
});
