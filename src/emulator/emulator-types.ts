import type { Logger } from '../lib/logger.js';

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8787; 0 = any free port. */
  port?: number;
  /** 'KEY' or 'KEY=read'; absent → any non-empty key is valid, each key its own account. */
  keys?: string[];
  /** Contract syntax: '429=0.2,529=0.05,456=0.1,500=0.1,503=0.1,reset=0.05,latency=5-30'. */
  faults?: string;
  /** 429 once a key sends more than N requests in any sliding 1000 ms window. */
  rateLimit?: number;
  /** Deterministic ids and fault draws. */
  seed?: number;
  /** Injected time: tests drive Retry-After and the rate limit with fake time. */
  clock?: { now(): number };
  /** Where to log one line per request (never the key); silent by default. */
  logger?: Logger;
  /** The scheme the Authorization header must use (default `Service-Auth-Key`, as the spec says). */
  authScheme?: string;
  /** Behaviours of other servers of this API family; none by default (the emulator follows the spec). */
  behaviour?: EmulatorBehaviour;
}

/**
 * Ways other servers of this API family differ from the spec (observed on the vendor's own mock
 * server), each off by default, so that the client is tested against them.
 */
export interface EmulatorBehaviour {
  /** Serve `DELETE /v3/style_rules/{id}/custom_instructions/{instruction_id}` (not in the spec: 405 without it). */
  readonly deleteInstruction?: boolean;
  /** `POST .../custom_instructions` answers with just the new instruction instead of the whole list. */
  readonly instructionAnswer?: boolean;
  /** An instruction created without `source_language` gets the list's language. */
  readonly fillSourceLanguage?: boolean;
  /** `PUT .../custom_instructions/{id}` without `source_language` clears it (instead of keeping it). */
  readonly resetSourceLanguage?: boolean;
  /** v2 and v3 glossaries in separate stores: `/v3/glossaries` lists no v2 glossary and `/v2/glossaries` no v3 one. */
  readonly separateStores?: boolean;
}

/** The names of the behaviours on the command line (`--behave`), and `vendor-mock` for all of them. */
export const BEHAVIOUR_FLAGS: Readonly<Record<string, keyof EmulatorBehaviour>> = {
  'delete-instruction': 'deleteInstruction',
  'instruction-answer': 'instructionAnswer',
  'fill-source-language': 'fillSourceLanguage',
  'reset-source-language': 'resetSourceLanguage',
  'separate-stores': 'separateStores',
};

export interface RequestLogEntry {
  seq: number;
  time: number;
  method: string;
  path: string;
  query: string;
  status: number | 'reset';
  /** A label such as `acct-1`, never the key; `-` when the request was not authenticated. */
  account: string;
  /** Why the request failed on purpose: `429`, `456`, `500`, `503`, `529`, `reset`, `reset_after` or `rate_limit`. */
  fault?: string;
  bodyBytes: number;
}

export interface InjectOnceFault {
  method?: string;
  pathPrefix?: string;
  kind: 'reset' | 'reset_after' | 429 | 456 | 500 | 503 | 529;
  retryAfter?: number;
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:43211 */
  url: string;
  /** The request log (control endpoints are not in it). */
  requests(): readonly RequestLogEntry[];
  /** Wipes all accounts' data and the log. */
  reset(): void;
  /** Changes the fault spec at runtime ('' = none); throws InputError on a bad spec. */
  setFaults(spec: string): void;
  /** The next matching request gets this fault. */
  injectOnce(fault: InjectOnceFault): void;
  close(): Promise<void>;
}
