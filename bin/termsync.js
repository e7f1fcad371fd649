#!/usr/bin/env node
import { runCli } from '../dist/bundle/termsync.js';

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

const code = await runCli(process.argv.slice(2), {
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
});
process.exitCode = code;
