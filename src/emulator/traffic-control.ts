import { FAULT_STATUSES, NO_FAULTS, type FaultSpec, type FaultStatus } from './parse-faults.js';
import type { Random } from './random.js';

export type FaultKind = 'reset' | 'reset_after' | FaultStatus;

export interface InjectedFault {
  readonly method?: string;
  readonly pathPrefix?: string;
  readonly kind: FaultKind;
  readonly retryAfter?: number;
}

export interface DrawnFault {
  readonly kind: FaultKind;
  readonly retryAfter: number;
}

/**
 * Decides which requests fail on purpose: one-shot injections first (in the order given), then
 * a random draw against the configured rates. 456 is only drawn for glossary endpoints.
 */
export class FaultPlan {
  private spec: FaultSpec = NO_FAULTS;
  private readonly injected: InjectedFault[] = [];

  constructor(private readonly random: Random) {}

  setSpec(spec: FaultSpec): void {
    this.spec = spec;
  }

  inject(fault: InjectedFault): void {
    this.injected.push(fault);
  }

  /** Drops pending one-shots: a reset must not leave a stale fault behind for the next case. */
  clearInjected(): void {
    this.injected.length = 0;
  }

  latencyMs(): number {
    const latency = this.spec.latency;
    if (latency === undefined) return 0;
    return latency.min + Math.floor(this.random() * (latency.max - latency.min + 1));
  }

  draw(method: string, path: string, glossaryPath: boolean): DrawnFault | undefined {
    const index = this.injected.findIndex(
      (f) => (f.method === undefined || f.method.toUpperCase() === method) && (f.pathPrefix === undefined || path.startsWith(f.pathPrefix)),
    );
    if (index !== -1) {
      const [fault] = this.injected.splice(index, 1);
      if (fault !== undefined) return { kind: fault.kind, retryAfter: fault.retryAfter ?? 1 };
    }
    const rates = this.spec.rates;
    const anyRate = rates.reset + FAULT_STATUSES.reduce((sum, s) => sum + rates[s], 0);
    if (anyRate === 0) return undefined;
    const u = this.random();
    let edge = 0;
    for (const kind of ['reset', 429, 529, 456, 500, 503] as const) {
      if (kind === 456 && !glossaryPath) continue;
      edge += rates[kind];
      if (u < edge) return { kind, retryAfter: 1 };
    }
    return undefined;
  }
}

/**
 * Sliding 1000 ms window of accepted requests per key. Returns the Retry-After seconds when the
 * window is full: the time until its oldest request leaves it, rounded up.
 */
export class RateLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly limit: number | undefined) {}

  admit(key: string, now: number): { ok: true } | { ok: false; retryAfter: number } {
    if (this.limit === undefined) return { ok: true };
    let window = this.windows.get(key);
    if (window === undefined) {
      window = [];
      this.windows.set(key, window);
    }
    let drop = 0;
    while (drop < window.length && (window[drop] ?? 0) <= now - 1000) drop += 1;
    if (drop > 0) window.splice(0, drop);
    if (window.length >= this.limit) {
      const oldest = window[0] ?? now;
      return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + 1000 - now) / 1000)) };
    }
    window.push(now);
    return { ok: true };
  }

  clear(): void {
    this.windows.clear();
  }
}
