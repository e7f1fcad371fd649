import { createRequire } from 'node:module';
import type * as V8 from 'node:v8';

/**
 * V8 flags that keep undici's HTTP parser (llhttp, WebAssembly compiled once per process when the
 * first connection opens) on the baseline code of its first compilation (Liftoff): no tier-up to
 * the optimising compiler (TurboFan), neither when a function has run enough (dynamic tiering) nor
 * in the background at once (the tier-up without it). With V8's defaults the parser's main function
 * was compiled again after the first answer of every command: 0.1-0.4 s of CPU and 29 MB (42 MB in
 * all) of compiler memory on a background thread (`node --trace-wasm-compilation-times`: "using
 * TurboFan, took 95 ms and 29469384 / 42608184 max/total bytes"), for a parser that reads no faster
 * afterwards (it reads headers; a body goes through in one step per chunk: 3,000 answers took no
 * more CPU on Liftoff alone). That memory came on top of the first apply of a 10 MiB dictionary's
 * peak (230 MB instead of 195 MB when glibc kept it); a larger tiering budget only put the tier-up
 * off to the thousandth answer or so, into the middle of a large plan. Not `--liftoff-only`, which
 * aborts the process where Liftoff cannot compile a function: without tier-up such a function is
 * still compiled by TurboFan. Both flags are V8's in Node 20 and in later versions of V8 as well.
 */
const PARSER_FLAGS = ['--no-wasm-dynamic-tiering', '--no-wasm-tier-up'];
let parserTierSet = false;

/** Sets PARSER_FLAGS once, before undici compiles its parser (at the first connection of the first agent: createAgent calls it). */
export function keepParserOnBaselineTier(): void {
  if (parserTierSet) return;
  parserTierSet = true;
  // node:v8 only here: loading it costs a command that never talks to the service (validate) some milliseconds.
  const v8 = createRequire(import.meta.url)('node:v8') as typeof V8;
  for (const flag of PARSER_FLAGS) v8.setFlagsFromString(flag);
}
