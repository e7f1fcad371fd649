import { AuthError } from '../lib/errors.js';
import { readSecretFile } from '../lib/read-secret-file.js';
import type { TargetConfig } from '../model/desired.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** The hosts a key may be sent to (comma-separated), set by whoever runs termsync, never by the repository. */
export const ALLOWED_HOSTS_ENV = 'TERMSYNC_ALLOWED_HOSTS';

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
    const key = readKeyFile(file).trim();
    if (key) return checkKey(key, `the file named by ${API_KEY_FILE_ENV}`);
    throw new AuthError('api_key_missing', `the API key file named by ${API_KEY_FILE_ENV} is empty`);
  }
  throw new AuthError(
    'api_key_missing',
    `no API key for target "${target.name}": set ${target.apiKeyEnv} (or ${API_KEY_FILE_ENV})`,
  );
}

/** A key file holds one key and a line break; anything larger is not a key file. */
export const MAX_KEY_FILE_BYTES = 4096;

/**
 * The text of the key file: a regular file of at most MAX_KEY_FILE_BYTES; anything else is refused
 * before a byte is read (see lib/read-secret-file.ts).
 */
function readKeyFile(file: string): string {
  return readSecretFile(file, MAX_KEY_FILE_BYTES, 'key', (why) => new AuthError('api_key_file_unreadable', `cannot read the API key file named by ${API_KEY_FILE_ENV} (${why})`));
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

// A host name (letters, digits, dots, hyphens) or an IPv6 address in brackets, optionally with a port.
const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The hosts of TERMSYNC_ALLOWED_HOSTS, lowercased, or undefined when it is not set (or empty: an
 * unset CI variable often arrives as an empty string). An entry that is not a host name is an
 * error of the environment (exit 7), never silently ignored.
 */
export function readAllowedHosts(env: Env): readonly string[] | undefined {
  const raw = env[ALLOWED_HOSTS_ENV];
  if (raw === undefined || raw.trim() === '') return undefined;
  const hosts: string[] = [];
  for (const part of raw.split(',')) {
    const entry = part.trim().toLowerCase();
    if (entry === '') continue;
    if (!HOST_ENTRY.test(entry)) {
      throw new AuthError('allowed_hosts_invalid', `${ALLOWED_HOSTS_ENV}: "${entry}" is not a host name; write host names separated by commas, without https:// or a path (e.g. api.example.com)`);
    }
    hosts.push(entry.replace(/\.(?=$|:)/, ''));
  }
  if (hosts.length === 0) throw new AuthError('allowed_hosts_invalid', `${ALLOWED_HOSTS_ENV} lists no host name (e.g. api.example.com)`);
  return hosts;
}

/**
 * With TERMSYNC_ALLOWED_HOSTS set, the key goes only to those hosts: a service URL whose host is not
 * listed (a port, when listed, must match too) is refused before the key is read (exit 7).
 */
export function checkAllowedHost(env: Env, target: Pick<TargetConfig, 'name' | 'baseUrlEnv'>, baseUrl: string): void {
  const allowed = readAllowedHosts(env);
  if (allowed === undefined) return;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return; // Not a URL: checkBaseUrl refuses it with its own message.
  }
  const hostname = url.hostname.toLowerCase().replace(/\.$/, '');
  const host = url.port === '' ? hostname : `${hostname}:${url.port}`;
  if (allowed.includes(hostname) || allowed.includes(host)) return;
  throw new AuthError(
    'host_not_allowed',
    `host not allowed: the service URL of target "${target.name}" (from ${target.baseUrlEnv}) goes to ${host}, which ${ALLOWED_HOSTS_ENV} does not list (${allowed.join(', ')}); the API key is not sent`,
  );
}
