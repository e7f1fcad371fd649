import { InputError } from '../lib/errors.js';

export interface KeyGrant {
  readonly key: string;
  readonly readOnly: boolean;
}

/** `KEY` or `KEY=read` (a key scoped to reads). */
export function parseKeys(keys: readonly string[]): KeyGrant[] {
  return keys.map((spec) => {
    const eq = spec.lastIndexOf('=');
    const key = eq === -1 ? spec : spec.slice(0, eq);
    const scope = eq === -1 ? 'full' : spec.slice(eq + 1);
    if (scope !== 'full' && scope !== 'read') {
      throw new InputError('invalid_keys', `invalid key scope "${scope}": expected KEY or KEY=read`);
    }
    if (key === '' || /\s/.test(key)) throw new InputError('invalid_keys', 'invalid key in --keys: a key must be non-empty and hold no spaces');
    return { key, readOnly: scope === 'read' };
  });
}
