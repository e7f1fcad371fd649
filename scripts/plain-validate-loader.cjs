// dist/bundle/plain-validate-loader.cjs, copied there by scripts/bundle.js: loads the bundle of
// `validate` with only its own options (plain-validate.cjs, one CommonJS file) with a V8 code cache
// of it. bin/termsync.js requires it directly (a CommonJS module, so that such a validate never
// starts Node's ES module loader); main.js reaches it through dist/bundle/plain-validate.js, which
// re-exports this module.
//
// Why: compiling that file is most of what a short validate costs above a bare node (parsing half
// a megabyte of libraries, then compiling each function on its first call). Node 22 caches
// compiled code by itself (module.enableCompileCache); Node 20 has only vm.Script's cachedData,
// and only for scripts, not ES modules, hence the CommonJS bundle. With a cache, a validate of the
// example repository takes about a quarter less CPU time (bench/package-size.js measures it).
//
// A code cache is only good for the V8 that made it (its version, its flags), so none is
// published: the package must run on every Node from 20.19 on. It is made where it will be used:
//   - next to the source (plain-validate.cjs.<build id>.cache): by the build in a checkout (the
//     building Node is the running one), or at install (the container image: build and runtime
//     share one base image; deploy/container/install-runtime.sh calls writeCodeCache);
//   - else in the user's cache folder ($XDG_CACHE_HOME/termsync, ~/.cache/termsync, or
//     <tmpdir>/termsync-<uid> where there is no home or it cannot be written), named after the
//     build and the V8 version: the first validate that found no usable cache writes one after it
//     has run (so it holds the functions a validate compiled), and later ones use it.
// A cache is read from the user's folder only when that folder and the file belong to the user and
// no one else may write to them (code read from there runs as the user). NODE_DISABLE_COMPILE_CACHE
// (Node's own switch for its compile cache) turns the user's cache off: nothing is read from it or
// written to it. Any failure to read or write a cache is silent: the file is compiled from its source.
//
// V8 refuses a cache made for another source length, V8 version or set of flags, but it does not
// look at the source's content. So the build ends plain-validate.cjs with an id of its own
// (BUILD_ID_MARK) and every cache is named after it: a cache of another build is never found. This
// loader also ignores a cache older than the source (a bundle edited by hand).
'use strict';
const { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const os = require('node:os');
const process = require('node:process');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const SOURCE = path.join(__dirname, 'plain-validate.cjs');
/** The last line of plain-validate.cjs: this mark and the build's id. */
const BUILD_ID_MARK = '//# termsync-build-id=';
/** Caches kept in the user's folder (of builds and Node versions used lately); older ones are removed when one is written. */
const KEEP_USER_CACHES = 4;

/** The build's id at the end of `source`; undefined when it has none. */
function buildIdOf(source) {
  const at = source.lastIndexOf(BUILD_ID_MARK);
  if (at === -1) return undefined;
  const id = source.slice(at + BUILD_ID_MARK.length).trim();
  return /^[0-9a-f]{16,64}$/.test(id) ? id : undefined;
}

/** The code cache next to the source, for the build whose id ends `source`; undefined when the source has none. */
function codeCacheFile(source) {
  const id = buildIdOf(source);
  return id === undefined ? undefined : `${SOURCE}.${id}.cache`;
}

/** The user's cache folders, in the order they are tried; none when NODE_DISABLE_COMPILE_CACHE is set. */
function userCacheDirs(env = process.env) {
  if (env.NODE_DISABLE_COMPILE_CACHE) return [];
  const dirs = [];
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) dirs.push(path.join(env.XDG_CACHE_HOME, 'termsync'));
  else if (env.HOME && path.isAbsolute(env.HOME)) dirs.push(path.join(env.HOME, '.cache', 'termsync'));
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  dirs.push(path.join(os.tmpdir(), `termsync-${uid ?? os.userInfo().username}`));
  return dirs;
}

/** The cache's name in a user's folder: the build and the V8 that compiled it. */
function userCacheName(source) {
  const id = buildIdOf(source);
  return id === undefined ? undefined : `plain-validate.cjs.${id}.v8-${process.versions.v8.replace(/[^\w.-]/g, '_')}-${process.arch}.cache`;
}

/** Whether a file or folder belongs to this user and no one else may write to it (always true where there are no uids). */
function ownedAlone(stats) {
  if (typeof process.getuid !== 'function') return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/** The bytes of a cache file at least as recent as the source; undefined otherwise. `trusted`: check who owns it and its folder. */
function readCache(file, sourceTime, trusted) {
  let fd;
  try {
    if (!trusted && !ownedAlone(statSync(path.dirname(file)))) return undefined;
    fd = openSync(file, 'r');
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.mtimeMs < sourceTime || (!trusted && !ownedAlone(stats))) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The cache to hand V8: next to the source, else in the user's folder; and where it came from. */
function findCodeCache(source) {
  let sourceTime;
  try {
    sourceTime = statSync(SOURCE).mtimeMs;
  } catch {
    return undefined;
  }
  const beside = codeCacheFile(source);
  const found = beside === undefined ? undefined : readCache(beside, sourceTime, true);
  if (found !== undefined) return { data: found, file: beside };
  const name = userCacheName(source);
  if (name === undefined) return undefined;
  for (const dir of userCacheDirs()) {
    const data = readCache(path.join(dir, name), sourceTime, false);
    if (data !== undefined) return { data, file: path.join(dir, name) };
  }
  return undefined;
}

/** Writes `data` to `file` whole or not at all (a temporary file renamed: a concurrent reader sees the old file or the new). */
function writeWhole(file, data) {
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // never written
    }
    throw error;
  }
}

/** Removes all but the newest KEEP_USER_CACHES caches of a user's folder. */
function pruneUserCaches(dir) {
  const caches = readdirSync(dir)
    .filter((name) => /^plain-validate\.cjs\..+\.cache$/.test(name))
    .map((name) => {
      try {
        return { name, time: statSync(path.join(dir, name)).mtimeMs };
      } catch {
        return { name, time: 0 };
      }
    })
    .sort((a, b) => b.time - a.time);
  for (const { name } of caches.slice(KEEP_USER_CACHES)) {
    try {
      unlinkSync(path.join(dir, name));
    } catch {
      // another process removed it first
    }
  }
}

/**
 * Writes the code cache of a compiled (and run) plain-validate.cjs: `beside` next to the source
 * (the build, an install), else into the first of the user's folders that takes it. Returns the
 * file written, or undefined when none could be (never throws).
 */
function writeCodeCache({ script, source }, { beside = false } = {}) {
  let data;
  try {
    data = script.createCachedData();
  } catch {
    return undefined;
  }
  if (beside) {
    const file = codeCacheFile(source);
    if (file === undefined) return undefined;
    try {
      writeWhole(file, data);
      return file;
    } catch {
      return undefined;
    }
  }
  const name = userCacheName(source);
  if (name === undefined) return undefined;
  for (const dir of userCacheDirs()) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!ownedAlone(statSync(dir))) continue;
      writeWhole(path.join(dir, name), data);
      pruneUserCaches(dir);
      return path.join(dir, name);
    } catch {
      // not writable (a read-only home in a container): the next folder
    }
  }
  return undefined;
}

/**
 * Compiles and runs plain-validate.cjs as Node runs a CommonJS module: the file is the function
 * of Node's wrapper (the build writes it so, plus a parameter for import.meta.url), compiled as it
 * is read, and called here; with `cache: false` from its source alone (the build, making the
 * cache). Returns the module's exports, the compiled script (`script.cachedDataRejected` is
 * undefined when no cache was given), the source and the cache file used, if any.
 */
function compilePlainValidate({ cache = true } = {}) {
  const source = readFileSync(SOURCE, 'utf8');
  const found = cache ? findCodeCache(source) : undefined;
  const script = new vm.Script(source, { filename: SOURCE, cachedData: found?.data });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(SOURCE), module, SOURCE, path.dirname(SOURCE), pathToFileURL(SOURCE).href);
  return { exports: module.exports, script, source, cacheFile: found?.file };
}

/** plain-validate.cjs compiled and run once per thread: the plain validate and the shared libraries come from the same copy. */
let loaded;
function loadPlainValidate() {
  loaded ??= compilePlainValidate();
  return loaded;
}

/** cli/plain-validate.ts's runPlainValidate; when no cache was usable, the run's compiled code is cached for the next. */
async function runPlainValidate(options, io) {
  const compiled = loadPlainValidate();
  const code = await compiled.exports.runPlainValidate(options, io);
  if (compiled.script.cachedDataRejected !== false) writeCodeCache(compiled);
  return code;
}

/**
 * A library the ES module chunks share with plain-validate.cjs (scripts/bundle.js, SHARED). When
 * no cache was usable, the code compiled by the time the main thread exits is cached for the next
 * run (a worker thread leaves it to the main thread).
 */
function sharedLibrary(specifier) {
  const first = loaded === undefined;
  const compiled = loadPlainValidate();
  if (first && compiled.script.cachedDataRejected !== false && require('node:worker_threads').isMainThread) {
    process.once('exit', () => writeCodeCache(compiled));
  }
  const library = compiled.exports.sharedLibraries[specifier];
  if (library === undefined) throw new Error(`plain-validate.cjs has no shared library ${specifier}`);
  return library;
}

module.exports = { BUILD_ID_MARK, codeCacheFile, compilePlainValidate, runPlainValidate, sharedLibrary, userCacheDirs, writeCodeCache };
