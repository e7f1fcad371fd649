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
// files of their own at run time (pino starts its transports from files by name).
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
// build's CommonJS file (plain-validate.cjs) with a V8 code cache, made here of a validate of the
// example repository (plain-validate.cjs.<build id>.cache), for this checkout's Node only: the
// published package holds none (package.json `files`), an installed one makes its own at first
// run (why and where: see the loader). With it, the example's validate runs about a quarter
// fewer instructions again.
//
// bin/termsync.js (CommonJS) requires that loader itself, after validate-options.cjs (the third
// build, cli/validate-options.js alone) has told a plain validate: such a run loads no ES module.
//
// Every module is in one file of the bundle only, and the build fails otherwise (it names them):
// the libraries and termsync's modules the plain validate uses are in plain-validate.cjs, and the
// ES module chunks take them from there through the loader (SHARED, OWN_SHARED); those that
// main.js imports statically as well (the error classes, the exit codes and their table: every
// command line loads them, and taking them from plain-validate.cjs would make --version compile
// all of it) are in common.cjs, which both plain-validate.cjs and the chunks require. Two copies
// of a module in one process are two of each of its classes: an error made by one copy is no
// instance of the other's class, and the CLI's exit codes go by class (once, an interrupted load
// of `plan` exited 1, "Internal error", instead of 130).
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
/**
 * What bin/termsync.js runs. The build writes a folder of its own next to it (OUT) and, once every
 * file is written and checked, renames it into place (see swapIn): a command started meanwhile runs
 * the previous bundle whole, never half of the new one (before, the folder was emptied first and
 * filled for seconds, and a command run then failed with "Internal error").
 */
const BUNDLE = path.join(DIST, 'bundle');
const OUT = path.join(DIST, `bundle.next-${process.pid}`);
/** Folders of this build's kind: the bundle, and the ones builds write and set aside (bundle.next-PID, bundle.old-PID). */
/**
 * termsync's own modules that both plain-validate.cjs and the ES module chunks use from the start
 * (main.js imports them statically: the error classes, the exit codes): one CommonJS file both
 * take them from, so that each class exists once in a process (bundled into both, an error thrown
 * by a module of one was not an instance of the other's class, and its exit code was lost).
 */
const COMMON_FILE = 'common.cjs';
const BUILD_FOLDER = /^bundle(?:\.(?:next|old)-(\d+))?(?:[\\/]|$)/;

export const EXTERNAL = ['chokidar', 'p-queue', 'pino', 'pino-pretty', 'prom-client', 'undici'];

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

/**
 * Libraries both the plain validate (plain-validate.cjs) and the other commands use: kept once, in
 * plain-validate.cjs, which exports what the compiled sources import of each (by name, so that the
 * rest is still left out) as `sharedLibraries[specifier]`; in the ES module chunks an import of one
 * of these specifiers is a module that takes it from there (through the loader, which compiles
 * plain-validate.cjs once per process, with its code cache). Bundled twice, they were a third of
 * the package. Sources import them by exactly these specifiers (the build fails when a file of one
 * of these packages lands in a chunk).
 */
export const SHARED = ['zod', 'zod/mini', 'zod/v4/locales/en.js', 'yaml', 'csv-parse/sync', 'saxes', 'yauzl', 'yazl', 'picomatch', 'node-cron'];

/**
 * What the compiled sources (dist/, tsc's output: one import per line) import of each SHARED
 * specifier: its names (`import { a, b as c }`; of `import * as ns`, every `ns.name` of that
 * file), and whether its default export.
 */
async function sharedImports() {
  const used = new Map(SHARED.map((specifier) => [specifier, { names: new Set(), default: false }]));
  const files = (await readdir(DIST, { recursive: true })).filter((file) => file.endsWith('.js') && !BUILD_FOLDER.test(file));
  for (const file of files) {
    const text = await readFile(path.join(DIST, file), 'utf8');
    for (const [, clause, specifier] of text.matchAll(/^import\s+(.+?)\s+from\s+['"]([^'"]+)['"];?$/gm)) {
      const entry = used.get(specifier);
      if (entry === undefined) continue;
      const namespace = /^\*\s+as\s+([\w$]+)$/.exec(clause);
      if (namespace !== null) {
        for (const [, name] of text.matchAll(new RegExp(`(?<![\\w$]|[^.]\\.)${namespace[1].replace(/\$/g, '\\$')}\\.([A-Za-z_$][\\w$]*)`, 'g'))) entry.names.add(name);
        continue;
      }
      const [, defaultName, named] = /^(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\})?$/.exec(clause) ?? [];
      if (defaultName === undefined && named === undefined) throw new Error(`bundle: cannot read the import of ${specifier} in dist/${file}: ${clause}`);
      if (defaultName !== undefined) entry.default = true;
      for (const part of (named ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '' && !p.startsWith('type '))) entry.names.add(part.split(/\s+as\s+/)[0]);
    }
  }
  return used;
}

/**
 * The module a build imports in place of `key`: its `names` (and default export) read from the one
 * copy of it in another file of the bundle. `from` is an expression of that copy's exports:
 * plain-validate.cjs's (through the loader) or common.cjs's (see COMMON_FILE).
 */
function sharedModule(key, names, withDefault, from = 'loader') {
  return {
    contents: [
      ...(from === 'loader' ? ["import loader from './plain-validate-loader.cjs';", `const library = loader.sharedLibrary(${JSON.stringify(key)});`] : [`const library = require(${JSON.stringify(`./${COMMON_FILE}`)}).modules[${JSON.stringify(key)}];`]),
      ...(names.length > 0 ? [`export const { ${names.join(', ')} } = library;`] : []),
      ...(withDefault ? ['export default library.default;'] : []),
    ].join('\n'),
    loader: 'js',
    resolveDir: OUT,
  };
}

/** The esbuild plugin that makes each SHARED import of the ES module build a module reading plain-validate.cjs's copy. */
function sharedFromPlainValidate(used) {
  const pattern = new RegExp(`^(${SHARED.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
  return {
    name: 'shared-from-plain-validate',
    setup(build) {
      build.onResolve({ filter: pattern }, (args) => ({ path: args.path, namespace: 'shared-library' }));
      build.onResolve({ filter: /^\.\/plain-validate-loader\.cjs$/ }, () => ({ path: './plain-validate-loader.cjs', external: true }));
      build.onLoad({ filter: /.*/, namespace: 'shared-library' }, (args) => {
        const { names, default: withDefault } = used.get(args.path);
        return sharedModule(args.path, [...names], withDefault);
      });
    },
  };
}

/**
 * The esbuild plugin that makes each import of one of termsync's modules another file of the bundle
 * holds a module reading that file's copy: `own` maps each such module (its path relative to the
 * root) to its exports there (for their names) and to where they are read from (`from` of
 * sharedModule). Those modules have no `export let` (the build fails on one): a value read once is
 * the value.
 */
function ownFromElsewhere(own) {
  return {
    name: 'own-from-elsewhere',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point' || args.namespace !== 'file') return undefined;
        const input = path.relative(ROOT, path.resolve(args.resolveDir, args.path)).split(path.sep).join('/');
        return own.has(input) ? { path: input, namespace: 'own-shared' } : undefined;
      });
      build.onResolve({ filter: new RegExp(`^\\./${COMMON_FILE.replace('.', '\\.')}$`) }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace: 'own-shared' }, async (args) => {
        if (/^export\s+let\b/m.test(await readFile(path.join(ROOT, args.path), 'utf8'))) throw new Error(`bundle: ${args.path} exports a \`let\`: a module shared between files of the bundle cannot`);
        const { exports, from } = own.get(args.path);
        const names = Object.keys(exports ?? {});
        return sharedModule(args.path, names.filter((name) => name !== 'default'), names.includes('default'), from);
      });
    },
  };
}

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
  // Modules of subpaths (pino/file, ...) stay outside with their package.
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // CommonJS libraries in an ES module bundle still call require() for Node's own modules.
  banner: { js: "import { createRequire as __termsyncCreateRequire } from 'node:module';\nconst require = __termsyncCreateRequire(import.meta.url);" },
  // Names too (the tarball's target is under 400 kB: names as written made it 521 kB). What users
  // see never carries a minified name: messages are written out, the libraries' `constructor.name`
  // reads (zod's received type, commander's error name) meet Node's own classes or are not printed;
  // a stack trace printed with TERMSYNC_DEBUG has short names, its file and line still point in.
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  alias: ALIAS,
  logLevel: 'warning',
};

/** Whether the process `pid` still runs (a build that left its folder behind did not). */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

// Folders that builds which did not finish left behind (killed, failed); a build still running keeps its own.
for (const entry of await readdir(DIST).catch(() => [])) {
  const pid = BUILD_FOLDER.exec(entry)?.[1];
  if (pid !== undefined && !running(Number(pid))) await rm(path.join(DIST, entry), { recursive: true, force: true });
}
await rm(OUT, { recursive: true, force: true });
let swapped = false;
// A build that fails leaves the bundle in place as it was, and no half-written folder.
process.on('exit', () => {
  if (!swapped) rmSync(OUT, { recursive: true, force: true });
});

// The plain validate first: the ES module build takes its libraries from it.
const used = await sharedImports();
const plainValidateEntry = [
  `export { runPlainValidate } from ${JSON.stringify(path.join(DIST, 'cli', 'plain-validate.js'))};`,
  ...SHARED.map((specifier, i) => {
    const { names, default: withDefault } = used.get(specifier);
    const clauses = [...(withDefault ? [`default as shared${i}_default`] : []), ...[...names].map((name) => `${name} as shared${i}_${name}`)];
    return clauses.length === 0 ? '' : `import { ${clauses.join(', ')} } from ${JSON.stringify(specifier)};`;
  }),
  `export const sharedLibraries = { ${SHARED.map((specifier, i) => {
    const { names, default: withDefault } = used.get(specifier);
    return `${JSON.stringify(specifier)}: { ${[...(withDefault ? [`default: shared${i}_default`] : []), ...[...names].map((name) => `${name}: shared${i}_${name}`)].join(', ')} }`;
  }).join(', ')} };`,
].join('\n');
const plainValidateOptions = {
  ...common,
  outdir: undefined,
  outfile: path.join(OUT, 'plain-validate.cjs'),
  // CommonJS (a script V8 can cache, see the loader), run by the loader with Node's own require;
  // import.meta.url is a parameter of the loader's wrapper.
  format: 'cjs',
  // The file is the function the loader calls (Node's CommonJS wrapper, plus import.meta.url as a
  // parameter): V8 compiles the text as it is read, with no wrapper to join to half a megabyte of
  // source first (joined, it is copied once more before it is compiled).
  banner: { js: `(function (${PLAIN_VALIDATE_PARAMETERS.join(', ')}) {` },
  define: { 'import.meta.url': 'importMetaUrl' },
  // The function's end, then this build's id, which names its code cache (see the loader).
  footer: { js: `})\n//# termsync-build-id=${randomBytes(12).toString('hex')}` },
  plugins: [lazyBuiltins],
};
// termsync's own modules the plain validate loads (the configuration, the entries files' formats)
// are shared the same way, whole: plain-validate.cjs exports each module's namespace as
// `sharedLibraries[<its path in dist/>]`, and the ES module chunks take it from there. Bundled in
// both, they were some 280 kB of the bundle twice. Which modules: a first build's metafile.
const firstPass = await build({ ...plainValidateOptions, stdin: { contents: plainValidateEntry, resolveDir: ROOT, sourcefile: 'plain-validate-entry.js', loader: 'js' }, write: false, metafile: true });
// Not those main.js imports statically: every command line loads them, and taken from
// plain-validate.cjs they would make --version, --help and the like compile all of it (--version:
// 0.10 -> 0.16 s CPU, 46 -> 57 MB). Those the plain validate uses as well (the error classes, the
// exit codes) are in neither: they are common.cjs (COMMON_FILE), which both take them from.
const mainPass = await build({
  ...common,
  entryPoints: { termsync: path.join(DIST, 'cli', 'main.js') },
  splitting: true,
  write: false,
  metafile: true,
  plugins: [lazyBuiltins, plainValidateApart, { name: 'libraries-apart', setup: (b) => b.onResolve({ filter: /^[^./]/ }, (args) => ({ path: args.path, external: true })) }],
});
const everyLoad = new Set();
for (const pending = ['dist/cli/main.js']; pending.length > 0; ) {
  const input = pending.pop();
  if (everyLoad.has(input)) continue;
  everyLoad.add(input);
  for (const { path: to, kind } of mainPass.metafile.inputs[input]?.imports ?? []) if (kind === 'import-statement') pending.push(to);
}
const plainValidateOwn = Object.keys(firstPass.metafile.inputs).filter((input) => input.startsWith('dist/') && input.endsWith('.js') && !BUILD_FOLDER.test(input.slice('dist/'.length)));
const OWN_SHARED = plainValidateOwn.filter((input) => !everyLoad.has(input)).sort();
const COMMON = plainValidateOwn.filter((input) => everyLoad.has(input)).sort();
const commonBuild = await build({
  ...common,
  outdir: undefined,
  outfile: path.join(OUT, COMMON_FILE),
  format: 'cjs',
  banner: {},
  metafile: true,
  stdin: {
    contents: [
      ...COMMON.map((input, i) => `import * as own${i} from ${JSON.stringify(path.join(ROOT, input))};`),
      `export const modules = { ${COMMON.map((input, i) => `${JSON.stringify(input)}: own${i}`).join(', ')} };`,
    ].join('\n'),
    resolveDir: ROOT,
    sourcefile: 'common-entry.js',
    loader: 'js',
  },
  plugins: [lazyBuiltins],
});
const commonModules = createRequire(import.meta.url)(path.join(OUT, COMMON_FILE)).modules;
const fromCommon = COMMON.map((input) => [input, { exports: commonModules[input], from: 'common' }]);
const plainValidateBuild = await build({
  ...plainValidateOptions,
  metafile: true,
  stdin: {
    contents: [
      plainValidateEntry,
      ...OWN_SHARED.map((input, i) => `import * as own${i} from ${JSON.stringify(path.join(ROOT, input))};`),
      `Object.assign(sharedLibraries, { ${OWN_SHARED.map((input, i) => `${JSON.stringify(input)}: own${i}`).join(', ')} });`,
    ].join('\n'),
    resolveDir: ROOT,
    sourcefile: 'plain-validate-entry.js',
    loader: 'js',
  },
  plugins: [lazyBuiltins, ownFromElsewhere(new Map(fromCommon))],
});
await copyFile(path.join(ROOT, 'scripts', 'plain-validate-loader.cjs'), path.join(OUT, 'plain-validate-loader.cjs'));
const loader = createRequire(import.meta.url)(path.join(OUT, 'plain-validate-loader.cjs'));
const compiled = loader.compilePlainValidate({ cache: false });
const { exports: plainValidate } = compiled;
const esm = await build({
  ...common,
  entryPoints: { termsync: path.join(DIST, 'cli', 'main.js'), 'load-worker': path.join(DIST, 'config', 'load-worker.js') },
  splitting: true,
  metafile: true,
  plugins: [
    lazyBuiltins,
    plainValidateApart,
    sharedFromPlainValidate(used),
    ownFromElsewhere(new Map([...OWN_SHARED.map((input) => [input, { exports: plainValidate.sharedLibraries[input], from: 'loader' }]), ...fromCommon])),
  ],
});
const undefinedImports = esm.warnings.filter((warning) => warning.id === 'import-is-undefined');
if (undefinedImports.length > 0) throw new Error(`bundle: ${undefinedImports.map((warning) => warning.text).join('; ')}`);
// Each module is in the bundle once: a library or a module of termsync in two of its files would
// be two copies in one process, with two of each class (an error of one copy is no instance of the
// other's class: the CLI's exit codes go by class) and two of each module's state. The build fails
// and names them.
const copies = new Map();
for (const [file, { metafile }] of [['plain-validate.cjs', plainValidateBuild], [COMMON_FILE, commonBuild], ['the ES module chunks', esm]]) {
  for (const input of Object.keys(metafile.inputs)) {
    if (!/^(?:dist|node_modules)\//.test(input)) continue; // the stubs of the namespaces above, the builds' own entries
    copies.set(input, [...(copies.get(input) ?? []), file]);
  }
}
const twice = [...copies].filter(([, files]) => files.length > 1);
if (twice.length > 0) {
  throw new Error(`bundle: modules in more than one file of the bundle (${twice.slice(0, 5).map(([input, files]) => `${input} in ${files.join(' and ')}`).join('; ')}): a library of both plain-validate.cjs and the chunks belongs in SHARED, imported by its specifier`);
}
// What bin/termsync.js reads of a command line before it knows it is a plain validate.
await build({ ...common, entryPoints: { 'validate-options': path.join(DIST, 'cli', 'validate-options.js') }, format: 'cjs', outExtension: { '.js': '.cjs' }, banner: {} });
// The dashboard's page script, for browsers (the daemon serves it as /assets/dashboard.js, read from
// next to the chunk that serves it): one minified file, no module system, nothing imported at run time.
await build({
  absWorkingDir: ROOT,
  entryPoints: [path.join(ROOT, 'src', 'daemon', 'dashboard', 'client', 'dashboard-client.ts')],
  outfile: path.join(OUT, 'dashboard-client.js'),
  tsconfig: path.join(ROOT, 'src', 'daemon', 'dashboard', 'client', 'tsconfig.json'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
// main.js's `./plain-validate.js`: the loader, for ES modules.
await writeFile(
  path.join(OUT, 'plain-validate.js'),
  "import { createRequire } from 'node:module';\nexport const { BUILD_ID_MARK, codeCacheFile, compilePlainValidate, runPlainValidate, sharedLibrary, userCacheDirs, writeCodeCache } = createRequire(import.meta.url)('./plain-validate-loader.cjs');\n",
);
for (const entry of ['termsync.js', 'load-worker.js', COMMON_FILE, 'plain-validate.js', 'plain-validate-loader.cjs', 'plain-validate.cjs', 'validate-options.cjs', 'dashboard-client.js']) {
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
  const outside = [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]).filter((id) => !isBuiltin(id) && !(file === 'plain-validate.cjs' && id === `./${COMMON_FILE}`));
  if (outside.length > 0) throw new Error(`bundle: ${file} requires ${[...new Set(outside)].join(', ')}: bundle it into the CommonJS build`);
}

// The code cache: what V8 compiled of plain-validate.cjs for a validate of the example repository
// (every kind of entries file), or for loading it alone where the example is not at hand. A validate
// that fails here fails the build: the bundle itself is broken.
if (existsSync(path.join(ROOT, 'config', 'termsync.yaml'))) {
  const errors = [];
  const io = { stdout: () => undefined, stderr: (text) => errors.push(text), env: {}, cwd: ROOT, signal: new AbortController().signal };
  const code = await plainValidate.runPlainValidate({ dir: '.', logLevel: 'warn', format: 'text' }, io);
  if (code !== 0) throw new Error(`bundle: validate of the example repository with the bundle ended with exit code ${code}: ${errors.join('')}`);
}
if (loader.writeCodeCache(compiled, { beside: true }) === undefined) throw new Error(`bundle: cannot write the code cache next to ${path.join(OUT, 'plain-validate.cjs')}`);

/**
 * The list of the files a bundle carries from the one before it (see carryOldChunks): an
 * .npmignore, so that `npm pack` (and publish) leaves them out. npm reads an .npmignore of a folder
 * that package.json's `files` includes, and never packs the .npmignore itself: the package holds
 * exactly this build's files, whatever bundle the folder replaced.
 */
const CARRIED = '.npmignore';

/**
 * A command that started on the old bundle loads some chunks only when it reaches them (a command's
 * module, `plan --help`'s): after the swap it looks for them in the new folder. Chunks are named by
 * their content (chunk-XXXXXXXX.js), so the old bundle's chunks that the new one lacks are copied
 * into it, and such a command finds the very files it expects. They are for such a command only:
 * listed in CARRIED, never packed. Only the old bundle's own are carried (not those it carried
 * itself), so they never pile up: the next build drops them, and a build of unchanged sources
 * carries none.
 */
async function carryOldChunks() {
  if (!existsSync(BUNDLE)) return;
  const carriedBefore = new Set((await readFile(path.join(BUNDLE, CARRIED), 'utf8').catch(() => '')).split('\n').filter((line) => line !== '' && !line.startsWith('#')));
  const fresh = new Set(await readdir(OUT));
  const carried = [];
  for (const name of await readdir(BUNDLE)) {
    if (!/-[A-Z0-9]{8}\.js$/.test(name) || fresh.has(name) || carriedBefore.has(name)) continue;
    await copyFile(path.join(BUNDLE, name), path.join(OUT, name));
    carried.push(name);
  }
  if (carried.length > 0) {
    await writeFile(path.join(OUT, CARRIED), `# Chunks of the bundle this one replaced, for a command that started on it (scripts/bundle.js, carryOldChunks): not part of the package.\n${carried.join('\n')}\n`);
  }
}

/**
 * The new bundle in place of the old: the old folder is renamed aside, the new one renamed to its
 * name, the old one removed. Each rename is atomic, so a command that starts finds a whole bundle
 * (the old or the new; in the instant between the two renames, none: bin/termsync.js then looks
 * again, see there). The two renames are made back to back on this thread (renameSync), not as two
 * operations of the thread pool with a turn of the event loop between them, so that instant is two
 * system calls long: under load, the asynchronous pair left it open long enough for a command that
 * started on the old bundle to miss a chunk it loaded then (seen once in a test at a load of 11).
 */
async function swapIn() {
  await carryOldChunks();
  const aside = path.join(DIST, `bundle.old-${process.pid}`);
  const had = existsSync(BUNDLE);
  if (had) renameSync(BUNDLE, aside);
  renameSync(OUT, BUNDLE);
  swapped = true;
  if (had) await rm(aside, { recursive: true, force: true });
}
await swapIn();
