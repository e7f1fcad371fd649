// dist/bundle/plain-validate-loader.cjs, copied there by scripts/bundle.js: loads the bundle of
// `validate` with only its own options (plain-validate.cjs, one CommonJS file) with the V8 code
// cache the build made of it (plain-validate.cjs.<build id>.cache). bin/termsync.js requires it
// directly (a CommonJS module, so that such a validate never starts Node's ES module loader);
// main.js reaches it through dist/bundle/plain-validate.js, which re-exports this module.
//
// Why: compiling that file is most of what a short validate costs above a bare node (parsing half
// a megabyte of libraries, then compiling each function on its first call). Node 22 caches
// compiled code by itself (module.enableCompileCache); Node 20 has only vm.Script's cachedData,
// and only for scripts, not ES modules, hence the CommonJS bundle. The build runs validate once on
// the example repository and keeps the code V8 compiled for it (scripts/bundle.js).
//
// The cache only saves compiling: V8 refuses one made for another source length, V8 version or
// set of V8 flags (then the file is compiled from its source as usual), but it does not look at the
// source's content. So the build ends plain-validate.cjs with an id of its own (BUILD_ID_MARK) and
// names the cache after it: a cache from another build (two builds racing in one tree) is never
// found. This loader also ignores a cache older than the source (a bundle edited by hand). Its
// absence is no error. Nothing is written at run time.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const SOURCE = path.join(__dirname, 'plain-validate.cjs');
/** The last line of plain-validate.cjs: this mark and the build's id. */
const BUILD_ID_MARK = '//# termsync-build-id=';

/** The code cache's file for the build whose id ends `source`; undefined when the source has none. */
function codeCacheFile(source) {
  const at = source.lastIndexOf(BUILD_ID_MARK);
  if (at === -1) return undefined;
  const id = source.slice(at + BUILD_ID_MARK.length).trim();
  return /^[0-9a-f]{16,64}$/.test(id) ? `${SOURCE}.${id}.cache` : undefined;
}

/** The cache of this very build, when there is one at least as recent as the source. */
function readCodeCache(source) {
  const file = codeCacheFile(source);
  if (file === undefined) return undefined;
  try {
    return statSync(file).mtimeMs >= statSync(SOURCE).mtimeMs ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles and runs plain-validate.cjs as Node runs a CommonJS module: the file is the function
 * of Node's wrapper (the build writes it so, plus a parameter for import.meta.url), compiled as it
 * is read, and called here; with `cache: false` from its source alone (the build, making the
 * cache). Returns the module's exports, the compiled script (`script.cachedDataRejected` is
 * undefined when no cache was given) and the source.
 */
function compilePlainValidate({ cache = true } = {}) {
  const source = readFileSync(SOURCE, 'utf8');
  const script = new vm.Script(source, {
    filename: SOURCE,
    cachedData: cache ? readCodeCache(source) : undefined,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(SOURCE), module, SOURCE, path.dirname(SOURCE), pathToFileURL(SOURCE).href);
  return { exports: module.exports, script, source };
}

/** cli/plain-validate.ts's runPlainValidate. */
function runPlainValidate(options, io) {
  return compilePlainValidate().exports.runPlainValidate(options, io);
}

module.exports = { BUILD_ID_MARK, codeCacheFile, compilePlainValidate, runPlainValidate };
