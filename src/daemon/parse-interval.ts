import { InputError } from '../lib/errors.js';

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration as people write it: `30s`, `5m`, `1h`, `250ms`, or plain seconds (`90`). At least one
 * second and at most a day, so a typo cannot make the daemon hammer a remote or never run.
 */
export function parseInterval(text: string, option: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNITS[match[2] ?? 's'] ?? Number.NaN);
  if (!Number.isFinite(ms) || ms < 1000 || ms > 86_400_000) {
    throw new InputError('invalid_interval', `expected ${option} to be a duration from 1s to 24h such as 30s, 5m or 1h, got "${text}"`);
  }
  return Math.round(ms);
}
