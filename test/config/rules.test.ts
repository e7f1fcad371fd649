import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';

const RULES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'rules');

type Expected = readonly [fixture: string, code: string, file: string, line: number, column: number, severity?: 'error' | 'warning'];

/** Every rule of the validator, each triggered by a fixture repository in test/fixtures/rules/. */
const CASES: readonly Expected[] = [
  // YAML
  ['yaml-syntax', 'yaml/syntax', 'glossaries/broken.yaml', 3, 1],
  ['yaml-multiple-documents', 'yaml/multiple-documents', 'glossaries/two.yaml', 8, 1],
  ['yaml-empty', 'yaml/empty', 'glossaries/empty.yaml', 1, 1],
  ['yaml-alias-bomb', 'yaml/alias-bomb', 'glossaries/bomb.yaml', 4, 8],
  ['yaml-too-deep', 'yaml/too-deep', 'glossaries/deep.yaml', 7, 75],
  ['yaml-duplicate-key', 'yaml/duplicate-key', 'glossaries/dup.yaml', 3, 1],
  ['yaml-not-a-mapping', 'yaml/not-a-mapping', 'glossaries/list.yaml', 1, 1],
  ['yaml-invalid-utf8', 'yaml/invalid-utf8', 'glossaries/latin1.yaml', 2, 9],
  ['yaml-utf16', 'yaml/invalid-utf8', 'glossaries/notepad.yaml', 1, 1],
  ['yaml-warning', 'yaml/warning', 'glossaries/x.yaml', 2, 7, 'warning'],
  // resources and schema
  ['resource-unknown-kind', 'resource/unknown-kind', 'glossaries/x.yaml', 1, 7],
  ['resource-missing-kind', 'resource/missing-kind', 'glossaries/x.yaml', 2, 1],
  ['resource-duplicate-name', 'resource/duplicate-name', 'glossaries/b.yaml', 2, 1],
  ['resource-symlink-loop', 'file/unreadable', 'glossaries/loop.yaml', 1, 1],
  ['resource-outside-repo', 'resource/outside-repo', 'glossaries/linked.yaml', 1, 1],
  ['schema-unknown-field', 'schema/unknown-field', 'glossaries/x.yaml', 3, 1],
  ['schema-unknown-nested-field', 'schema/unknown-field', 'glossaries/x.yaml', 6, 5],
  ['schema-invalid-type', 'schema/invalid-type', 'glossaries/x.yaml', 3, 18],
  ['schema-missing-field', 'schema/missing-field', 'glossaries/x.yaml', 1, 1],
  ['schema-invalid-value', 'schema/invalid-value', 'termsync.yaml', 3, 16],
  // glossaries
  ['glossary-unknown-api', 'glossary/unknown-api', 'glossaries/x.yaml', 3, 6],
  ['glossary-v2-dictionary-count', 'glossary/v2-dictionary-count', 'glossaries/x.yaml', 4, 1],
  ['glossary-no-dictionaries', 'glossary/no-dictionaries', 'glossaries/x.yaml', 3, 1],
  ['glossary-duplicate-pair', 'glossary/duplicate-pair', 'glossaries/x.yaml', 8, 5],
  ['glossary-name-too-long', 'glossary/name-too-long', 'glossaries/x.yaml', 2, 7],
  ['glossary-entries-source', 'glossary/entries-source', 'glossaries/x.yaml', 4, 5],
  ['glossary-blank-name', 'glossary/blank-name', 'glossaries/x.yaml', 2, 7],
  ['glossary-v2-v3-same-name', 'glossary/v2-v3-same-name', 'glossaries/b.yaml', 2, 1],
  // languages
  ['lang-unknown', 'lang/unknown', 'glossaries/x.yaml', 5, 18],
  ['lang-thai', 'lang/thai', 'glossaries/x.yaml', 5, 18, 'warning'],
  ['lang-region-variant', 'lang/region-variant', 'glossaries/x.yaml', 5, 18],
  ['lang-same-pair', 'lang/same-pair', 'glossaries/x.yaml', 5, 18],
  ['lang-same-pair', 'lang/region-variant', 'glossaries/x.yaml', 5, 18],
  ['lang-not-lowercase', 'lang/not-lowercase', 'glossaries/x.yaml', 4, 18, 'warning'],
  ['glossary-duplicate-pair', 'lang/not-lowercase', 'glossaries/x.yaml', 8, 18, 'warning'],
  // glossary tests (`tests:`, run by verify)
  ['test-no-dictionary', 'test/no-dictionary', 'glossaries/x.yaml', 10, 18],
  ['test-target-variant', 'test/target-variant', 'glossaries/x.yaml', 10, 18],
  ['test-nothing-to-check', 'test/nothing-to-check', 'glossaries/x.yaml', 9, 5],
  ['test-blank-text', 'test/blank-text', 'glossaries/x.yaml', 11, 11],
  ['test-blank-term', 'test/blank-term', 'glossaries/x.yaml', 12, 21],
  ['test-expect-and-forbid', 'test/expect-and-forbid', 'glossaries/x.yaml', 13, 14],
  // style rules
  ['style-language', 'style/language', 'glossaries/s.yaml', 3, 11],
  ['style-name-too-long', 'style/name-too-long', 'glossaries/s.yaml', 2, 7],
  ['style-prompt-too-long', 'style/prompt-too-long', 'glossaries/s.yaml', 6, 13],
  ['style-too-many-instructions', 'style/too-many-instructions', 'glossaries/s.yaml', 405, 5],
  ['style-duplicate-label', 'style/duplicate-label', 'glossaries/s.yaml', 7, 12],
  ['style-blank-text', 'style/blank-text', 'glossaries/s.yaml', 5, 12],
  ['style-blank-rule-name', 'style/blank-text', 'glossaries/s.yaml', 6, 5],
  ['style-empty-category', 'style/empty-category', 'glossaries/s.yaml', 5, 3],
  ['style-blank-option', 'style/blank-option', 'glossaries/s.yaml', 6, 17],
  ['style-instruction-language', 'style/instruction-language', 'glossaries/s.yaml', 7, 22],
  ['style-configured-rules-shape', 'style/configured-rules-shape', 'glossaries/s.yaml', 6, 5],
  // entries files
  ['entries-file-missing', 'entries-file/missing', 'glossaries/x.yaml', 6, 19],
  ['entries-file-dotdot', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-absolute', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-symlink-out', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-extension', 'entries-file/extension', 'glossaries/x.yaml', 6, 19],
  ['entries-file-invalid-utf8', 'entries-file/invalid-utf8', 'glossaries/terms.tsv', 2, 14],
  ['entries-file-utf16', 'entries-file/invalid-utf8', 'glossaries/terms.tsv', 1, 1],
  ['entries-file-symlink-loop', 'entries-file/unreadable', 'glossaries/x.yaml', 6, 19],
  ['entries-file-not-a-file', 'entries-file/not-a-file', 'glossaries/x.yaml', 6, 19],
  // entries
  ['entries-duplicate-source', 'entries/duplicate-source', 'glossaries/terms.tsv', 4, 1],
  ['entries-duplicate-source', 'entries/whitespace-trimmed', 'glossaries/terms.tsv', 4, 1, 'warning'],
  ['entries-case-twin', 'entries/case-twin', 'glossaries/terms.tsv', 2, 1, 'warning'],
  ['entries-empty-source', 'entries/empty-source', 'glossaries/terms.tsv', 2, 1],
  ['entries-empty-target', 'entries/empty-target', 'glossaries/terms.tsv', 2, 10],
  ['entries-tab-or-newline', 'entries/tab-or-newline', 'glossaries/terms.csv', 2, 1],
  ['entries-phrase-too-long', 'entries/phrase-too-long', 'glossaries/terms.tsv', 2, 1],
  ['entries-field-count-tsv', 'entries/field-count', 'glossaries/terms.tsv', 2, 15],
  ['entries-field-count-csv', 'entries/field-count', 'glossaries/terms.csv', 2, 1],
  ['entries-language-name-header', 'entries/language-name-header', 'glossaries/terms.csv', 1, 1],
  ['entries-malformed-quote', 'entries/malformed-quote', 'glossaries/terms.csv', 2, 1],
  ['entries-wrong-separator', 'entries/wrong-separator', 'glossaries/terms.csv', 1, 5],
  ['entries-language-columns-mismatch', 'entries/language-columns-mismatch', 'glossaries/terms.csv', 2, 19, 'warning'],
  ['entries-csv-header', 'entries/csv-header', 'glossaries/terms.csv', 1, 1, 'warning'],
  ['entries-malformed-quote-unclosed', 'entries/malformed-quote', 'glossaries/terms.csv', 2, 6],
  ['entries-empty-target-csv', 'entries/empty-target', 'glossaries/terms.csv', 2, 15],
  ['entries-bom', 'entries/bom', 'glossaries/terms.tsv', 1, 1, 'warning'],
  ['entries-line-ending', 'entries/line-ending', 'glossaries/terms.tsv', 1, 15, 'warning'],
  ['entries-whitespace-trimmed', 'entries/whitespace-trimmed', 'glossaries/terms.tsv', 2, 10, 'warning'],
  ['entries-not-nfc', 'entries/not-nfc', 'glossaries/terms.tsv', 2, 12, 'warning'],
  ['entries-blank-line', 'entries/blank-line', 'glossaries/terms.tsv', 2, 1, 'warning'],
  ['entries-not-a-string', 'entries/not-a-string', 'glossaries/x.yaml', 8, 14],
  ['entries-not-a-string-key', 'entries/not-a-string', 'glossaries/x.yaml', 8, 9],
  ['entries-empty-dictionary-file', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-empty-dictionary-inline', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 14],
  ['entries-empty-dictionary-blank', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-empty-dictionary-blank', 'entries/blank-line', 'glossaries/terms.tsv', 2, 1, 'warning'],
  ['entries-empty-dictionary-columns', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-empty-dictionary-columns', 'entries/language-columns-mismatch', 'glossaries/terms.csv', 1, 16, 'warning'],
  ['entries-control-character', 'entries/control-character', 'glossaries/terms.tsv', 2, 1],
  ['entries-control-character-nel', 'entries/control-character', 'glossaries/terms.tsv', 2, 10],
  ['entries-control-character-inline', 'entries/control-character', 'glossaries/x.yaml', 8, 7],
  ['entries-control-character-inline', 'entries/control-character', 'glossaries/x.yaml', 9, 7],
  // project config
  ['config-not-found', 'config/not-found', 'config/termsync.yaml', 1, 1],
  ['config-unknown-prune-mode', 'config/unknown-prune-mode', 'termsync.yaml', 2, 8],
  ['config-owned-names-missing', 'config/owned-names-missing', 'termsync.yaml', 2, 8],
  ['config-api-key-in-repo', 'config/api-key-in-repo', 'termsync.yaml', 5, 18],
  ['config-api-key-in-repo', 'config/invalid-env-name', 'termsync.yaml', 5, 18],
  ['config-api-key-in-resource', 'config/api-key-in-repo', 'glossaries/x.yaml', 9, 15],
  ['config-api-key-in-broken-yaml', 'config/api-key-in-repo', 'glossaries/x.yaml', 4, 12],
  ['config-api-key-in-broken-yaml', 'yaml/syntax', 'glossaries/x.yaml', 3, 1],
  ['resource-unknown-kind-secret', 'resource/unknown-kind', 'glossaries/x.yaml', 1, 7],
  ['config-token-in-repo', 'config/api-key-in-repo', 'termsync.yaml', 6, 12],
  ['config-unsupported-version', 'config/unsupported-version', 'termsync.yaml', 1, 10],
  ['config-duplicate-target', 'config/duplicate-target', 'termsync.yaml', 6, 11],
  ['config-invalid-schedule', 'config/invalid-schedule', 'termsync.yaml', 2, 11],
  ['config-invalid-env-name', 'config/invalid-env-name', 'termsync.yaml', 4, 19],
  ['config-env-name-not-allowed', 'config/env-name-not-allowed', 'termsync.yaml', 5, 18],
  ['config-env-name-conflict', 'config/env-name-conflict', 'termsync.yaml', 4, 19],
  ['config-secret-in-entries', 'config/api-key-in-repo', 'glossaries/terms.tsv', 2, 9],
  ['config-secret-in-comment', 'config/api-key-in-repo', 'glossaries/x.yaml', 3, 7],
  ['config-outside-repo', 'config/outside-repo', 'termsync.yaml', 1, 1],
  ['resource-control-character', 'resource/control-character', 'glossaries/x.yaml', 2, 7],
  ['style-control-character', 'resource/control-character', 'glossaries/s.yaml', 5, 12],
  ['config-resource-folder-missing', 'config/resource-folder-missing', 'termsync.yaml', 2, 12, 'warning'],
  ['config-resource-folder-outside', 'config/resource-folder-outside', 'termsync.yaml', 2, 12],
  ['config-unknown-field', 'schema/unknown-field', 'termsync.yaml', 3, 3],
  ['config-verify-invalid', 'schema/invalid-value', 'termsync.yaml', 7, 19],
];

describe('validation rules (one fixture repository per rule)', () => {
  const rows = CASES.map(([fixture, code, file, line, column, severity = 'error']) => ({ fixture, code, file, line, column, severity }));
  it.each(rows)('$fixture → $code at $file:$line:$column', async ({ fixture, code, file, line, column, severity }) => {
    const { diagnostics } = await loadRepository({ dir: path.join(RULES, fixture) });
    expect(diagnostics).toContainEqual(expect.objectContaining({ code, file, line, column, severity }));
  });

  it('reports nothing but the expected rules in each fixture (no stray errors)', async () => {
    const expected = new Map<string, Set<string>>();
    for (const [fixture, code] of CASES) expected.set(fixture, (expected.get(fixture) ?? new Set()).add(code));
    // Rules that come along with the one under test, by construction of the fixture.
    const companions: Record<string, string[]> = { 'schema-unknown-field': ['schema/missing-field'], 'config-token-in-repo': ['schema/unknown-field'] };
    for (const [fixture, codes] of expected) {
      const { diagnostics } = await loadRepository({ dir: path.join(RULES, fixture) });
      const allowed = new Set([...codes, ...(companions[fixture] ?? [])]);
      expect(diagnostics.filter((d) => !allowed.has(d.code)).map((d) => `${fixture}: ${d.code}`)).toEqual([]);
    }
  });

  it('says "did you mean" for a misspelt field and never echoes an API key', async () => {
    const typo = await loadRepository({ dir: path.join(RULES, 'schema-unknown-field') });
    expect(typo.diagnostics.find((d) => d.code === 'schema/unknown-field')?.message).toContain('did you mean `dictionaries`');
    for (const fixture of ['config-api-key-in-repo', 'config-api-key-in-resource', 'config-token-in-repo', 'config-secret-in-entries', 'config-secret-in-comment']) {
      const { diagnostics } = await loadRepository({ dir: path.join(RULES, fixture) });
      const text = JSON.stringify(diagnostics);
      expect(text).not.toMatch(/3f9a2c71|7e2b6a4d0c95|sk9Qw3Xz7LmP2vR8tY4uK6nB1cD5eF0g|Qw3Xz7LmP2vR8tY4|IOSFODNN7/);
    }
  });

  it('names the base code for a region variant and the wrong separator of a CSV', async () => {
    const region = await loadRepository({ dir: path.join(RULES, 'lang-region-variant') });
    expect(region.diagnostics.find((d) => d.code === 'lang/region-variant')?.message).toMatch(/"pt-BR".*base code "pt"/);
    const csv = await loadRepository({ dir: path.join(RULES, 'entries-wrong-separator') });
    expect(csv.diagnostics.find((d) => d.code === 'entries/wrong-separator')?.message).toMatch(/semicolon `;`/);
  });

  it('says that a file saved as UTF-16 (byte order mark FF FE or FE FF) must be saved as UTF-8, or an entries file declared so', async () => {
    for (const [fixture, order, fix] of [
      ['entries-file-utf16', 'little-endian', 'set `encoding: utf-16` next to `entries_file`, or save the file as UTF-8'],
      ['yaml-utf16', 'big-endian', 'save the file as UTF-8'],
    ] as const) {
      const { diagnostics } = await loadRepository({ dir: path.join(RULES, fixture) });
      expect(diagnostics.map((d) => d.message)).toEqual([`saved as UTF-16 (${order}, it starts with a UTF-16 byte order mark): ${fix}`]);
    }
    const latin1 = await loadRepository({ dir: path.join(RULES, 'entries-file-invalid-utf8') });
    expect(latin1.diagnostics.map((d) => d.message)).toEqual([
      'not valid UTF-8 (byte 29): it looks like Windows-1252 (what Excel and Windows editors write for Western European languages): set `encoding: windows-1252` next to `entries_file`, or save the file as UTF-8 (in Excel: "CSV UTF-8")',
    ]);
  });

  it('calls a symbolic link loop a loop, not a broken link', async () => {
    const entries = await loadRepository({ dir: path.join(RULES, 'entries-file-symlink-loop') });
    expect(entries.diagnostics.map((d) => d.message)).toEqual(['`entries_file` "a.tsv" is a symbolic link loop (ELOOP): the link leads back to itself']);
    const resource = await loadRepository({ dir: path.join(RULES, 'resource-symlink-loop') });
    expect(resource.diagnostics.map((d) => d.message)).toEqual(['cannot read the file: it is a symbolic link loop (ELOOP), the link leads back to itself']);
  });

  it('points at the first custom instruction over the limit of 200', async () => {
    const { diagnostics } = await loadRepository({ dir: path.join(RULES, 'style-too-many-instructions') });
    expect(diagnostics.map((d) => d.message)).toEqual(['custom instruction 201 of 201 is over the limit: the service enables at most 200 per list']);
  });

  it('names the whitespace characters it trimmed', async () => {
    const { diagnostics } = await loadRepository({ dir: path.join(RULES, 'entries-whitespace-trimmed') });
    expect(diagnostics.map((d) => d.message)).toEqual([
      'target phrase "Kasse": surrounding whitespace trimmed (removed U+00A0 NO-BREAK SPACE at the start; U+3000 IDEOGRAPHIC SPACE at the end)',
    ]);
  });

  it('names both lines of a duplicate source phrase', async () => {
    const { diagnostics } = await loadRepository({ dir: path.join(RULES, 'entries-duplicate-source') });
    expect(diagnostics.find((d) => d.code === 'entries/duplicate-source')?.message).toMatch(/lines 2 and 4/);
  });
});
