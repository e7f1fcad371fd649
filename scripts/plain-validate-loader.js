// dist/bundle/plain-validate.js, copied there by scripts/bundle.js: loads the bundle of `validate`
// with only its own options (plain-validate.cjs, one CommonJS file) with the V8 code cache the
// build made of it (plain-validate.cjs.cache).
//
// Why: compiling that file is most of what a short validate costs above a bare node (parsing half
// a megabyte of libraries, then compiling each function on its first call). Node 22 caches
// compiled code by itself (module.enableCompileCache); Node 20 has only vm.Script's cachedData,
// and only for scripts, not ES modules, hence the CommonJS bundle. The build runs validate once on
// the example repository and keeps the code V8 compiled for it (scripts/bundle.js).
//
// The cache only saves compiling: V8 refuses one made for another source length, V8 version or
// set of V8 flags (then the file is compiled from its source as usual), and this loader ignores a
// cache older than the source (a bundle edited or rebuilt without it). Its absence is no error.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

const SOURCE = fileURLToPath(new URL('./plain-validate.cjs', import.meta.url));
export const CODE_CACHE = `${SOURCE}.cache`;

/** The cache, when there is one at least as recent as the source. */
function readCodeCache() {
  try {
    return statSync(CODE_CACHE).mtimeMs >= statSync(SOURCE).mtimeMs ? readFileSync(CODE_CACHE) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles and runs plain-validate.cjs as Node runs a CommonJS module (the same wrapper
 * parameters, plus the URL the bundle uses for import.meta.url); with `cache: false` from its
 * source alone (the build, making the cache). Returns the module's exports and the compiled script.
 */
export function compilePlainValidate({ cache = true } = {}) {
  const source = readFileSync(SOURCE, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, importMetaUrl) {${source}\n})`, {
    filename: SOURCE,
    cachedData: cache ? readCodeCache() : undefined,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(SOURCE), module, SOURCE, path.dirname(SOURCE), pathToFileURL(SOURCE).href);
  return { exports: module.exports, script };
}

/** cli/plain-validate.ts's runPlainValidate. */
export function runPlainValidate(options, io) {
  return compilePlainValidate().exports.runPlainValidate(options, io);
}
