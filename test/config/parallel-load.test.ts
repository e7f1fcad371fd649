import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runs } from '../helpers/properties.js';
import type * as LoaderModule from '../../src/config/index.js';
import { parseEntries } from '../../src/config/index.js';
import type * as LoadResourcesModule from '../../src/config/load-resources.js';
import type * as ParallelLoadModule from '../../src/config/parallel-load.js';
import type * as ReadEntriesModule from '../../src/config/read-entries.js';
import type { EntriesReply } from '../../src/config/parallel-load.js';
import { joinTexts, packBatch, unpackBatch } from '../../src/config/entries-wire.js';
import type * as EntriesWireModule from '../../src/config/entries-wire.js';
import { entriesOutcome } from '../../src/config/read-entries.js';
import { decodeGroups, decodeUtf8Files, MEMO_GROUP_BYTES } from '../../src/config/decode-batch.js';
import { canonicalPhrase, findControlCharacter } from '../../src/lib/canonical.js';

// The worker thread runs compiled JavaScript, so the parallel path is tested on the build in dist/
// (`npm test` builds first). Its sources are the ones imported above.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
type ParallelLoad = typeof ParallelLoadModule;
type Loader = typeof LoaderModule;
type LoadResources = typeof LoadResourcesModule;
const fromDist = async <T>(module: string): Promise<T> => (await import(pathToFileURL(path.join(ROOT, 'dist', 'config', module)).href)) as T;

const CONFIG = 'version: 1\nresources: [glossaries]\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';
const GLOSSARIES = 70;

let repo: string;
beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'termsync-parallel-'));
  await writeFile(path.join(repo, 'termsync.yaml'), CONFIG);
  await mkdir(path.join(repo, 'glossaries', 'entries'), { recursive: true });
  // The example repository's resources too: style rules, inline entries, CSV with language columns.
  await cp(path.join(ROOT, 'glossaries'), path.join(repo, 'glossaries', 'example'), { recursive: true });
  for (let g = 0; g < GLOSSARIES; g++) {
    const dictionaries = ['de', 'fr']
      .map((lang) => `  - source_lang: en\n    target_lang: ${lang}\n    entries_file: entries/g${g}.en-${lang}.${g % 10 === 3 ? 'csv' : 'tsv'}\n`)
      .join('');
    await writeFile(path.join(repo, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: Catalogue ${g}\ndictionaries:\n${dictionaries}`);
    for (const lang of ['de', 'fr']) {
      const rows = Array.from({ length: 300 }, (_, i) => [`term ${g}-${i}`, `Begriff ${lang} ${i} Größe`]);
      // Every kind of file the packing must carry: clean, needing canonicalisation, with errors, CSV.
      if (g % 10 === 1) rows[5] = ['  padded source\u00a0', ' e\u0301t\u00e9 '];
      if (g % 10 === 2) rows[7] = [`term ${g}-3`, 'duplicate'];
      if (g % 10 === 4) rows[9] = ['', 'no source'];
      const name = `g${g}.en-${lang}.${g % 10 === 3 ? 'csv' : 'tsv'}`;
      let text = g % 10 === 3 ? rows.map(([s, t]) => `"${s}","${t}"`).join('\n') : rows.map((r) => r.join('\t')).join(g % 10 === 5 ? '\r\n' : '\n');
      if (g % 10 === 6) text = `\uFEFF${text}\n\n`;
      if (g === 17 && lang === 'fr') continue; // a missing file
      await writeFile(path.join(repo, 'glossaries', 'entries', name), g === 27 && lang === 'de' ? Buffer.from([0x61, 0x09, 0xff, 0x0a]) : text);
    }
  }
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('loading with a worker thread (compiled loader)', () => {
  it('gives exactly the result of one thread, for clean and faulty files alike', async () => {
    const { loadRepository } = await fromDist<Loader>('index.js');
    const one = await loadRepository({ dir: repo, parallel: false });
    const two = await loadRepository({ dir: repo, parallel: true });
    expect(two).toEqual(one);
    expect(isDeepStrictEqual(two, one)).toBe(true); // prototypes too (configured rules have none)
    const codes = new Set(one.diagnostics.map((d) => d.code));
    for (const code of ['entries/whitespace-trimmed', 'entries/duplicate-source', 'entries/empty-source', 'entries/line-ending', 'entries/bom', 'entries/blank-line', 'entries-file/missing', 'entries-file/invalid-utf8']) {
      expect(codes).toContain(code);
    }
    expect(two.desired?.styleRules.length).toBe(2);
    expect(two.desired?.glossaries.find((g) => g.name === 'Northwind Storefront UI')?.dictionaries[2]?.entries.size).toBeGreaterThan(0);
    const clean = two.desired?.glossaries.find((g) => g.name === 'Catalogue 0');
    expect(clean?.dictionaries[1]?.entries.get('term 0-299')).toBe('Begriff fr 299 Größe');
    expect(clean?.dictionaries[1]?.entries.size).toBe(300);
  });

  it('has the worker parse resources and read entries files, and every batch done exactly once', async () => {
    const { loadResources } = await fromDist<ParallelLoad>('parallel-load.js');
    // The example's resources come first: the worker, handed the first batches, parses them.
    const example = ['brand-terminology', 'checkout-payments', 'help-centre-terms', 'product-catalogue', 'storefront-ui', 'support-macros-legacy'].map((name) => `glossaries/example/${name}.yaml`);
    const styles = ['glossaries/example/style-rules/help-centre-en.yaml', 'glossaries/example/style-rules/marketing-de.yaml'];
    const files = [...example, ...styles, ...Array.from({ length: GLOSSARIES }, (_, g) => `glossaries/g${g}.yaml`)];
    const where = { root: repo, rootReal: await realpath(repo) };
    const done = { main: { resources: 0, entries: 0 }, worker: { resources: 0, entries: 0 } };
    const deadline = Date.now() + 15_000;
    // The main thread waits at each turn until the worker has read a batch of entries files (it
    // parses resources first): the test does not depend on how fast the worker thread starts.
    const waitForWorker = async (): Promise<void> => {
      while (done.worker.entries === 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    };
    const two = await loadResources(where, files, new Map(), { parallel: true, yieldToEventLoop: waitForWorker, onBatch: (thread, kind, n) => (done[thread][kind] += n) });
    const one = await loadResources(where, files, new Map(), { parallel: false, yieldToEventLoop: async () => {} });
    expect(done.worker.resources).toBeGreaterThan(0);
    expect(done.worker.entries).toBeGreaterThan(0);
    expect(done.main.resources + done.worker.resources).toBe(files.length);
    expect(done.main.entries + done.worker.entries).toBe(one.reduce((n, o) => n + o.entries.length, 0));
    expect(one.reduce((n, o) => n + o.entries.length, 0)).toBeGreaterThan(2 * GLOSSARIES);
    expect(two).toEqual(one);
    expect(isDeepStrictEqual(two, one)).toBe(true);
    const rules = two.find((o) => o.resource?.kind === 'style_rules')?.resource;
    expect(rules?.kind === 'style_rules' && Object.getPrototypeOf(rules.configuredRules)).toBe(null);
  });

  // The worker of the compiled sources, and the one bin/termsync.js starts (the bundle, scripts/bundle.js).
  it.each([['dist/config'], ['dist/bundle']])('reads TBX and workbook files in the worker (%s) exactly as on the main thread, their dictionaries packed', async (folder) => {
    const { loadResourceFile } = await fromDist<LoadResources>('load-resources.js');
    const { readEntriesBatch } = await fromDist<typeof ReadEntriesModule>('read-entries.js');
    const { unpackBatch: unpack } = await fromDist<typeof EntriesWireModule>('entries-wire.js');
    const where = { root: repo, rootReal: await realpath(repo) };
    const jobs = ['brand-terminology', 'help-centre-terms'].flatMap((name) => loadResourceFile(where, `glossaries/example/${name}.yaml`).jobs);
    expect(jobs.map((job) => [job.declared, job.glossaryLevel, job.pairs.length])).toEqual([
      ['entries/brand-terminology.tbx', true, 3],
      ['entries/help-centre-terms.xlsx', true, 2],
    ]);
    const worker = new Worker(path.join(ROOT, folder, 'load-worker.js'), { workerData: where });
    try {
      const reply = await new Promise<EntriesReply>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage({ kind: 'entries', id: 7, jobs });
      });
      expect(reply.id).toBe(7);
      const main = await readEntriesBatch(jobs);
      expect(unpack(reply)).toEqual(main);
      expect(main.map((o) => o.dictionaries?.map((d) => d.size))).toEqual([[4, 4, 4], [6, 6]]);
    } finally {
      await worker.terminate();
    }
  });

  it('reads everything on the main thread when the worker cannot start', async () => {
    const { loadResources } = await fromDist<ParallelLoad>('parallel-load.js');
    const broken = path.join(repo, 'broken-worker.mjs');
    await writeFile(broken, 'throw new Error("this worker does not start");\n');
    const files = Array.from({ length: GLOSSARIES }, (_, g) => `glossaries/g${g}.yaml`);
    const where = { root: repo, rootReal: await realpath(repo) };
    const read = { main: 0, worker: 0 };
    const two = await loadResources(where, files, new Map(), { parallel: true, workerFile: broken, yieldToEventLoop: () => new Promise((resolve) => setImmediate(resolve)), onBatch: (thread, kind, n) => (read[thread] += kind === 'entries' ? n : 0) });
    const one = await loadResources(where, files, new Map(), { parallel: false, yieldToEventLoop: async () => {} });
    expect(read).toEqual({ main: 2 * GLOSSARIES, worker: 0 });
    expect(two).toEqual(one);
  });

  it('starts the worker whatever flags the process was started with (`--input-type=module -e`)', () => {
    const script = `const { loadResources } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'config', 'parallel-load.js')).href)});
const read = { main: 0, worker: 0 };
const files = Array.from({ length: ${GLOSSARIES} }, (_, g) => 'glossaries/g' + g + '.yaml');
const deadline = Date.now() + 15000;
const wait = async () => { while (read.worker === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r)); };
await loadResources({ root: ${JSON.stringify(repo)}, rootReal: ${JSON.stringify(repo)} }, files, new Map(), { parallel: true, yieldToEventLoop: wait, onBatch: (t, kind, n) => (read[t] += kind === 'entries' ? n : 0) });
console.log(JSON.stringify(read));`;
    const read = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { main: number; worker: number };
    expect(read.worker).toBeGreaterThan(0);
    expect(read.main + read.worker).toBe(2 * GLOSSARIES);
  });

  it('starts no worker for a small repository', async () => {
    const { loadResources } = await fromDist<ParallelLoad>('parallel-load.js');
    const { loadResourceFile } = await fromDist<LoadResources>('load-resources.js');
    const where = { root: repo, rootReal: await realpath(repo) };
    const files = ['glossaries/g0.yaml', 'glossaries/g1.yaml'];
    expect(loadResourceFile(where, files[0] as string).jobs).toHaveLength(2);
    const read = { main: 0, worker: 0 };
    await loadResources(where, files, new Map(), { yieldToEventLoop: async () => {}, onBatch: (thread, kind, n) => (read[thread] += kind === 'entries' ? n : 0) });
    expect(read).toEqual({ main: 4, worker: 0 });
  });

  it('starts no worker, however large the work, when other processes keep the CPUs busy', async () => {
    const { loadResources } = await fromDist<ParallelLoad>('parallel-load.js');
    const where = { root: repo, rootReal: await realpath(repo) };
    const files = Array.from({ length: GLOSSARIES }, (_, g) => `glossaries/g${g}.yaml`);
    const read = { main: 0, worker: 0 };
    // Every batch looks slow (a busy machine), but no CPU is free besides the main thread's.
    let clock = 0;
    let asked = 0;
    await loadResources(where, files, new Map(), {
      clock: () => (clock += 10_000),
      machine: () => (asked++, { cpus: 2, load: 1.2 }),
      yieldToEventLoop: async () => {},
      onBatch: (thread, kind, n) => (read[thread] += kind === 'entries' ? n : 0),
    });
    // Asked at the start and again at each decision, which the slow batches made worth considering.
    expect(asked).toBeGreaterThan(1);
    expect(read.worker).toBe(0);
    expect(read.main).toBe(2 * GLOSSARIES);
  });

  it('starts no worker when the CPUs are busy now, whatever the load average says; starts it when they are idle now', async () => {
    const { loadResources } = await fromDist<ParallelLoad>('parallel-load.js');
    const where = { root: repo, rootReal: await realpath(repo) };
    const files = Array.from({ length: GLOSSARIES }, (_, g) => `glossaries/g${g}.yaml`);
    let clock = 0;
    const load = async (free: number, averageLoad: number): Promise<{ main: number; worker: number }> => {
      const read = { main: 0, worker: 0 };
      // Every batch looks slow, so the work left is always worth a worker if a CPU is free. Once the
      // decision is due (after a batch of each kind), the main thread lets a started worker deliver.
      let yields = 0;
      const deadline = Date.now() + 30_000;
      const waitForWorker = async (): Promise<void> => {
        if (++yields < 3 || free < 1) return new Promise((resolve) => setImmediate(resolve));
        while (read.worker === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      await loadResources(where, files, new Map(), {
        clock: () => (clock += 10_000),
        machine: () => ({ cpus: 2, load: averageLoad, free }),
        yieldToEventLoop: waitForWorker,
        onBatch: (thread, kind, n) => (read[thread] += kind === 'entries' ? n : 0),
      });
      return read;
    };
    const busy = await load(0.2, 0);
    expect(busy).toEqual({ main: 2 * GLOSSARIES, worker: 0 });
    const idle = await load(1.2, 6);
    expect(idle.main + idle.worker).toBe(2 * GLOSSARIES);
    expect(idle.worker).toBeGreaterThan(0);
  });
});

describe('worthAWorker', () => {
  it('wants enough work and a whole CPU free besides the main thread', async () => {
    const { worthAWorker, PARALLEL_MIN_WORK_MS } = await fromDist<ParallelLoad>('parallel-load.js');
    const much = PARALLEL_MIN_WORK_MS * 3;
    expect(worthAWorker(much, 2, 0.2)).toBe(true);
    expect(worthAWorker(much, 2, 0.6)).toBe(false);
    expect(worthAWorker(much, 2, 7.5)).toBe(false);
    expect(worthAWorker(much, 8, 5)).toBe(true);
    expect(worthAWorker(PARALLEL_MIN_WORK_MS / 2, 2, 0)).toBe(false);
    // No load average (Windows reports 0): the CPUs decide.
    expect(worthAWorker(much, 1, 0)).toBe(false);
    // Idle CPUs measured now decide over the load average, which lags by a minute.
    expect(worthAWorker(much, 2, 7.5, 1)).toBe(true);
    expect(worthAWorker(much, 2, 0.1, 0.3)).toBe(false);
    expect(worthAWorker(PARALLEL_MIN_WORK_MS / 2, 2, 0, 2)).toBe(false);
    expect(worthAWorker(much, 1, 0, 1)).toBe(false);
  });
});

// Text rich in what the TSV reader must notice: separators, spaces of all kinds, CR, controls,
// combining marks, duplicates (a small alphabet makes twins likely).
const piece = fc.constantFrom('a', 'b', 'A', ' ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000', 'e\u0301', 'é', 'ß', '\u0000', '\u0085', '日本', '😀', '"', ',', '\uFEFF');
// Now and then a run about the limit of 1024 UTF-8 bytes for a phrase (under, at, over it).
const long = fc.constantFrom('a'.repeat(1024), 'a'.repeat(1025), 'é'.repeat(512), 'é'.repeat(513), '日'.repeat(341), '日'.repeat(342), '😀'.repeat(256), '😀'.repeat(257));
const text = fc.array(fc.oneof({ weight: 10, arbitrary: piece }, { weight: 10, arbitrary: fc.string({ maxLength: 4 }) }, { weight: 1, arbitrary: long }), { maxLength: 60 }).map((parts) => parts.join(''));
const pair = { sourceLang: 'en', targetLang: 'de' };
const at = { file: 'g.yaml', line: 4, column: 19 };

// The entries a TSV text holds, by the rules of the contract, written as plainly as possible.
function referenceTsvEntries(input: string): Map<string, string> {
  const entries = new Map<string, string>();
  const lines = input.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const fields = line.split('\t');
    if (fields.length !== 2) continue;
    const [source, target] = fields.map(canonicalPhrase) as [string, string];
    const fits = (p: string): boolean => p !== '' && findControlCharacter(p) === -1 && Buffer.byteLength(p) <= 1024;
    if (!fits(source) || !fits(target) || entries.has(source)) continue;
    entries.set(source, target);
  }
  return entries;
}

describe('entries across threads (properties)', () => {
  it('TSV: the entries read equal those of a plain reference reader, in order', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect([...parseEntries(t, 'tsv', pair, 'x.tsv').entries]).toEqual([...referenceTsvEntries(t)]);
      }),
      { numRuns: runs(1500) },
    );
  });

  it('packing a batch and unpacking it gives back the same entries, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.constantFrom('tsv' as const, 'csv' as const)), { maxLength: 6 }), (files) => {
        const outcomes = files.map(([t, format]) => entriesOutcome(t, format, pair, `x.${format}`, at));
        const back = unpackBatch(packBatch(outcomes));
        expect(back.map((o) => [...(o.entries ?? [])])).toEqual(outcomes.map((o) => [...(o.entries ?? [])]));
        expect(back.map((o) => o.diagnostics)).toEqual(outcomes.map((o) => o.diagnostics));
      }),
      { numRuns: runs(1000) },
    );
  });

  it('joining the texts of a packed batch and unpacking it gives back the same entries, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.constantFrom('tsv' as const, 'csv' as const)), { maxLength: 6 }), (files) => {
        const outcomes = files.map(([t, format]) => entriesOutcome(t, format, pair, `x.${format}`, at));
        const back = unpackBatch(structuredClone(joinTexts(packBatch(outcomes))));
        expect(back.map((o) => [...(o.entries ?? [])])).toEqual(outcomes.map((o) => [...(o.entries ?? [])]));
        expect(back.map((o) => o.entries?.text)).toEqual(outcomes.map((o) => o.entries?.text));
        expect(back.map((o) => o.diagnostics)).toEqual(outcomes.map((o) => o.diagnostics));
      }),
      { numRuns: runs(1000) },
    );
  });

  it("a batch's texts cross threads joined in a few strings larger than V8's largest regular object (128 KiB)", () => {
    // 20 dictionaries of 1,000 entries (about 55,000 characters each), as a batch of the worker's.
    const outcomes = Array.from({ length: 20 }, (_, g) => {
      const t = Array.from({ length: 1000 }, (__, i) => `product term ${g}-${i}\tProduktbegriff ${g}-${i} Größe\n`).join('');
      return entriesOutcome(t, 'tsv', pair, `g${g}.tsv`, at);
    });
    const wire = joinTexts(packBatch(outcomes));
    expect(wire.outcomes.every((o) => o.packed !== undefined && o.packed.text === undefined)).toBe(true);
    const joined = wire.joined ?? [];
    expect(joined.length).toBeGreaterThan(1);
    expect(joined.length).toBeLessThan(10);
    for (const part of joined.slice(0, -1)) expect(part.length).toBeGreaterThan(128 * 1024);
    expect(unpackBatch(structuredClone(wire)).map((o) => o.entries?.text)).toEqual(outcomes.map((o) => o.entries?.text));
  });

  it('the entries of a file travel as their packed text: exactly their lines, in order', () => {
    fc.assert(
      fc.property(text, (t) => {
        const outcome = entriesOutcome(t, 'tsv', pair, 'x.tsv', at);
        const lines = [...(outcome.entries ?? [])].map(([s, v]) => `${s}\t${v}\n`);
        expect(outcome.entries?.text).toBe(lines.join(''));
        expect(outcome.entries?.size).toBe(lines.length);
      }),
      { numRuns: runs(1500) },
    );
  });

  it('decoding files together gives the strings of decoding each alone', () => {
    const file = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), text).map((s) => Buffer.from(s, 'utf8'));
    fc.assert(
      fc.property(fc.array(file, { maxLength: 12 }), (files) => {
        expect(decodeUtf8Files(files)).toEqual(files.map((b) => b.toString('utf8')));
      }),
      { numRuns: runs(500) },
    );
  });

  it('decoding files in groups closed at a size gives the strings of decoding each alone', () => {
    const file = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), text).map((s) => Buffer.from(s, 'utf8'));
    fc.assert(
      fc.property(fc.array(file, { maxLength: 12 }), fc.integer({ min: 1, max: 200 }), (files, closeAt) => {
        expect(decodeUtf8Files(files, closeAt)).toEqual(files.map((b) => b.toString('utf8')));
      }),
      { numRuns: runs(500) },
    );
  });

  it('closes a group as soon as it holds the given size: kept texts share their string with few others', () => {
    const kb = (n: number, c = 'ö'): Buffer => Buffer.from(c.repeat(n * 512));
    // 55 KB files, as a glossary's dictionaries of 1,000 entries: three to a group of MEMO_GROUP_BYTES.
    const files = [kb(55), kb(55), kb(55), kb(55), kb(55), Buffer.from('a\u0000b'), kb(55), kb(200), kb(55)];
    expect(decodeGroups(files, MEMO_GROUP_BYTES)).toEqual([[0, 1, 2], [5], [3, 4, 6], [7], [8]]);
    expect(decodeGroups(files)).toEqual([[5], [0, 1, 2, 3, 4, 6, 7, 8]]);
    // Each group's string is larger than V8's largest regular object (128 KiB): never in the young generation.
    for (const group of decodeGroups(files.slice(0, 5), MEMO_GROUP_BYTES).slice(0, -1)) {
      expect(group.reduce((sum, i) => sum + (files[i] as Buffer).length, 0)).toBeGreaterThan(128 * 1024);
    }
    expect(decodeUtf8Files(files, MEMO_GROUP_BYTES)).toEqual(files.map((b) => b.toString('utf8')));
  });

  it('decodes large files alone and splits long runs of small ones', () => {
    const big = Buffer.from(`${'große Jacke\tgroße Jacke\n'.repeat(50_000)}`);
    const small = Array.from({ length: 40 }, (_, i) => Buffer.from(`${'ß'.repeat(150_000)}${i}`));
    const files = [small[0] as Buffer, big, ...small, Buffer.alloc(0), Buffer.from('a\u0000b')];
    expect(decodeUtf8Files(files)).toEqual(files.map((b) => b.toString('utf8')));
  });
});

describe('the CPUs left for a worker', () => {
  it('counts what this process uses beside its main thread as its own, not as taken by other processes', async () => {
    const { machineSampler, worthAWorker, PARALLEL_MIN_WORK_MS } = await fromDist<ParallelLoad>('parallel-load.js');
    const sample = (idleMs: number, ownMs: number): { free: number | undefined } => {
      let at = 0;
      let read = { cpus: 2, idleMs: 0, ownMs: 0 };
      const machine = machineSampler(
        () => at,
        () => read,
      );
      machine();
      at = 1000;
      read = { cpus: 2, idleMs, ownMs };
      return { free: machine().free };
    };
    const much = PARALLEL_MIN_WORK_MS * 3;
    // An otherwise idle two-CPU machine: the main thread busy, V8's own threads 0.3 CPU, 0.7 CPU idle.
    const quiet = sample(700, 1300);
    expect(quiet.free).toBeCloseTo(1, 5);
    expect(worthAWorker(much, 2, 1, quiet.free)).toBe(true);
    // Another process keeps a CPU busy: the main thread and V8's threads share the other.
    const shared = sample(0, 1000);
    expect(shared.free).toBeCloseTo(0, 5);
    expect(worthAWorker(much, 2, 1, shared.free)).toBe(false);
    // Another process takes half a CPU: what is left beside the main thread is half a CPU.
    const half = sample(200, 1300);
    expect(half.free).toBeCloseTo(0.5, 5);
    expect(worthAWorker(much, 2, 1, half.free)).toBe(false);
  });

  it('measures nothing over less than a tenth of a second (the counters tick every 10 ms)', async () => {
    const { machineSampler } = await fromDist<ParallelLoad>('parallel-load.js');
    let at = 0;
    const machine = machineSampler(
      () => at,
      () => ({ cpus: 2, idleMs: 0, ownMs: 0 }),
    );
    machine();
    at = 50;
    expect(machine().free).toBeUndefined();
  });
});
