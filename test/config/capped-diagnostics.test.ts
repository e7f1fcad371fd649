import { describe, expect, it } from 'vitest';
import { parseEntries } from '../../src/config/index.js';
import { entriesOutcome } from '../../src/config/read-entries.js';
import { CappedDiagnostics, markDiagnostics, MAX_SAME_RULE_PER_FILE, truncateDiagnostics, type Diagnostic } from '../../src/lib/diagnostics.js';
import { runCliCaptured } from '../cli/run-cli.js';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const pair = { sourceLang: 'en', targetLang: 'de' };
const at = (code: string, line: number): Diagnostic => ({ severity: 'warning', code, message: `${code} ${line}`, file: 'f.tsv', line, column: 1 });

describe('CappedDiagnostics', () => {
  it('lists the first MAX_SAME_RULE_PER_FILE of each rule and closes with one count per rule, at the first left out', () => {
    const list = new CappedDiagnostics();
    for (let line = 1; line <= MAX_SAME_RULE_PER_FILE + 5; line++) list.push(at('a', line), at('b', line));
    list.push(at('c', 1));
    const closed = list.close();
    expect(closed).toHaveLength(2 * MAX_SAME_RULE_PER_FILE + 1 + 2);
    expect(closed.filter((d) => d.code === 'a').slice(0, 3).map((d) => d.line)).toEqual([1, 2, 3]);
    const more = closed.slice(-2);
    expect(more.map((d) => [d.code, d.line, d.severity])).toEqual([
      ['a', MAX_SAME_RULE_PER_FILE + 1, 'warning'],
      ['b', MAX_SAME_RULE_PER_FILE + 1, 'warning'],
    ]);
    expect(more[0]?.message).toBe(`and 5 more like this from here on in this file (the first ${MAX_SAME_RULE_PER_FILE} are listed)`);
    expect(closed).not.toBeInstanceOf(CappedDiagnostics);
  });

  it('truncated, forgets what came after (listed and left out) and lists again up to the limit', () => {
    const list = new CappedDiagnostics();
    for (let line = 1; line <= 10; line++) list.push(at('a', line));
    const before = markDiagnostics(list);
    for (let line = 11; line <= MAX_SAME_RULE_PER_FILE + 50; line++) list.push(at('a', line));
    truncateDiagnostics(list, before);
    expect(list.close().map((d) => d.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let line = 11; line <= MAX_SAME_RULE_PER_FILE + 2; line++) list.push(at('a', line));
    const closed = list.close();
    expect(closed).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(closed.at(-1)?.message).toMatch(/^and 2 more like this/);
  });

  it('truncated at a mark between left-out ones, keeps those left out before it', () => {
    const list = new CappedDiagnostics();
    for (let line = 1; line <= MAX_SAME_RULE_PER_FILE + 5; line++) list.push(at('a', line));
    const mark = markDiagnostics(list);
    for (let line = MAX_SAME_RULE_PER_FILE + 6; line <= MAX_SAME_RULE_PER_FILE + 10; line++) list.push(at('a', line));
    truncateDiagnostics(list, mark);
    const closed = list.close();
    expect(closed).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(closed.at(-1)).toMatchObject({ line: MAX_SAME_RULE_PER_FILE + 1, message: `and 5 more like this from here on in this file (the first ${MAX_SAME_RULE_PER_FILE} are listed)` });
  });

  it('counts a rule per severity: errors are never hidden behind warnings of the same rule', () => {
    const list = new CappedDiagnostics();
    for (let line = 1; line <= MAX_SAME_RULE_PER_FILE; line++) list.push(at('a', line));
    list.push({ ...at('a', 500), severity: 'error' });
    const closed = list.close();
    expect(closed).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(closed.at(-1)).toMatchObject({ line: 500, severity: 'error' });
  });

  it('a plain array is truncated as before', () => {
    const plain = [at('a', 1), at('a', 2)];
    const mark = markDiagnostics(plain);
    plain.push(at('a', 3));
    truncateDiagnostics(plain, mark);
    expect(plain).toEqual([at('a', 1), at('a', 2)]);
  });

  it('credentials found in a TSV file count against the same limit', () => {
    const text = Array.from({ length: 300 }, (_, i) => `term${i}\tid 0123abcd-0000-4000-8000-${String(i).padStart(12, '0')}\n`).join('');
    const outcome = entriesOutcome(text, 'tsv', pair, 'g/e.tsv', { file: 'g/g.yaml', line: 1, column: 1 });
    const secrets = outcome.diagnostics.filter((d) => d.code === 'config/api-key-in-repo');
    expect(secrets).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(secrets.at(-1)?.message).toMatch(/^and 200 more like this/);
  });
});

describe('an entries file with countless problems', () => {
  it('200,000 blank lines: 100 warnings listed and one count, not 200,000 (the spread into push overflowed the stack)', () => {
    const { entries, diagnostics } = parseEntries(`a\tb\n${'\n'.repeat(200_000)}`, 'tsv', pair, 'g/e.tsv');
    expect([...entries]).toEqual([['a', 'b']]);
    expect(diagnostics).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(diagnostics.every((d) => d.code === 'entries/blank-line' && d.severity === 'warning')).toBe(true);
    expect(diagnostics.at(-1)).toMatchObject({ line: MAX_SAME_RULE_PER_FILE + 2, message: `and ${200_000 - MAX_SAME_RULE_PER_FILE} more like this from here on in this file (the first ${MAX_SAME_RULE_PER_FILE} are listed)` });
  });

  it('a CSV file with malformed quoting on many lines keeps its errors located and capped', () => {
    const { diagnostics } = parseEntries(`a,b\n${'x"y,z\n'.repeat(300)}`, 'csv', pair, 'g/e.csv');
    const quotes = diagnostics.filter((d) => d.code === 'entries/malformed-quote');
    expect(quotes).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    expect(quotes.slice(0, 2).map((d) => d.line)).toEqual([2, 3]);
    expect(quotes.every((d) => d.severity === 'error')).toBe(true);
  });

  it('validate: exit 3 with the listed errors and counts, no internal error', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'termsync-capped-'));
    try {
      await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n');
      await mkdir(path.join(dir, 'glossaries', 'entries'), { recursive: true });
      await writeFile(path.join(dir, 'glossaries', 'g.yaml'), 'kind: glossary\nname: G\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: entries/e.tsv\n');
      await writeFile(path.join(dir, 'glossaries', 'entries', 'e.tsv'), `a\tb\n${'x\ty\n'.repeat(150_000)}${'\n'.repeat(150_000)}`);
      const run = await runCliCaptured(['validate', '--dir', dir, '--format', 'json']);
      expect(run.stderr).not.toMatch(/Internal error/);
      expect(run.code).toBe(3);
      const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
      const duplicates = report.diagnostics.filter((d) => d.code === 'entries/duplicate-source');
      expect(duplicates).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
      expect(duplicates.at(-1)?.message).toMatch(/^and 149899 more like this/);
      expect(report.diagnostics.filter((d) => d.code === 'entries/blank-line')).toHaveLength(MAX_SAME_RULE_PER_FILE + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
