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
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const OUT = path.join(DIST, 'bundle');

export const EXTERNAL = ['chokidar', 'exceljs', 'p-queue', 'pino', 'pino-pretty', 'prom-client', 'undici'];

const { build } = await import('esbuild').catch((error) => {
  // A checkout whose node_modules predate esbuild (a devDependency): say what to do.
  console.error(`bundle: cannot load esbuild (${error.message}); run \`npm install\` first`);
  process.exit(1);
});

await rm(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { termsync: path.join(DIST, 'cli', 'main.js'), 'load-worker': path.join(DIST, 'config', 'load-worker.js') },
  outdir: OUT,
  bundle: true,
  splitting: true,
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
  logLevel: 'warning',
});
for (const entry of ['termsync.js', 'load-worker.js']) {
  if (!existsSync(path.join(OUT, entry))) throw new Error(`bundle: ${entry} was not written to ${OUT}`);
}
