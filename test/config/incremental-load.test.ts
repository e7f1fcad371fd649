import { cp, mkdir, mkdtemp, readFile, realpath, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyTimeout, runs } from '../helpers/properties.js';
import type * as LoaderModule from '../../src/config/index.js';
import { loadRepository, type LoadMemo, type LoadOptions, type LoadResult } from '../../src/config/index.js';
import type * as LoadMemoModule from '../../src/config/load-memo.js';
import type * as ParallelLoadModule from '../../src/config/parallel-load.js';
import type { PackedEntries } from '../../src/model/packed-entries.js';

// Incremental reload (config/load-memo.ts): a load given the previous load's memo must give exactly
// what a full load gives, whatever changed in between. The worker thread runs compiled JavaScript,
// so the two-thread loads use the build in dist/ (`npm test` builds first).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const fromDist = async <T>(module: string): Promise<T> => (await import(pathToFileURL(path.join(ROOT, 'dist', 'config', module)).href)) as T;

const CONFIG = 'version: 1\nresources: [glossaries]\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';

type Format = 'tsv' | 'csv';
/** An entries file's content: clean rows, or broken (an error or a warning in it). */
type Content = {
  readonly rows: readonly (readonly [string, string])[];
  readonly fault?: 'invalid-utf8' | 'duplicate' | 'padded';
  /** Language columns (CSV only): `en` and this target on each row; a dictionary of another pair is warned about. */
  readonly columns?: string;
};
interface Dictionary {
  lang: string;
  /** Entries file name, in glossaries/entries/ (without the extension), or undefined for inline entries. */
  file?: string;
  format: Format;
  inline?: readonly (readonly [string, string])[];
}
interface Glossary {
  yaml: string;
  name: string;
  dictionaries: Dictionary[];
  /** Comment lines above the dictionaries: they move every `entries_file` line. */
  pad: number;
  brokenYaml: boolean;
}
interface Model {
  glossaries: Glossary[];
  /** Entries files by name without extension: their content (written in each dictionary's format). */
  entries: Map<string, Content>;
  brandLanguages: readonly string[];
  /** The TBX glossary's `terms:` (preferred and first take another French term of one concept). */
  brandTerms: 'preferred' | 'first';
  /** The workbook glossary's `sheet:` and `header_row:` (its sheets: Terms, About; the language codes are on row 2 of Terms). */
  sheet: string | number | undefined;
  headerRow: number | undefined;
  next: number;
}

const rowsOf = (seed: number, n = 6): [string, string][] => Array.from({ length: n }, (_, i) => [`term ${seed}-${i}`, `Begriff ${seed}-${i}`]);

function entriesBytes(content: Content, format: Format): Buffer {
  const rows = content.rows.map(([s, t]) => [s, t] as [string, string]);
  if (content.fault === 'duplicate' && rows.length > 1) rows[1] = [rows[0]?.[0] ?? 'x', 'again'];
  if (content.fault === 'padded' && rows.length > 0) rows[0] = [` ${rows[0]?.[0] ?? ''} `, rows[0]?.[1] ?? ''];
  const columns = content.columns === undefined ? '' : `,en,${content.columns}`;
  const text = rows.map(([s, t]) => (format === 'csv' ? `"${s}","${t}"${columns}` : `${s}\t${t}`)).join('\n') + '\n';
  const bytes = Buffer.from(text);
  return content.fault === 'invalid-utf8' ? Buffer.concat([bytes, Buffer.from([0x61, 0x09, 0xff, 0x0a])]) : bytes;
}

function glossaryYaml(g: Glossary): string {
  const lines = ['kind: glossary', `name: ${JSON.stringify(g.name)}`, ...Array.from({ length: g.pad }, (_, i) => `# note ${i}`), 'dictionaries:'];
  for (const d of g.dictionaries) {
    lines.push('  - source_lang: en', `    target_lang: ${d.lang}`);
    if (d.file !== undefined) lines.push(`    entries_file: entries/${d.file}.${d.format}`);
    else lines.push('    entries:', ...(d.inline ?? []).map(([s, t]) => `      ${JSON.stringify(s)}: ${JSON.stringify(t)}`));
  }
  return `${lines.join('\n')}\n${g.brokenYaml ? 'dictionaries: [unclosed\n' : ''}`;
}

/** Every file the model holds, by repository-relative path. */
function filesOf(model: Model): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const g of model.glossaries) {
    files.set(`glossaries/${g.yaml}`, Buffer.from(glossaryYaml(g)));
    for (const d of g.dictionaries) {
      const content = d.file === undefined ? undefined : model.entries.get(d.file);
      if (d.file !== undefined && content !== undefined) files.set(`glossaries/entries/${d.file}.${d.format}`, entriesBytes(content, d.format));
    }
  }
  const brand = path.join('glossaries', 'example', 'brand-terminology.yaml');
  files.set(brand.split(path.sep).join('/'), Buffer.from(`kind: glossary\nname: Brand\nentries_file: entries/brand-terminology.tbx\nlanguages: [${model.brandLanguages.join(', ')}]\nterms: ${model.brandTerms}\n`));
  // Options of a glossary-level file come after `entries_file`: changing them moves no position the job records.
  const workbook = ['kind: glossary', 'name: Help centre', 'entries_file: entries/help-centre-terms.xlsx', 'languages: [en, de, fr]', 'pairs: [en-de, en-fr]'];
  if (model.sheet !== undefined) workbook.push(`sheet: ${JSON.stringify(model.sheet)}`);
  if (model.headerRow !== undefined) workbook.push(`header_row: ${model.headerRow}`);
  files.set('glossaries/example/help-centre-terms.yaml', Buffer.from(`${workbook.join('\n')}\n`));
  return files;
}

/** Writes what differs from what was written; `racy`: a rewritten file of the same size keeps its modification time. */
async function sync(dir: string, model: Model, written: Map<string, Buffer>, racy: boolean): Promise<void> {
  const files = filesOf(model);
  for (const [file, bytes] of files) {
    const before = written.get(file);
    if (before !== undefined && before.equals(bytes)) continue;
    const absolute = path.join(dir, file);
    await mkdir(path.dirname(absolute), { recursive: true });
    const old = before === undefined ? undefined : await stat(absolute);
    await writeFile(absolute, bytes);
    if (racy && old !== undefined && old.size === bytes.length) await utimes(absolute, old.atime, old.mtime);
    written.set(file, bytes);
  }
  for (const file of [...written.keys()]) {
    if (files.has(file)) continue;
    await unlink(path.join(dir, file));
    written.delete(file);
  }
}

/** One edit of the repository: picks are taken modulo what exists. */
type Edit =
  | { readonly op: 'term'; readonly pick: number; readonly seed: number }
  | { readonly op: 'racy'; readonly pick: number }
  | { readonly op: 'break'; readonly pick: number; readonly fault: 'invalid-utf8' | 'duplicate' | 'padded' }
  | { readonly op: 'fix'; readonly pick: number }
  | { readonly op: 'pair'; readonly pick: number; readonly lang: string }
  | { readonly op: 'format'; readonly pick: number }
  | { readonly op: 'columns'; readonly pick: number; readonly lang: string }
  | { readonly op: 'share'; readonly pick: number; readonly other: number }
  | { readonly op: 'inline'; readonly pick: number; readonly seed: number }
  | { readonly op: 'add'; readonly seed: number }
  | { readonly op: 'remove'; readonly pick: number }
  | { readonly op: 'rename'; readonly pick: number; readonly other: number }
  | { readonly op: 'move'; readonly pick: number }
  | { readonly op: 'pad'; readonly pick: number; readonly pad: number }
  | { readonly op: 'yaml'; readonly pick: number }
  | { readonly op: 'brand' }
  | { readonly op: 'terms' }
  | { readonly op: 'sheet'; readonly sheet: string | number | undefined }
  | { readonly op: 'header'; readonly row: number | undefined }
  | { readonly op: 'none' };

const pick = fc.nat(1000);
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('term' as const), pick, seed: fc.nat(5) }),
  fc.record({ op: fc.constant('racy' as const), pick }),
  fc.record({ op: fc.constant('break' as const), pick, fault: fc.constantFrom('invalid-utf8' as const, 'duplicate' as const, 'padded' as const) }),
  fc.record({ op: fc.constant('fix' as const), pick }),
  fc.record({ op: fc.constant('pair' as const), pick, lang: fc.constantFrom('de', 'fr', 'nl', 'de') }),
  fc.record({ op: fc.constant('format' as const), pick }),
  fc.record({ op: fc.constant('columns' as const), pick, lang: fc.constantFrom('de', 'fr') }),
  fc.record({ op: fc.constant('share' as const), pick, other: pick }),
  fc.record({ op: fc.constant('inline' as const), pick, seed: fc.nat(5) }),
  fc.record({ op: fc.constant('add' as const), seed: fc.nat(5) }),
  fc.record({ op: fc.constant('remove' as const), pick }),
  fc.record({ op: fc.constant('rename' as const), pick, other: pick }),
  fc.record({ op: fc.constant('move' as const), pick }),
  fc.record({ op: fc.constant('pad' as const), pick, pad: fc.nat(3) }),
  fc.record({ op: fc.constant('yaml' as const), pick }),
  fc.constant({ op: 'brand' as const }),
  // Reading options of an entries file whose bytes stay the same.
  fc.constant({ op: 'terms' as const }),
  fc.record({ op: fc.constant('sheet' as const), sheet: fc.constantFrom('Terms', 1, 2, 'About', undefined) }),
  fc.record({ op: fc.constant('header' as const), row: fc.constantFrom(2, 1, 3, undefined) }),
  fc.constant({ op: 'none' as const }),
);

function newGlossary(model: Model, seed: number): Glossary {
  const id = model.next++;
  // Of an odd seed, the second dictionary is a CSV file with language columns.
  const csv = (lang: string): boolean => lang === 'fr' && seed % 2 === 1;
  const dictionaries: Dictionary[] = ['de', 'fr'].map((lang) => ({ lang, file: `g${id}.en-${lang}`, format: csv(lang) ? 'csv' : 'tsv' }));
  for (const d of dictionaries) model.entries.set(d.file as string, { rows: rowsOf(seed * 100 + id), ...(csv(d.lang) ? { columns: d.lang } : {}) });
  return { yaml: `g${id}.yaml`, name: `Glossary ${id}`, dictionaries, pad: 0, brokenYaml: false };
}

/** Applies an edit to the model; true when it is a racy one (same size, same modification time). */
function apply(model: Model, edit: Edit): boolean {
  const gs = model.glossaries;
  const g = gs.length === 0 || !('pick' in edit) ? undefined : gs[edit.pick % gs.length];
  const d = g === undefined || g.dictionaries.length === 0 || !('pick' in edit) ? undefined : g.dictionaries[Math.floor(edit.pick / gs.length) % g.dictionaries.length];
  const content = d?.file === undefined ? undefined : model.entries.get(d.file);
  switch (edit.op) {
    case 'term':
      if (d?.file !== undefined && content !== undefined) model.entries.set(d.file, { ...content, rows: content.rows.map((r, i) => (i === edit.seed % content.rows.length ? [r[0], `${r[1]} ${edit.seed}`] : r)) });
      return false;
    case 'racy':
      // One character for another: the same size, and the modification time is put back.
      if (d?.file !== undefined && content !== undefined) model.entries.set(d.file, { ...content, rows: content.rows.map((r, i) => (i === 0 ? [r[0], r[1].endsWith('x') ? `${r[1].slice(0, -1)}y` : `${r[1].slice(0, -1)}x`] : r)) });
      return true;
    case 'break':
      if (d?.file !== undefined && content !== undefined) model.entries.set(d.file, { ...content, fault: edit.fault });
      return false;
    case 'fix':
      if (d?.file !== undefined && content !== undefined) model.entries.set(d.file, { rows: content.rows, ...(content.columns === undefined ? {} : { columns: content.columns }) });
      if (g !== undefined) g.brokenYaml = false;
      return false;
    case 'pair':
      // The same entries file read for another language pair (possibly one the glossary has already).
      if (d !== undefined) d.lang = edit.lang;
      return false;
    case 'columns':
      if (d?.file !== undefined && content !== undefined) {
        const { columns, ...rest } = content;
        model.entries.set(d.file, columns === undefined ? { ...rest, columns: edit.lang } : rest);
      }
      return false;
    case 'format':
      if (d?.file !== undefined) d.format = d.format === 'tsv' ? 'csv' : 'tsv';
      return false;
    case 'share': {
      // Two dictionaries read the same file.
      const other = gs[edit.other % gs.length]?.dictionaries.find((x) => x.file !== undefined);
      if (d !== undefined && other?.file !== undefined) Object.assign(d, { file: other.file, format: other.format, inline: undefined });
      return false;
    }
    case 'inline':
      if (d !== undefined) Object.assign(d, { file: undefined, inline: rowsOf(edit.seed, 3) });
      return false;
    case 'add':
      gs.push(newGlossary(model, edit.seed));
      return false;
    case 'remove':
      if (g !== undefined) gs.splice(gs.indexOf(g), 1);
      return false;
    case 'rename': {
      // Sometimes the name of another glossary: a duplicate name across files.
      const other = gs[edit.other % gs.length];
      if (g !== undefined) g.name = other !== undefined && other !== g && edit.other % 2 === 0 ? other.name : `${g.name}+`;
      return false;
    }
    case 'move':
      if (g !== undefined) g.yaml = `moved-${g.yaml}`;
      return false;
    case 'pad':
      if (g !== undefined) g.pad = edit.pad;
      return false;
    case 'yaml':
      if (g !== undefined) g.brokenYaml = !g.brokenYaml;
      return false;
    case 'brand':
      model.brandLanguages = model.brandLanguages.length === 4 ? ['en', 'ja', 'fr'] : ['en', 'de', 'fr', 'ja'];
      return false;
    case 'terms':
      model.brandTerms = model.brandTerms === 'preferred' ? 'first' : 'preferred';
      return false;
    case 'sheet':
      model.sheet = edit.sheet;
      return false;
    case 'header':
      model.headerRow = edit.row;
      return false;
    case 'none':
      return false;
  }
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function newRepository(glossaries = 4): Promise<{ dir: string; model: Model; written: Map<string, Buffer> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-incremental-'));
  dirs.push(dir);
  await writeFile(path.join(dir, 'termsync.yaml'), CONFIG);
  // The example's multilingual files (TBX, workbook), style rules and CSV with language columns: their bytes never change; the TBX and workbook glossaries' languages and reading options do.
  await cp(path.join(ROOT, 'glossaries'), path.join(dir, 'glossaries', 'example'), { recursive: true });
  await rm(path.join(dir, 'glossaries', 'example', 'brand-terminology.yaml'));
  await rm(path.join(dir, 'glossaries', 'example', 'help-centre-terms.yaml'));
  const model: Model = { glossaries: [], entries: new Map(), brandLanguages: ['en', 'de', 'fr', 'ja'], brandTerms: 'preferred', sheet: 'Terms', headerRow: 2, next: 0 };
  for (let i = 0; i < glossaries; i++) model.glossaries.push(newGlossary(model, i));
  const written = new Map<string, Buffer>();
  await sync(dir, model, written, false);
  return { dir, model, written };
}

const withoutMemo = ({ memo: _, ...rest }: LoadResult): LoadResult => rest;

/**
 * What the worker thread answered in a two-thread load, and a hold on the main thread until it has
 * answered a batch of entries files: the main thread takes back every batch the worker has not
 * answered when it runs out of work, and in a repository this small it always does before the worker
 * has started. Files answered unchanged are counted through FileReuse, whose results of a batch are
 * taken on the main thread just before the batch is reported (`onBatch`, same turn).
 */
function workerProbe(FileReuse: typeof LoadMemoModule.FileReuse): {
  hooks: () => { options: Pick<LoadOptions, 'yieldToEventLoop' | 'onBatch'>; answered: { entries: number; unchanged: number } };
  restore: () => void;
} {
  let unchanged = 0;
  const proto = FileReuse.prototype as unknown as Record<'resource' | 'entriesOutcome', (this: unknown, ...args: unknown[]) => unknown>;
  const originals = { resource: proto.resource, entriesOutcome: proto.entriesOutcome };
  proto.resource = function (this: unknown, ...args: unknown[]) {
    if ((args[0] as { unchanged?: boolean }).unchanged === true) unchanged++;
    return originals.resource.apply(this, args);
  };
  proto.entriesOutcome = function (this: unknown, ...args: unknown[]) {
    if ((args[1] as { unchanged?: boolean }).unchanged === true) unchanged++;
    return originals.entriesOutcome.apply(this, args);
  };
  return {
    hooks: () => {
      const answered = { entries: 0, unchanged: 0 };
      // A bound, not a timing: a worker that never answers fails the assertion below instead of hanging.
      const deadline = Date.now() + 20_000;
      return {
        answered,
        options: {
          onBatch: (thread, kind) => {
            if (thread === 'worker') {
              if (kind === 'entries') answered.entries++;
              answered.unchanged += unchanged;
            }
            unchanged = 0;
          },
          yieldToEventLoop: async () => {
            while (answered.entries === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
          },
        },
      };
    },
    restore: () => Object.assign(proto, originals),
  };
}

describe.each([
  ['1', false],
  ['2', true],
])('incremental load, TERMSYNC_LOAD_THREADS=%s', (threads, compiled) => {
  const loader = async (): Promise<typeof LoaderModule> => (compiled ? fromDist<typeof LoaderModule>('index.js') : { ...(await import('../../src/config/index.js')) });
  const env = { TERMSYNC_LOAD_THREADS: threads };
  // What the incremental loads are compared with: one thread (with two, the worker's results must be those of the main thread alone).
  const single = { TERMSYNC_LOAD_THREADS: '1' };

  it('gives after any sequence of edits exactly what a full load gives', async () => {
    const { loadRepository: load } = await loader();
    // Two threads: every incremental load waits for the worker, which needs two batches of resource files
    // at least (one it is handed and keeps while the main thread does the other, 10 files a batch): 20
    // resource files, of which four edits remove at most four.
    const probe = compiled ? workerProbe((await fromDist<typeof LoadMemoModule>('load-memo.js')).FileReuse) : undefined;
    try {
      await fc.assert(
        // Fewer loads with two threads: each waits for a worker to start (a few tenths of a second).
        fc.asyncProperty(fc.array(editArb, { minLength: 1, maxLength: compiled ? 4 : 10 }), async (edits) => {
          const { dir, model, written } = await newRepository(compiled ? 12 : 4);
          let memo: LoadMemo | undefined = (await load({ dir, env: single, remember: true })).memo;
          for (const edit of edits) {
            const racy = apply(model, edit);
            await sync(dir, model, written, racy);
            const worker = probe?.hooks();
            const incremental = await load({ dir, env, ...(memo === undefined ? { remember: true } : { previous: memo }), ...worker?.options });
            const full = await load({ dir, env: single });
            expect(withoutMemo(incremental)).toEqual(full);
            expect(isDeepStrictEqual(withoutMemo(incremental), full)).toBe(true);
            // Something is reused at all: the example's style rules, at least, never change.
            if (edit.op === 'none') expect(incremental.memo?.reused).toBeGreaterThan(0);
            if (worker !== undefined) {
              // It answered entries files, and files it did not parse again: its first batch (the worker takes
              // the resource files in order) holds the example's style rules, whose bytes never change.
              expect(worker.answered.entries).toBeGreaterThan(0);
              expect(worker.answered.unchanged).toBeGreaterThan(0);
            }
            memo = incremental.memo;
          }
          await rm(dir, { recursive: true, force: true });
        }),
        { numRuns: runs(compiled ? 4 : 25) },
      );
    } finally {
      probe?.restore();
    }
  }, propertyTimeout(120_000));
});

describe('incremental load: what is reused', () => {
  it('reads again only the file that changed, and nothing after no change', async () => {
    const { dir } = await newRepository();
    const first = await loadRepository({ dir, remember: true });
    const files = first.memo?.read ?? 0;
    expect(first.memo?.reused).toBe(0);
    expect(files).toBeGreaterThan(10);
    const same = await loadRepository({ dir, previous: first.memo as LoadMemo });
    expect([same.memo?.reused, same.memo?.read]).toEqual([files, 0]);
    await writeFile(path.join(dir, 'glossaries', 'entries', 'g0.en-fr.tsv'), 'one\teins\n');
    const edited = await loadRepository({ dir, previous: same.memo as LoadMemo });
    expect([edited.memo?.reused, edited.memo?.read]).toEqual([files - 1, 1]);
    expect(edited.desired?.glossaries.find((g) => g.name === 'Glossary 0')?.dictionaries[1]?.entries.get('one')).toBe('eins');
  });

  it('takes the files vouched unchanged from the memo without reading them, and reads every other', async () => {
    const { dir } = await newRepository();
    const first = await loadRepository({ dir, remember: true });
    const files = first.memo?.read ?? 0;
    const de = 'glossaries/entries/g0.en-de.tsv';
    const fr = 'glossaries/entries/g0.en-fr.tsv';
    const dictionary = (result: LoadResult, i: number): PackedEntries | undefined => result.desired?.glossaries.find((g) => g.name === 'Glossary 0')?.dictionaries[i]?.entries as PackedEntries | undefined;
    // Both change; the caller vouches for every file but the French one (as a watcher that saw only it change would).
    await writeFile(path.join(dir, de), 'one\teins\n');
    await writeFile(path.join(dir, fr), 'two\tdeux\n');
    const vouched = await loadRepository({ dir, previous: first.memo as LoadMemo, vouched: (file) => file !== fr });
    expect([vouched.memo?.reused, vouched.memo?.read, vouched.memo?.unread]).toEqual([files - 1, 1, files - 1]);
    expect(dictionary(vouched, 1)?.get('two')).toBe('deux');
    // The German file was not read: its entries are those of the first load.
    expect(dictionary(vouched, 0)?.get('one')).toBeUndefined();
    expect(dictionary(vouched, 0)?.size).toBe(dictionary(first, 0)?.size);
    // Without vouching, the next load reads and digests every file again, and finds the German change.
    const full = await loadRepository({ dir, previous: vouched.memo as LoadMemo });
    expect([full.memo?.read, full.memo?.unread]).toEqual([1, 0]);
    expect(dictionary(full, 0)?.get('one')).toBe('eins');
    // Vouching needs a memo to take the results from: a first load reads everything.
    expect((await loadRepository({ dir, remember: true, vouched: () => true })).memo?.read).toBe(files);
  });

  it('counts an entries file once per dictionary that names it, and a missing one as read', async () => {
    const { dir, model, written } = await newRepository();
    const first = await loadRepository({ dir, remember: true });
    const jobs = first.memo?.read ?? 0;
    // Glossary 1's German dictionary now reads Glossary 0's file too (its own file is gone); Glossary 2's names a file that is not there.
    const [g0, g1, g2] = model.glossaries;
    Object.assign(g1?.dictionaries[0] ?? {}, { file: g0?.dictionaries[0]?.file, format: g0?.dictionaries[0]?.format });
    await sync(dir, model, written, false);
    await unlink(path.join(dir, 'glossaries', 'entries', `${g2?.dictionaries[0]?.file ?? ''}.tsv`));
    const again = await loadRepository({ dir, previous: first.memo as LoadMemo });
    expect(again.diagnostics.map((d) => [d.file, d.code])).toEqual([['glossaries/g2.yaml', expect.stringMatching(/not-found|missing/)]]);
    // Two files fewer, the same count: the shared file counts for each dictionary (reused for Glossary 0, read
    // for Glossary 1: another job), the missing one as read, and Glossary 1's edited resource file as read.
    expect(again.files?.length).toBe((first.files?.length ?? 0) - 2);
    expect([again.memo?.reused, again.memo?.read]).toEqual([jobs - 3, 3]);
  });

  it('sees an edit of the same size within the same second', async () => {
    const { dir } = await newRepository();
    const file = path.join(dir, 'glossaries', 'entries', 'g0.en-de.tsv');
    const first = await loadRepository({ dir, remember: true });
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('Begriff', 'Begrifx'));
    await utimes(file, before.atime, before.mtime);
    const after = await stat(file);
    expect([after.size, Math.floor(after.mtimeMs / 1000)]).toEqual([before.size, Math.floor(before.mtimeMs / 1000)]);
    const again = await loadRepository({ dir, previous: first.memo as LoadMemo });
    expect(again.memo?.read).toBe(1);
    expect([...(again.desired?.glossaries.find((g) => g.name === 'Glossary 0')?.dictionaries[0]?.entries.values() ?? [])][0]).toMatch(/^Begrifx/);
  });

  it('reuses nothing of another root, or of a load with deferred entries', async () => {
    const { dir } = await newRepository();
    const first = await loadRepository({ dir, remember: true });
    const copy = await mkdtemp(path.join(tmpdir(), 'termsync-incremental-copy-'));
    dirs.push(copy);
    await cp(dir, copy, { recursive: true });
    expect((await loadRepository({ dir: copy, previous: first.memo as LoadMemo })).memo?.reused).toBe(0);
    const deferred = await loadRepository({ dir, previous: first.memo as LoadMemo, deferEntries: true });
    expect(deferred.memo?.reused).toBe(0);
    // Deferred entries reused are bound to the new load, and read again from the file when needed.
    const again = await loadRepository({ dir, previous: deferred.memo as LoadMemo, deferEntries: true });
    expect(again.memo?.read).toBe(0);
    const dictionary = again.desired?.glossaries.find((g) => g.name === 'Glossary 2')?.dictionaries[0]?.entries as PackedEntries | undefined;
    expect(dictionary?.deferredText).toBeDefined();
    expect(dictionary?.readAgain()?.text).toBe((await readFile(path.join(dir, 'glossaries', 'entries', 'g2.en-de.tsv'), 'utf8')));
  });

  it('has the worker thread answer unchanged files without parsing them, with the result of one thread', async () => {
    const { loadResources } = await fromDist<typeof ParallelLoadModule>('parallel-load.js');
    const { FileReuse } = await fromDist<typeof LoadMemoModule>('load-memo.js');
    const { dir, model, written } = await newRepository();
    for (let i = 0; i < 40; i++) model.glossaries.push(newGlossary(model, i));
    await sync(dir, model, written, false);
    const repo = { root: dir, rootReal: await realpath(dir) };
    const files = [...written.keys()].filter((f) => f.endsWith('.yaml')).sort();
    const load = async (previous: LoadMemo | undefined, parallel: boolean): Promise<{ outcomes: unknown; memo: LoadMemo; worker: number }> => {
      const reuse = new FileReuse(repo, false, previous);
      const worker = { resources: 0, entries: 0 };
      const deadline = Date.now() + 15_000;
      // The main thread waits at each turn until the worker has read a batch of entries files (it parses resources first).
      const waitForWorker = async (): Promise<void> => {
        while (parallel && worker.entries === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
      };
      const outcomes = await loadResources(repo, files, new Map(), { parallel, reuse, yieldToEventLoop: waitForWorker, onBatch: (thread, kind, n) => (worker[kind] += thread === 'worker' ? n : 0) });
      return { outcomes, memo: reuse.finish(), worker: worker.resources + worker.entries };
    };
    const first = await load(undefined, false);
    await writeFile(path.join(dir, 'glossaries', 'entries', 'g30.en-de.tsv'), 'one\teins\n');
    const two = await load(first.memo, true);
    const one = await load(undefined, false);
    expect(two.worker).toBeGreaterThan(0);
    expect(two.outcomes).toEqual(one.outcomes);
    expect(isDeepStrictEqual(two.outcomes, one.outcomes)).toBe(true);
    expect(two.memo.read).toBe(1);
    expect(two.memo.reused).toBe(one.memo.read - 1);
  }, 30_000);
});
