#!/usr/bin/env node
// CommonJS (bin/package.json): `validate` with only its own options, the run CI jobs make most,
// goes straight to its CommonJS bundle (dist/bundle/plain-validate-loader.cjs) and never starts
// Node's ES module loader, which an ES module entry starts before running a line (about a tenth of
// such a validate's instructions). Every other command line is the ES module bundle's runCli.
'use strict';

// The first SIGINT or SIGTERM stops the run (what is in flight is answered first); the next one of
// either ends the process at once (Node's default, once the handlers are gone).
const controller = new AbortController();
const SIGNALS = ['SIGINT', 'SIGTERM'];
const onSignal = (signal) => {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  controller.abort(new Error(`received ${signal}`));
};
for (const signal of SIGNALS) process.on(signal, onSignal);

// A reader that went away (`termsync validate | head -1`) is not an error of ours: stop writing
// and leave quietly instead of crashing with an unhandled 'error' event and its stack trace.
let closed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
    process.exit(process.exitCode ?? 0);
  });
}

const io = {
  stdout: (text) => {
    if (!closed) process.stdout.write(text);
  },
  stderr: (text) => {
    if (!closed) process.stderr.write(text);
  },
  env: process.env,
  cwd: process.cwd(),
  // How the user started termsync (a clone's bin/termsync.js, a link on PATH, npx): hints name the command that works.
  script: process.argv[1],
  signal: controller.signal,
  onHangup: (listener) => {
    process.on('SIGHUP', listener);
    return () => process.off('SIGHUP', listener);
  },
};

/** The plain validate's options and runner, or undefined: another command line, or the bundle's CommonJS files cannot be loaded. */
function plainValidate(argv) {
  if (argv[0] !== 'validate') return undefined;
  try {
    const options = require('../dist/bundle/validate-options.cjs').plainValidateOptions(argv.slice(1));
    if (options === undefined) return undefined;
    return { options, run: require('../dist/bundle/plain-validate-loader.cjs').runPlainValidate };
  } catch {
    // A bundle file missing or unreadable (a checkout not rebuilt, a broken install): runCli
    // answers instead, and says what is wrong in one line.
    return undefined;
  }
}

/**
 * The ES module bundle. A build (scripts/bundle.js) renames the new bundle into place right after
 * renaming the old one aside: a command that starts in that instant finds none, and looks once more.
 */
async function loadBundle() {
  try {
    return await import('../dist/bundle/termsync.js');
  } catch (error) {
    if (error === null || typeof error !== 'object' || error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    await new Promise((resolve) => setTimeout(resolve, 100));
    return import('../dist/bundle/termsync.js');
  }
}

/** The exit code of this command line: runCli's, whose own shortcut for a plain validate this is (the same options, the same run). */
async function main(argv) {
  const plain = plainValidate(argv);
  if (plain !== undefined) return plain.run(plain.options, io);
  const { runCli } = await loadBundle();
  return runCli(argv, io);
}

// What runCli cannot answer itself (the bundle cannot be loaded at all) is said in one line, as
// runCli says an internal error: exit 1, no stack trace unless TERMSYNC_DEBUG is set.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    io.stderr(`Internal error (a bug in termsync, please report it): ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.TERMSYNC_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    process.exitCode = 1;
  },
);
