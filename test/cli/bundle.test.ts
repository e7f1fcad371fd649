/**
 * The CLI as users run it: bin/termsync.js loads the bundle in dist/bundle/ (scripts/bundle.js),
 * not the sources the other CLI tests run in-process. Checked here: the bundled CLI answers as the
 * sources do, and a command loads only what it uses (module loading is most of a short command's
 * time). `npm run test:slow` builds first.
 */
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as NodeCron from 'node-cron';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'termsync.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runBin(args: readonly string[], nodeArgs: readonly string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, BIN, ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '' }, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

// Records every module file the process loads (ES modules through a loader hook, CommonJS through
// Module._load) and writes the list to the file named by TERMSYNC_TEST_MODULES at exit.
let work: string;
let recorder: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'termsync-bundle-'));
  const hooks = path.join(work, 'hooks.mjs');
  await writeFile(
    hooks,
    "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  appendFileSync(process.env.TERMSYNC_TEST_MODULES, url + '\\n');\n  return next(url, context);\n}\n",
  );
  recorder = path.join(work, 'record.mjs');
  await writeFile(
    recorder,
    [
      "import { register, createRequire } from 'node:module';",
      "import { appendFileSync } from 'node:fs';",
      `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
      "const Module = createRequire(import.meta.url)('node:module');",
      'const load = Module._load;',
      'Module._load = function (request, parent, isMain) {',
      '  const loaded = load.apply(this, arguments);',
      "  try { appendFileSync(process.env.TERMSYNC_TEST_MODULES, Module._resolveFilename(request, parent, isMain) + '\\n'); } catch {}",
      '  return loaded;',
      '};',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The packages (folders under node_modules) a run of the CLI loads. */
async function packagesLoaded(args: readonly string[]): Promise<{ run: Run; packages: Set<string>; files: string[] }> {
  const list = path.join(work, `modules-${args.join('-').replace(/[^a-z-]/gi, '')}.txt`);
  const run = await new Promise<Run>((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(recorder).href, BIN, ...args],
      { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', TERMSYNC_TEST_MODULES: list } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
  const recorded = await readFile(list, 'utf8').catch(() => '');
  const files = recorded.split('\n').filter((l) => l !== '' && !l.startsWith('node:') && !l.includes(path.basename(work)));
  // A recording that saw nothing would pass every "loads no X" check: both recorders must have
  // written, the loader hook (URLs: it sees the CLI's entry, bin/termsync.js, first) and
  // Module._load (paths and node: names of what is required).
  const lines = recorded.split('\n').filter((l) => l !== '');
  expect(lines, 'the loader hook recorded bin/termsync.js').toContain(pathToFileURL(BIN).href);
  expect(lines.filter((l) => !l.startsWith('file:')).length, 'Module._load recorded what was required').toBeGreaterThan(0);
  const packages = new Set(files.flatMap((f) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(decodeURIComponent(f))?.[1] ?? []));
  return { run, packages, files };
}

/**
 * Node's own modules (`child_process`, `internal/...`) a run of the CLI loads, from
 * process.moduleLoadList at exit. Recorded without the loader hook above, whose thread would load
 * worker_threads itself.
 */
async function builtinsLoaded(args: readonly string[]): Promise<{ run: Run; builtins: Set<string> }> {
  const list = path.join(work, `builtins-${args.join('-').replace(/[^a-z-]/gi, '')}.txt`);
  const preload = path.join(work, 'builtins.cjs');
  await writeFile(
    preload,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.TERMSYNC_TEST_MODULES, process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join('\\n')));\n",
  );
  const run = await new Promise<Run>((resolve) => {
    execFile(process.execPath, ['--require', preload, BIN, ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', TERMSYNC_TEST_MODULES: list } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
    );
  });
  return { run, builtins: new Set((await readFile(list, 'utf8')).split('\n')) };
}

/** A copy of bin/termsync.js and dist/bundle (timestamps kept) in a folder of its own, and a way to run it. */
async function copyOfBundle(prefix: string): Promise<{ copy: string; bundle: string; run: (args: readonly string[], env?: Record<string, string>, nodeArgs?: readonly string[]) => Promise<Run> }> {
  const copy = await mkdtemp(path.join(work, prefix));
  await mkdir(path.join(copy, 'bin'));
  await cp(BIN, path.join(copy, 'bin', 'termsync.js'));
  await cp(path.join(ROOT, 'bin', 'package.json'), path.join(copy, 'bin', 'package.json'));
  await cp(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
  await cp(path.join(ROOT, 'dist', 'bundle'), path.join(copy, 'dist', 'bundle'), { recursive: true, preserveTimestamps: true });
  const run = (args: readonly string[], env: Record<string, string> = {}, nodeArgs?: readonly string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(process.execPath, nodeArgs ?? [path.join(copy, 'bin', 'termsync.js'), ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', ...env } }, (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr }),
      );
    });
  return { copy, bundle: path.join(copy, 'dist', 'bundle'), run };
}

describe('the bundled CLI (bin/termsync.js)', () => {
  it('validates the example repository exactly as the sources do', async () => {
    for (const format of ['text', 'json', 'github']) {
      const args = ['validate', '--format', format, '--dir', ROOT];
      const [bundled, sources] = await Promise.all([runBin(args), runCliCaptured(args)]);
      expect(bundled).toEqual(sources);
      expect(bundled.code).toBe(0);
    }
  });

  it('validates a repository of 300 glossaries with a worker thread sharing the load (TERMSYNC_LOAD_THREADS=2) exactly as the sources do: the CommonJS plain validate starts the ES module worker of the other build', async () => {
    // A copy of the bundle whose worker module first leaves a mark, then is the real one.
    const { copy, bundle, run } = await copyOfBundle('worker-');
    const mark = path.join(copy, 'worker-started');
    await rename(path.join(bundle, 'load-worker.js'), path.join(bundle, 'real-load-worker.js'));
    await writeFile(path.join(bundle, 'load-worker.js'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(mark)}, 'started');\nawait import('./real-load-worker.js');\n`);
    // Enough work that the worker is up before the main thread is done (with the example's 18 files it is not).
    const repo = path.join(copy, 'repo');
    await mkdir(path.join(repo, 'glossaries'), { recursive: true });
    await writeFile(path.join(repo, 'termsync.yaml'), 'version: 1\nresources: [glossaries]\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n');
    const entries = Array.from({ length: 2000 }, (_, i) => `term ${i}\tBegriff ${i}\n`).join('');
    for (let g = 0; g < 300; g++) {
      await writeFile(path.join(repo, 'glossaries', `g${g}.yaml`), `kind: glossary\nname: g${g}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: g${g}.tsv\n`);
      await writeFile(path.join(repo, 'glossaries', `g${g}.tsv`), entries);
    }
    const args = ['validate', '--format', 'json', '--dir', repo];
    const bundled = await run(args, { TERMSYNC_LOAD_THREADS: '2' });
    expect(bundled).toEqual(await runCliCaptured(args));
    expect(bundled.code).toBe(0);
    expect(await readFile(mark, 'utf8')).toBe('started');
  });

  it('reports a broken repository with the same diagnostics and exit code as the sources', async () => {
    const repo = await mkdtemp(path.join(work, 'broken-'));
    await writeFile(path.join(repo, 'termsync.yaml'), 'version: 1\nresources: [.]\nschedule: "not cron"\ntargets: []\n');
    await writeFile(path.join(repo, 'g.yaml'), 'kind: glossary\nname: x\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: missing.csv\n');
    const args = ['validate', '--format', 'json', '--dir', repo];
    const [bundled, sources] = await Promise.all([runBin(args), runCliCaptured(args)]);
    expect(bundled).toEqual(sources);
    expect(bundled.code).toBe(3);
  });

  it('answers --version (the version in package.json) and --help from the bundle', async () => {
    const { version: published } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const version = await runBin(['--version']);
    expect(version).toEqual({ code: 0, stdout: `${published}\n`, stderr: '' });
    const help = await runBin(['--help']);
    expect(help).toEqual({ ...(await runCliCaptured(['--help'])), code: 0 });
  });

  it('validate of the example (TBX, workbook, CSV, TSV) loads no library of the commands that talk to the service or run the daemon, nor exceljs', async () => {
    const { run, packages, files } = await packagesLoaded(['validate', '--dir', ROOT]);
    expect(run.code).toBe(0);
    for (const name of ['undici', 'pino', 'pino-pretty', 'p-queue', 'prom-client', 'chokidar', 'exceljs']) expect(packages.has(name), `${name} is loaded`).toBe(false);
    // What it needs (yaml, zod, csv-parse, saxes, yauzl, node-cron) is in the bundle: nothing is
    // loaded from node_modules at all.
    expect([...packages]).toEqual([]);
    // Every file of termsync that validate loads is the bundle's; the sources compiled by tsc are not used.
    const own = files.filter((f) => f.includes(`${path.sep}dist${path.sep}`) || f.includes('/dist/'));
    expect(own.length).toBeGreaterThan(0);
    for (const file of own) expect(file).toMatch(/[\\/]dist[\\/]bundle[\\/]/);
    // A command line of validate's own options is read without commander (validate-options.ts);
    // the bundle names each CommonJS module it holds by its path.
    for (const file of own) expect(await readFile(file.startsWith('file:') ? fileURLToPath(file) : file, 'utf8'), file).not.toContain('node_modules/commander/');
  });

  it('validate with only its own options runs from the CommonJS files of the bundle alone: validate-options.cjs, then plain-validate-loader.cjs, which runs plain-validate.cjs, which requires common.cjs (the error classes and exit codes the ES module chunks use too)', async () => {
    const { run, files } = await packagesLoaded(['validate', '--dir', ROOT]);
    expect(run.code).toBe(0);
    const bundle = path.join(ROOT, 'dist', 'bundle');
    const loaded = files.filter((f) => f.includes('/dist/bundle/') || f.includes(`${path.sep}dist${path.sep}bundle${path.sep}`)).map((f) => path.basename(f.startsWith('file:') ? fileURLToPath(f) : f));
    // plain-validate.cjs is read as a script (see scripts/plain-validate-loader.cjs): no commander in it either.
    expect(await readFile(path.join(bundle, 'plain-validate.cjs'), 'utf8')).not.toContain('node_modules/commander/');
    expect([...new Set(loaded)]).toEqual(['validate-options.cjs', 'plain-validate-loader.cjs', 'common.cjs']);
  });

  it("validate with only its own options never starts Node's ES module loader; any other command line runs the ES module bundle", async () => {
    const esm = ['internal/modules/esm/module_job', 'internal/modules/esm/translators'];
    const plain = await builtinsLoaded(['validate', '--dir', ROOT]);
    expect(plain.run).toEqual({ code: 0, stdout: 'No problems in 18 files.\n', stderr: '' });
    expect(plain.builtins.has('fs'), 'the list of Node modules is recorded').toBe(true);
    for (const name of esm) expect(plain.builtins.has(name), `${name} is loaded`).toBe(false);
    // An option commander reads (not a plain validate): the same answer as the sources, through the ES module bundle.
    const other = await builtinsLoaded(['validate', '--dir', ROOT, '--format', 'xml']);
    expect(other.run).toEqual(await runCliCaptured(['validate', '--dir', ROOT, '--format', 'xml']));
    expect(other.run.code).toBe(3);
    for (const name of esm) expect(other.builtins.has(name), `${name} is loaded`).toBe(true);
  });

  it("runs plain-validate.cjs with the build's code cache, which this Node accepts", async () => {
    const loader = pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'plain-validate.js')).href;
    const probe = `const { compilePlainValidate } = await import(${JSON.stringify(loader)}); const { script } = compilePlainValidate(); console.log(JSON.stringify({ rejected: script.cachedDataRejected }));`;
    const run = await runBin([], ['--input-type=module', '-e', probe]);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ rejected: false });
  });

  it("a plain validate whose CommonJS bundle files are missing is answered by the full CLI; a bundle that cannot be loaded at all is one line of error, exit 1, no stack trace", async () => {
    const { bundle, run } = await copyOfBundle('broken-');
    const args = ['validate', '--format', 'json', '--dir', ROOT];
    const sources = await runCliCaptured(args);
    // A checkout pulled and not rebuilt: the bin is new, the bundle older and without its files.
    await rm(path.join(bundle, 'validate-options.cjs'));
    expect(await run(args)).toEqual(sources);
    await rm(bundle, { recursive: true });
    const broken = await run(args);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^Internal error \(a bug in termsync, please report it\): Cannot find module '[^\n]*termsync\.js'[^\n]*\n$/);
  });

  it('uses only the code cache of its own build: validates the same without it, with one older than the bundle or one of another build (neither used)', async () => {
    const { bundle, run } = await copyOfBundle('copy-');
    const caches = (await readdir(bundle)).filter((f) => f.endsWith('.cache'));
    expect(caches).toEqual([expect.stringMatching(/^plain-validate\.cjs\.[0-9a-f]{24}\.cache$/)]);
    const cache = path.join(bundle, caches[0] as string);
    const args = ['validate', '--format', 'json', '--dir', ROOT];
    const sources = await runCliCaptured(args);
    // The user's cache folder is switched off here: only the cache next to the bundle counts.
    const off = { NODE_DISABLE_COMPILE_CACHE: '1' };
    const runCopy = (): Promise<Run> => run(args, off);
    // Whether the loader hands V8 a cache: cachedDataRejected is false for an accepted one, undefined for none.
    const loader = pathToFileURL(path.join(bundle, 'plain-validate.js')).href;
    const probe = `const { compilePlainValidate } = await import(${JSON.stringify(loader)}); console.log(JSON.stringify({ rejected: compilePlainValidate().script.cachedDataRejected ?? 'none' }));`;
    const cacheUse = async (): Promise<unknown> => JSON.parse((await run([], off, ['--input-type=module', '-e', probe])).stdout);
    expect(await cacheUse()).toEqual({ rejected: false });
    expect(await runCopy()).toEqual(sources);

    const old = new Date(Date.now() - 3_600_000);
    await utimes(cache, old, old);
    expect(await cacheUse()).toEqual({ rejected: 'none' });
    expect(await runCopy()).toEqual(sources);

    // Another build's cache (two builds racing in one tree): found under its own id only.
    const now = new Date();
    await utimes(cache, now, now);
    await rename(cache, path.join(bundle, `plain-validate.cjs.${'0'.repeat(24)}.cache`));
    expect(await cacheUse()).toEqual({ rejected: 'none' });
    expect(await runCopy()).toEqual(sources);

    await rm(path.join(bundle, `plain-validate.cjs.${'0'.repeat(24)}.cache`));
    expect(await cacheUse()).toEqual({ rejected: 'none' });
    expect(await runCopy()).toEqual(sources);
    // NODE_DISABLE_COMPILE_CACHE: nothing was written anywhere either.
    expect((await readdir(bundle)).filter((f) => f.endsWith('.cache'))).toEqual([]);
  });

  it('an installed package (no cache next to the bundle) writes its own cache at the first plain validate, in the user cache folder, and uses it from then on', async () => {
    const { copy, bundle, run } = await copyOfBundle('installed-');
    for (const f of (await readdir(bundle)).filter((name) => name.endsWith('.cache'))) await rm(path.join(bundle, f));
    const userCache = path.join(copy, 'xdg-cache');
    // TMPDIR too: the loader falls back to a folder there when the user's cannot be written.
    await mkdir(path.join(copy, 'tmp'));
    const env = { XDG_CACHE_HOME: userCache, TMPDIR: path.join(copy, 'tmp') };
    const args = ['validate', '--format', 'json', '--dir', ROOT];
    const sources = await runCliCaptured(args);
    const loader = pathToFileURL(path.join(bundle, 'plain-validate.js')).href;
    const probe = `const { compilePlainValidate } = await import(${JSON.stringify(loader)}); const { script, cacheFile } = compilePlainValidate(); console.log(JSON.stringify({ rejected: script.cachedDataRejected ?? 'none', cacheFile: cacheFile ?? null }));`;
    const cacheUse = async (): Promise<unknown> => JSON.parse((await run([], env, ['--input-type=module', '-e', probe])).stdout);
    const written = (): Promise<string[]> => readdir(path.join(userCache, 'termsync')).catch(() => []);

    expect(await cacheUse()).toEqual({ rejected: 'none', cacheFile: null });
    expect(await run(args, env)).toEqual(sources);
    const files = await written();
    expect(files).toEqual([expect.stringMatching(new RegExp(`^plain-validate\\.cjs\\.[0-9a-f]{24}\\.v8-${process.versions.v8.replace(/\./g, '\\.')}-${process.arch}\\.cache$`))]);
    const cacheFile = path.join(userCache, 'termsync', files[0] as string);
    expect(await cacheUse()).toEqual({ rejected: false, cacheFile });
    expect(await run(args, env)).toEqual(sources);
    // Used, not written again.
    expect(await written()).toEqual(files);

    // A cache in a folder others may write to is never used (its code would run as this user), nor written there.
    await chmod(path.join(userCache, 'termsync'), 0o777);
    expect(await cacheUse()).toMatchObject({ rejected: 'none' });
    await chmod(path.join(userCache, 'termsync'), 0o700);
    // A broken cache is rejected by V8, the validate answers the same, and the cache is written anew.
    await writeFile(cacheFile, 'not a code cache');
    expect(await cacheUse()).toMatchObject({ rejected: true });
    expect(await run(args, env)).toEqual(sources);
    expect(await cacheUse()).toEqual({ rejected: false, cacheFile });
    // A cache folder that cannot be written (a read-only home): the same answer, nothing on stderr.
    expect(await run(args, { ...env, XDG_CACHE_HOME: path.join(bundle, 'plain-validate.cjs', 'not-a-folder') })).toEqual(sources);
    // ... then the fallback in the temporary folder, private to this user, took it.
    expect(await readdir(path.join(copy, 'tmp'))).toEqual([`termsync-${process.getuid?.() ?? ''}`]);
  });

  it('the other commands take the libraries they share with the plain validate from plain-validate.cjs: each is in the bundle once', async () => {
    const bundle = path.join(ROOT, 'dist', 'bundle');
    const files = (await readdir(bundle)).filter((f) => f.endsWith('.js') || f.endsWith('.cjs'));
    // Messages of yaml's, saxes's and zod's own code: each in one file of the bundle, plain-validate.cjs.
    for (const mark of ['Alias resolution is disabled', 'text data outside of root node', 'Invalid input']) {
      const holding = [];
      for (const file of files) if ((await readFile(path.join(bundle, file), 'utf8')).includes(mark)) holding.push(file);
      expect(holding, mark).toEqual(['plain-validate.cjs']);
    }
    // A command of the ES module bundle that parses YAML and checks a schema: it answers as the sources do.
    const args = ['validate', '--dir', ROOT, '--'];
    expect(await runBin(args)).toEqual(await runCliCaptured(args));
  });

  it("termsync's error classes are in one file of the bundle (common.cjs), which plain-validate.cjs and the ES module chunks both take them from: an error is an instance of the class the exit codes go by, whichever file threw it", async () => {
    const bundle = path.join(ROOT, 'dist', 'bundle');
    // Chunks a build carried from the bundle before it (for a command still running on it) are not this build's.
    const carried = (await readFile(path.join(bundle, '.npmignore'), 'utf8').catch(() => '')).split('\n');
    const files = (await readdir(bundle)).filter((f) => (f.endsWith('.js') || f.endsWith('.cjs')) && !carried.includes(f));
    // Each class's literal name (the `name` of its errors): identifiers are minified, the names are not.
    for (const name of ['TermsyncError', 'InputError', 'AuthError']) {
      const holding = [];
      for (const file of files) if ((await readFile(path.join(bundle, file), 'utf8')).includes(`"${name}"`)) holding.push(file);
      expect(holding, name).toEqual(['common.cjs']);
    }
    // The same class object: the one the ES module chunks import, the one plain-validate.cjs's modules throw.
    const require = createRequire(import.meta.url);
    const common = require(path.join(bundle, 'common.cjs')) as { modules: Record<string, Record<string, unknown>> };
    const loader = require(path.join(bundle, 'plain-validate-loader.cjs')) as { compilePlainValidate: (o: { cache: boolean }) => { exports: { sharedLibraries: Record<string, Record<string, unknown>> } } };
    const { loadInterrupted } = loader.compilePlainValidate({ cache: false }).exports.sharedLibraries['dist/config/parallel-load.js'] as { loadInterrupted: (signal: AbortSignal) => Error };
    const controller = new AbortController();
    controller.abort(new Error('received SIGTERM'));
    expect(loadInterrupted(controller.signal)).toBeInstanceOf(common.modules['dist/lib/errors.js']?.['TermsyncError'] as new () => Error);
  });

  it("validate of the example loads none of Node's modules that only other commands use: child_process (commander's executable subcommands, node-cron's daemon), crypto (node-cron's task ids), worker_threads (a large repository's second thread)", async () => {
    const { run, builtins } = await builtinsLoaded(['validate', '--dir', ROOT]);
    expect(run.code).toBe(0);
    expect(builtins.has('fs'), 'the list of Node modules is recorded').toBe(true);
    for (const name of ['child_process', 'crypto', 'worker_threads']) expect(builtins.has(name), `${name} is loaded`).toBe(false);
  });

  it("keeps the bundled node-cron's tasks working with node:crypto loaded on first use (task ids)", async () => {
    // What the daemon's chunks import of node-cron (createTask): plain-validate.cjs's copy, through the loader as they take it.
    const loader = createRequire(import.meta.url)(path.join(ROOT, 'dist', 'bundle', 'plain-validate-loader.cjs')) as { sharedLibrary: (specifier: string) => unknown };
    const cron = loader.sharedLibrary('node-cron') as typeof NodeCron;
    const task = cron.createTask('0 0 1 1 *', () => undefined);
    try {
      expect(task.id).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await task.destroy();
    }
  });

  it('--version loads no library at all, nor plain-validate.cjs (which holds the libraries and the modules the commands share)', async () => {
    const { run, packages, files } = await packagesLoaded(['--version']);
    expect(run.stdout).toBe('0.1.0\n');
    expect([...packages]).toEqual([]);
    expect(files.some((f) => f.endsWith('termsync.js')), 'the recorder saw the bundle').toBe(true);
    // The loader compiles plain-validate.cjs with vm.Script (no module load to record): the loader is what would be loaded.
    expect(files.filter((f) => /plain-validate(-loader\.cjs|\.js)$/.test(f))).toEqual([]);
  });
});
