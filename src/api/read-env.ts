import { readFileSync } from 'node:fs';
import { AuthError } from '../lib/errors.js';
import type { TargetConfig } from '../model/desired.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The file holding the key when the target's variable is not set (for secret mounts). */
export const API_KEY_FILE_ENV = 'TERMSYNC_API_KEY_FILE';

/**
 * The key comes only from the environment (or the file named by TERMSYNC_API_KEY_FILE). Messages
 * name the variable or the file, never a value.
 */
export function readApiKey(env: Env, target: Pick<TargetConfig, 'name' | 'apiKeyEnv'>): string {
  const fromEnv = env[target.apiKeyEnv]?.trim();
  if (fromEnv) return checkKey(fromEnv, `the variable ${target.apiKeyEnv}`);
  const file = env[API_KEY_FILE_ENV]?.trim();
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new AuthError('api_key_file_unreadable', `cannot read the API key file named by ${API_KEY_FILE_ENV} (${reason})`);
    }
    const key = text.trim();
    if (key) return checkKey(key, `the file named by ${API_KEY_FILE_ENV}`);
    throw new AuthError('api_key_missing', `the API key file named by ${API_KEY_FILE_ENV} is empty`);
  }
  throw new AuthError(
    'api_key_missing',
    `no API key for target "${target.name}": set ${target.apiKeyEnv} (or ${API_KEY_FILE_ENV})`,
  );
}

// A key goes into a header: control characters or inner whitespace would be a broken (or smuggled) header.
function checkKey(key: string, where: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(key)) {
    throw new AuthError('api_key_invalid', `the API key in ${where} contains whitespace or control characters`);
  }
  return key;
}

/**
 * A missing URL is a problem of the environment, like a missing key, not of the repository: exit 7
 * (destination error), so that scripts branching on 3 ("fix the configuration") are not misled.
 */
export function readBaseUrl(env: Env, target: Pick<TargetConfig, 'name' | 'baseUrlEnv'>): string {
  const value = env[target.baseUrlEnv]?.trim();
  if (!value) {
    throw new AuthError('base_url_missing', `no service URL for target "${target.name}": set ${target.baseUrlEnv}`);
  }
  return value;
}
