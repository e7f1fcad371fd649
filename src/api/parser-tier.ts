import { createRequire } from 'node:module';
import type * as V8 from 'node:v8';

/**
 * V8's budget for a WebAssembly function before it is compiled again by its optimising compiler
 * (TurboFan): the largest it takes, so that undici's HTTP parser (llhttp, WebAssembly compiled once
 * per process when the first connection opens) stays on the baseline code of its first compilation
 * (Liftoff) for the first thousand answers or so. With V8's default budget its main function was
 * compiled again after the first answer: 0.1-0.4 s of CPU and some 30-40 MB of compiler memory on
 * a background thread (`node --trace-wasm-compilation-times`: "using TurboFan, took 95 ms and
 * 29469384 / 42608184 max/total bytes"), for a parser that does no faster afterwards (it reads
 * headers; a body goes through in one step per chunk). That memory came on top of the first apply
 * of a 10 MiB dictionary's peak (230 MB instead of 195 MB when glibc kept it). A budget, not
 * `--liftoff-only`: a function Liftoff cannot compile (on some CPU) still gets TurboFan.
 */
const PARSER_TIERING_BUDGET = 2 ** 31 - 1;
let parserTierSet = false;

/** Sets PARSER_TIERING_BUDGET once, before undici compiles its parser (at the first connection of the first agent: createAgent calls it). */
export function keepParserOnBaselineTier(): void {
  if (parserTierSet) return;
  parserTierSet = true;
  // node:v8 only here: loading it costs a command that never talks to the service (validate) some milliseconds.
  (createRequire(import.meta.url)('node:v8') as typeof V8).setFlagsFromString(`--wasm-tiering-budget=${PARSER_TIERING_BUDGET}`);
}
