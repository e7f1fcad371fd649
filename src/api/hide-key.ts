import { LOWERCASED_FROM } from '../lib/redact-keys.js';

/**
 * `value` with every occurrence of the API key taken out: for what the client makes a message of
 * (an error body, a header, a value named in a message), before anything cuts, clips or lowercases
 * it (a cut key would no longer be found). A server can write the key with JSON escapes
 * (`\u0073ecret…`), which decode to the key itself: a decoded error body passes here (withoutKey);
 * a language code is lowercased as it is decoded, so the lowercased key is taken out too (from
 * LOWERCASED_FROM characters on).
 * Never for data (names, ids, entries): see KeyRedactor, where outputs take the key out.
 */
export function hideKey(value: string, apiKey: string): string {
  if (apiKey.length === 0) return value;
  let out = value;
  // Lowercased too: a language code is canonicalised (lowercased) as it is decoded (not for a short
  // key, whose lowercase form is a word: see KeyRedactor).
  const lower = apiKey.toLowerCase();
  for (const form of apiKey.length >= LOWERCASED_FROM && lower !== apiKey ? [apiKey, lower] : [apiKey]) if (out.includes(form)) out = out.split(form).join('[redacted]');
  return out;
}

/**
 * Whether decoding `text` (JSON whose raw form holds no occurrence of the key: hideKey took them
 * out) could give the key back: only if the text writes a character with an escape that the
 * key holds — `\u` for any character; `\/`, `\\`, `\"` and the control escapes for those the key has.
 */
export function mayDecodeToKey(text: string, apiKey: string): boolean {
  if (apiKey.length === 0 || !text.includes('\\')) return false;
  if (text.includes('\\u')) return true;
  // eslint-disable-next-line no-control-regex
  return /[/\\"\x00-\x1f]/.test(apiKey);
}

/**
 * A value JSON.parse made of `text`, with the API key taken out of every string in it, object keys
 * included (a field name is shown in the messages of an answer that does not fit its schema). The
 * value itself when decoding could not give the key back (mayDecodeToKey), as for nearly every
 * answer: then nothing is walked.
 */
export function withoutKey(value: unknown, text: string, apiKey: string): unknown {
  if (!mayDecodeToKey(text, apiKey)) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return hideKey(v, apiKey);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[hideKey(k, apiKey)] = walk(inner);
      return out;
    }
    return v;
  };
  return walk(value);
}
