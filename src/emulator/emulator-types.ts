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
}

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
