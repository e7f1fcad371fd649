#!/usr/bin/env node
// The CLI as bin/termsync.js runs it: the compiled dist/ (tsc) bundled into a few files in
// dist/bundle/ by esbuild. Run by `npm run build` after tsc.
//
// Why: on Node 20 a command pays for every module file it loads (resolve, read, compile, link),
// and the libraries `validate` needs are hundreds of files (zod alone is about a hundred ES
// modules, yaml some fifty CommonJS files). Bundled, `validate` loads about fifteen files and
// runs in about half the CPU time. Each command is still loaded only when named (main.ts imports
// them dynamically; `splitting` keeps every dynamic import a chunk of its own).
//
// Left outside the bundle, imported from node_modules as before: libraries only the commands that
// talk to the service or run the daemon use (they cost `validate` nothing), and those that find
// files of their own at run time (pino starts its transports from files by name, exceljs is a
// large CommonJS tree loaded only to write workbooks).
//
// The worker thread of the loader (config/load-worker.js) is an entry of its own: parallel-load
// starts it from `./load-worker.js` next to the chunk that holds it, and every chunk is written
// to this one folder.
//
// `validate` with only its own options (cli/plain-validate.js, the run CI jobs make most) is a
// second build: one file with everything it uses, next to the chunks. Split like the other
// commands, it loaded some twenty chunks (the libraries and the loader are shared with plan,
// apply and the daemon in many combinations), and Node 20 resolves, compiles, links and
// evaluates each ES module on its own: as one file, validate of the example runs about a sixth
// fewer instructions. main.js imports it as `./plain-validate.js`, which is its path both next
// to the compiled sources and in the bundle: the first build leaves that import as it is. That
// file in the bundle re-exports scripts/plain-validate-loader.cjs (copied next to it): it runs the
// build's CommonJS file (plain-validate.cjs) with the V8 code cache made here of a validate of the
// example repository (plain-validate.cjs.<build id>.cache; why and when it is used: see the
// loader). With it, the example's validate runs about a quarter fewer instructions again.
//
// bin/termsync.js (CommonJS) requires that loader itself, after validate-options.cjs (the third
// build, cli/validate-options.js alone) has told a plain validate: such a run loads no ES module.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

export const EXTERNAL = ['chokidar', 'exceljs', 'p-queue', 'pino', 'pino-pretty', 'prom-client', 'undici'];

/**
 * Node modules that libraries of `validate` import at their top level but use only in code that
 * `validate` never runs: loaded on first use instead. commander spawns executable subcommands
 * (child_process, with net, dgram and streams behind it); node-cron, loaded by validate only to
 * check a `schedule`, forks its background daemon (child_process) and names its tasks
 * (node:crypto, the costliest of them to load). Each edit names the text it replaces: a library
 * release that no longer has it is built unchanged, and the build says so.
 */
export const LAZY_BUILTINS = [
  {
    file: /[\\/]commander[\\/]lib[\\/]command\.js$/,
    edits: [["const childProcess = require('node:child_process');", "const childProcess = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });"]],
  },
  {
    file: /[\\/]node-cron[\\/]dist[\\/]_shared\.js$/,
    edits: [["import { randomUUID } from 'node:crypto';", "import { createRequire as createRequireForCrypto } from 'node:module';\nconst randomUUID = () => createRequireForCrypto(import.meta.url)('node:crypto').randomUUID();"]],
  },
  {
    file: /[\\/]node-cron[\\/]dist[\\/]node-cron\.js$/,
    edits: [
      ["import { fork } from 'child_process';", "import { createRequire as createRequireForFork } from 'node:module';\nconst fork = (...args) => createRequireForFork(import.meta.url)('node:child_process').fork(...args);"],
      ["import 'node:crypto';", ''],
    ],
  },
];

/**
 * yaml as ES modules (the package's build for other platforms: the same code, with warnings
 * through console.warn where the CommonJS build calls process.emitWarning, and no LOG_TOKENS /
 * LOG_STREAM debugging output): esbuild keeps only what termsync uses, and the modules are
 * compiled once instead of each CommonJS wrapper being scanned at load and again when it runs.
 * termsync asks yaml for no warning (it reports problems as diagnostics: logLevel 'error').
 */
export const ALIAS = { yaml: './node_modules/yaml/browser/dist/index.js' };

/** The esbuild plugin applying LAZY_BUILTINS. */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    for (const { file, edits } of LAZY_BUILTINS) {
      build.onLoad({ filter: file }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        for (const [from, to] of edits) {
          if (text.includes(from)) text = text.replace(from, to);
          else console.warn(`bundle: ${path.relative(ROOT, args.path)} no longer has \`${from}\`: left as it is (validate may load it at start)`);
        }
        return { contents: text, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    }
  },
};

/** The parameters of plain-validate.cjs's function: Node's CommonJS wrapper's, and import.meta.url (see the loader). */
const PLAIN_VALIDATE_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname', 'importMetaUrl'];

/** The first build leaves main.js's import of the plain validate to the second. */
const PLAIN_VALIDATE = './plain-validate.js';
const plainValidateApart = {
  name: 'plain-validate-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/plain-validate\.js$/ }, () => ({ path: PLAIN_VALIDATE, external: true }));
  },
};

const { build } = await import('esbuild').catch((error) => {
  // A checkout whose node_modules predate esbuild (a devDependency): say what to do.
  console.error(`bundle: cannot load esbuild (${error.message}); run \`npm install\` first`);
  process.exit(1);
});

/** What both builds share. */
const common = {
  absWorkingDir: ROOT,
  outdir: OUT,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Modules of subpaths (exceljs/lib/...) stay outside with their package.
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // CommonJS libraries in an ES module bundle still call require() for Node's own modules.
  banner: { js: "import { createRequire as __termsyncCreateRequire } from 'node:module';\nconst require = __termsyncCreateRequire(import.meta.url);" },
  // Whitespace and syntax only: names stay as written (libraries read constructor.name, and a
  // stack trace printed with TERMSYNC_DEBUG stays readable).
  minifyWhitespace: true,
  minifySyntax: true,
  alias: ALIAS,
  logLevel: 'warning',
};

await rm(OUT, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { termsync: path.join(DIST, 'cli', 'main.js'), 'load-worker': path.join(DIST, 'config', 'load-worker.js') },
  splitting: true,
  plugins: [lazyBuiltins, plainValidateApart],
});
await build({
  ...common,
  entryPoints: { 'plain-validate': path.join(DIST, 'cli', 'plain-validate.js') },
  // CommonJS (a script V8 can cache, see the loader), run by the loader with Node's own require;
  // import.meta.url is a parameter of the loader's wrapper.
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // The file is the function the loader calls (Node's CommonJS wrapper, plus import.meta.url as a
  // parameter): V8 compiles the text as it is read, with no wrapper to join to half a megabyte of
  // source first (joined, it is copied once more before it is compiled).
  banner: { js: `(function (${PLAIN_VALIDATE_PARAMETERS.join(', ')}) {` },
  define: { 'import.meta.url': 'importMetaUrl' },
  // The function's end, then this build's id, which names its code cache (see the loader).
  footer: { js: `})\n//# termsync-build-id=${randomBytes(12).toString('hex')}` },
  plugins: [lazyBuiltins],
});
// What bin/termsync.js reads of a command line before it knows it is a plain validate.
await build({ ...common, entryPoints: { 'validate-options': path.join(DIST, 'cli', 'validate-options.js') }, format: 'cjs', outExtension: { '.js': '.cjs' }, banner: {} });
await copyFile(path.join(ROOT, 'scripts', 'plain-validate-loader.cjs'), path.join(OUT, 'plain-validate-loader.cjs'));
// main.js's `./plain-validate.js`: the loader, for ES modules.
await writeFile(
  path.join(OUT, 'plain-validate.js'),
  "import { createRequire } from 'node:module';\nexport const { BUILD_ID_MARK, codeCacheFile, compilePlainValidate, runPlainValidate } = createRequire(import.meta.url)('./plain-validate-loader.cjs');\n",
);
for (const entry of ['termsync.js', 'load-worker.js', 'plain-validate.js', 'plain-validate-loader.cjs', 'plain-validate.cjs', 'validate-options.cjs']) {
  if (!existsSync(path.join(OUT, entry))) throw new Error(`bundle: ${entry} was not written to ${OUT}`);
}

// plain-validate.cjs is run by Node's require, with no package of node_modules beside it: a library
// left outside (an ES module one would fail only when reached) must not be required from it.
const cjs = await readFile(path.join(OUT, 'plain-validate.cjs'), 'utf8');
// ASCII only: V8 keeps a source with one character beyond Latin-1 as two bytes a character (twice
// the memory to fill, and a slower decoding) for every validate. esbuild writes strings and names
// with escapes, but not regular expressions: write such a character as \u2192 in the source.
const nonAscii = /[\u0080-\uffff]/.exec(cjs);
if (nonAscii !== null) {
  throw new Error(`bundle: plain-validate.cjs holds a character beyond ASCII (${JSON.stringify(nonAscii[0])} in ${JSON.stringify(cjs.slice(Math.max(0, nonAscii.index - 60), nonAscii.index + 20))}): write it as a \\u escape in its regular expression`);
}
for (const file of ['plain-validate.cjs', 'validate-options.cjs']) {
  const text = file === 'plain-validate.cjs' ? cjs : await readFile(path.join(OUT, file), 'utf8');
  const outside = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]).filter((id) => !isBuiltin(id));
  if (outside.length > 0) throw new Error(`bundle: ${file} requires ${[...new Set(outside)].join(', ')}: bundle it into the CommonJS build`);
}

// The code cache: what V8 compiled of plain-validate.cjs for a validate of the example repository
// (every kind of entries file), or for loading it alone where the example is not at hand. A validate
// that fails here fails the build: the bundle itself is broken.
const loader = createRequire(import.meta.url)(path.join(OUT, 'plain-validate-loader.cjs'));
const { exports: plainValidate, script, source } = loader.compilePlainValidate({ cache: false });
if (existsSync(path.join(ROOT, 'config', 'termsync.yaml'))) {
  const errors = [];
  const io = { stdout: () => undefined, stderr: (text) => errors.push(text), env: {}, cwd: ROOT, signal: new AbortController().signal };
  const code = await plainValidate.runPlainValidate({ dir: '.', logLevel: 'warn', format: 'text' }, io);
  if (code !== 0) throw new Error(`bundle: validate of the example repository with the bundle ended with exit code ${code}: ${errors.join('')}`);
}
await writeFile(loader.codeCacheFile(source), script.createCachedData());
