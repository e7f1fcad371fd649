import { isIP } from 'node:net';
import { AuthError } from '../lib/errors.js';

export interface BaseUrl {
  /** `https://host:port`: where requests go (the key is sent nowhere else). */
  readonly origin: string;
  /** Path prefix without a trailing slash (usually empty). */
  readonly prefix: string;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

/**
 * The key travels only over https — or plain http to this machine, for the emulator. Anything else
 * is refused before a single byte is sent (exit 7).
 */
export function checkBaseUrl(raw: string): BaseUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AuthError('url_not_allowed', 'URL not allowed: the service URL is not a valid absolute URL');
  }
  // Anything but http(s) is not shown at all: a variable that holds something else (a key named as
  // the URL by mistake, `abcd…:fx` parses as a URL of scheme `abcd…`) must not be echoed.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AuthError('url_not_allowed', 'URL not allowed: the service URL must start with https:// (or http:// on loopback, for the emulator)');
  }
  // Printed without credentials, query or fragment: only what identifies the destination.
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.username || url.password) {
    throw new AuthError('url_not_allowed', `URL not allowed: ${shown} must not carry credentials`);
  }
  if (url.search || url.hash) {
    throw new AuthError('url_not_allowed', `URL not allowed: ${shown} must not carry a query or fragment`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url.hostname))) {
    return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
  }
  throw new AuthError(
    'url_not_allowed',
    `URL not allowed: ${shown} (expected https, or http on loopback for the emulator)`,
  );
}
