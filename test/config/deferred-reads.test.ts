import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EntriesText } from '../../src/api/tsv-entries.js';
import { loadRepository } from '../../src/config/index.js';
import type * as readFiles from '../../src/config/read-files.js';
import { readEntriesFile } from '../../src/config/read-files.js';
import { TermsyncError } from '../../src/lib/errors.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';
import { literalDigestOfText } from '../../src/lib/text-digest.js';
import type { RawEntries } from '../../src/model/live.js';
import { compareLiveEntries, expectedLiteral, WHOLE_TEXT_CHARS } from '../../src/plan/compare/index.js';
import { readingOf } from '../plan/compare/deferred-of.js';
import { PackedEntries } from '../../src/model/packed-entries.js';

// Every read of an entries file, the load's and any later one, goes through readEntriesFile: the
// real function, counted.
vi.mock('../../src/config/read-files.js', async (importOriginal) => {
  const original = await importOriginal<typeof readFiles>();
  return { ...original, readEntriesFile: vi.fn(original.readEntriesFile) };
});
const fileReads = vi.mocked(readEntriesFile);

const CONFIG = 'version: 1\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';
const GLOSSARY = 'kind: glossary\nname: Deferred\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: e.tsv\n';
const where = { method: 'GET', path: '/v3/glossaries/g/entries' };

/** Not in source order; as termsync uploads it (sorted by source), and a change of one term. */
const UNSORTED = 'zebra\tZebra\naccount\tKonto\nGröße\tSize 日本\ncart\tWarenkorb\n';
const SORTED = 'Größe\tSize 日本\naccount\tKonto\ncart\tWarenkorb\nzebra\tZebra';
const AS_READ = UNSORTED.slice(0, -1);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'termsync-deferred-'));
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(dir, 'glossaries'));
  await writeFile(path.join(dir, 'glossaries', 'g.yaml'), GLOSSARY);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

/** The plan's entries of e.tsv (deferred), and the file reads since the load. */
async function load(text: string): Promise<{ entries: PackedEntries; readsSinceLoad: () => number }> {
  await writeFile(path.join(dir, 'glossaries', 'e.tsv'), text);
  const result = await loadRepository({ dir, deferEntries: true, parallel: false });
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  const entries = result.desired?.glossaries[0]?.dictionaries[0]?.entries;
  if (!(entries instanceof PackedEntries) || entries.deferredText === undefined) throw new Error('expected deferred entries');
  const atLoad = fileReads.mock.calls.length;
  return { entries, readsSinceLoad: () => fileReads.mock.calls.length - atLoad };
}

/** The forms an answer reaches the comparison in: plain text, the client's text, its JSON-escaped text. */
const answers = (text: string): [string, () => RawEntries][] => [
  ['tsv', () => ({ tsv: text })],
  ['client text', () => new EntriesText(text, where)],
  ['escaped', () => new EntriesText(JSON.stringify(text).slice(1, -1), where, true)],
];

/** Counts the sorts of entries' lines (every sorted form is made through one of these). */
function countSorts(): () => number {
  const bySource = vi.spyOn(PackedEntries.prototype, 'linesBySource');
  const sorted = vi.spyOn(PackedEntries.prototype, 'sortedLines');
  return () => bySource.mock.calls.length + sorted.mock.calls.length;
}

describe('a plan\'s deferred entries file not in source order', () => {
  it('answered in the order of the file (another tool uploaded it as it is): unchanged by the digest, the file neither read again nor sorted, at the load or after', async () => {
    for (const [form, raw] of answers(AS_READ)) {
      const sorts = countSorts();
      const { entries, readsSinceLoad } = await load(UNSORTED);
      const compared = compareLiveEntries(raw(), entries, false, WHOLE_TEXT_CHARS, readingOf(entries));
      expect(compared.diff.entryChanges, form).toEqual([]);
      expect(readsSinceLoad(), form).toBe(0);
      expect(sorts(), form).toBe(0);
      vi.restoreAllMocks();
    }
  });

  it('answered sorted by source (as after termsync apply): unchanged, the file read exactly once more and its text not kept', async () => {
    for (const [form, raw] of answers(SORTED)) {
      for (const hashed of [false, true]) {
        const { entries, readsSinceLoad } = await load(UNSORTED);
        const compared = compareLiveEntries(raw(), entries, hashed, WHOLE_TEXT_CHARS, readingOf(entries));
        expect(compared.diff.entryChanges, form).toEqual([]);
        expect(compared.expected).toBe(entries);
        if (hashed) expect(compared.hash).toBe(compareLiveEntries({ tsv: SORTED }, PackedEntries.fromText(UNSORTED, 4, true), true).hash);
        expect(readsSinceLoad(), form).toBe(1);
        // An unchanged dictionary keeps no text: a later use reads it (again through the checks).
        void entries.text;
        expect(readsSinceLoad(), form).toBe(2);
      }
    }
  });

  it('with a real change, in the order of the file or sorted: the change is found from the one read, and the text read is kept for the plan', async () => {
    const changedAsRead = AS_READ.replace('Warenkorb', 'Einkaufswagen');
    const changedSorted = SORTED.replace('Warenkorb', 'Einkaufswagen');
    for (const live of [changedAsRead, changedSorted, `${SORTED}\nzoo\tZoo`, SORTED.split('\n').slice(1).join('\n')]) {
      for (const [form, raw] of answers(live)) {
        const { entries, readsSinceLoad } = await load(UNSORTED);
        const compared = compareLiveEntries(raw(), entries, true, WHOLE_TEXT_CHARS, readingOf(entries));
        const reference = compareLiveEntries(raw(), PackedEntries.fromText(UNSORTED, 4, true), true);
        expect(compared.diff, form).toEqual(reference.diff);
        expect(compared.hash, form).toBe(reference.hash);
        expect(compared.diff.added + compared.diff.changed + compared.diff.removed, form).toBe(1);
        expect(readsSinceLoad(), form).toBe(1);
        // The plan's writes and display use the text read for the comparison, not a third read.
        expect(entries.text).toBe(UNSORTED);
        expect([...entries.sortedList()].length).toBe(4);
        expect(readsSinceLoad(), form).toBe(1);
      }
    }
  });

  it('the client\'s sorted digest (ExpectedLiteral.later) is made from the file\'s bytes read once, not decoded; an edited file fails it (exit 3)', async () => {
    const decode = vi.spyOn(Buffer.prototype, 'toString');
    const { entries, readsSinceLoad } = await load(UNSORTED);
    const once = readingOf(entries);
    const literal = expectedLiteral(entries, once);
    decode.mockClear();
    expect(literal?.later?.()).toBe(literalDigestOfText(SORTED).digest);
    expect(readsSinceLoad()).toBe(1);
    expect(decode.mock.calls.filter(([encoding]) => encoding === 'utf8' || encoding === undefined)).toEqual([]);
    // The answer told by it is unchanged, with no other read (its hash from the same read).
    const compared = compareLiveEntries({ sameLiteral: literalDigestOfText(SORTED).digest }, entries, true, undefined, once);
    expect(compared.hash).toBe(compareLiveEntries({ tsv: SORTED }, PackedEntries.fromText(UNSORTED, 4, true), true).hash);
    expect(readsSinceLoad()).toBe(1);
    decode.mockRestore();

    const { entries: edited } = await load(UNSORTED);
    await writeFile(path.join(dir, 'glossaries', 'e.tsv'), UNSORTED.replace('Zebra', 'Zebu!'));
    const failing = readingOf(edited);
    expect(expectedLiteral(edited, failing)?.later?.()).toBeUndefined();
    let caught: unknown;
    try {
      failing.entries();
    } catch (error) {
      caught = error;
    }
    expect((caught as TermsyncError).code).toBe('entries_file_changed');
  });

  it('edited after the load: an answer sorted by source needs the file, and that is an error (exit 3) naming it; an answer that is the file as checked does not', async () => {
    const edits = [UNSORTED.replace('Zebra', 'Zebu!'), `${UNSORTED}zoo\tZoo\n`, SORTED, UNSORTED.slice(0, -1)];
    for (const edit of edits) {
      const { entries } = await load(UNSORTED);
      await writeFile(path.join(dir, 'glossaries', 'e.tsv'), edit);
      let caught: unknown;
      try {
        compareLiveEntries(new EntriesText(SORTED, where), entries, false, WHOLE_TEXT_CHARS, readingOf(entries));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TermsyncError);
      expect((caught as TermsyncError).code).toBe('entries_file_changed');
      expect(exitCodeOfError(caught)).toBe(ExitCode.invalidInput);
      expect((caught as TermsyncError).message).toContain('glossaries/e.tsv');
      // The answer that is the text as checked is told by its digest: the edit is the next run's.
      const { entries: again } = await load(UNSORTED);
      await writeFile(path.join(dir, 'glossaries', 'e.tsv'), edit);
      expect(compareLiveEntries(new EntriesText(AS_READ, where), again, false, WHOLE_TEXT_CHARS, readingOf(again)).diff.entryChanges).toEqual([]);
    }
  });
});
