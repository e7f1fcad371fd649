#!/usr/bin/env node
// CommonJS (bin/package.json): `validate` with only its own options, the run CI jobs make most,
// goes straight to its CommonJS bundle (dist/bundle/plain-validate-loader.cjs) and never starts
// Node's ES module loader, which an ES module entry starts before running a line (about a tenth of
// such a validate's instructions). Every other command line is the ES module bundle's runCli.
'use strict';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => controller.abort(new Error(`received ${signal}`)));
}

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
  signal: controller.signal,
  onHangup: (listener) => {
    process.on('SIGHUP', listener);
    return () => process.off('SIGHUP', listener);
  },
};

/** The exit code of this command line: runCli's, whose own shortcut for a plain validate this is (the same options, the same run). */
async function main(argv) {
  const plain = argv[0] === 'validate' ? require('../dist/bundle/validate-options.cjs').plainValidateOptions(argv.slice(1)) : undefined;
  if (plain !== undefined) return require('../dist/bundle/plain-validate-loader.cjs').runPlainValidate(plain, io);
  const { runCli } = await import('../dist/bundle/termsync.js');
  return runCli(argv, io);
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
