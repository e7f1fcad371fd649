import { InputError } from '../lib/errors.js';

export type FaultStatus = 429 | 456 | 500 | 503 | 529;
export const FAULT_STATUSES: readonly FaultStatus[] = [429, 456, 500, 503, 529];

/** Parsed `--faults` spec: a rate per fault kind and an optional latency range in ms. */
export interface FaultSpec {
  readonly rates: Readonly<Record<FaultStatus | 'reset', number>>;
  readonly latency: { readonly min: number; readonly max: number } | undefined;
}

export const NO_FAULTS: FaultSpec = {
  rates: { 429: 0, 456: 0, 500: 0, 503: 0, 529: 0, reset: 0 },
  latency: undefined,
};

/**
 * Parses `429=0.2,529=0.05,reset=0.05,latency=5-30`. Rates are probabilities from 0 to 1 and
 * together at most 1 (one draw decides per request). Throws InputError saying what was expected.
 */
export function parseFaultSpec(spec: string): FaultSpec {
  const rates: Record<FaultStatus | 'reset', number> = { ...NO_FAULTS.rates };
  let latency: FaultSpec['latency'];
  const trimmed = spec.trim();
  if (trimmed === '') return NO_FAULTS;
  const seen = new Set<string>();
  for (const rawPart of trimmed.split(',')) {
    const part = rawPart.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) throw new InputError('invalid_faults', `invalid fault spec: expected KIND=VALUE, got "${part}"`);
    const kind = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (seen.has(kind)) throw new InputError('invalid_faults', `invalid fault spec: "${kind}" is given twice`);
    seen.add(kind);
    if (kind === 'latency') {
      const match = /^(\d{1,6})-(\d{1,6})$/.exec(value);
      if (!match) throw new InputError('invalid_faults', `invalid fault spec: expected latency=MIN-MAX in milliseconds, got "latency=${value}"`);
      const min = Number(match[1]);
      const max = Number(match[2]);
      if (min > max) throw new InputError('invalid_faults', `invalid fault spec: latency minimum ${min} is above its maximum ${max}`);
      latency = { min, max };
      continue;
    }
    const key = kind === 'reset' ? 'reset' : (FAULT_STATUSES.find((s) => String(s) === kind) ?? undefined);
    if (key === undefined) {
      throw new InputError('invalid_faults', `invalid fault spec: unknown kind "${kind}" (expected 429, 456, 500, 503, 529, reset or latency)`);
    }
    if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(value)) {
      throw new InputError('invalid_faults', `invalid fault spec: expected a rate from 0 to 1 for "${kind}", got "${value}"`);
    }
    rates[key] = Number(value);
  }
  const total = Object.values(rates).reduce((a, b) => a + b, 0);
  if (total > 1 + 1e-9) throw new InputError('invalid_faults', `invalid fault spec: the rates add up to ${total}, more than 1`);
  return { rates, latency };
}
