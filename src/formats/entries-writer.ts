import type { DictionaryContent, EntriesWriter } from './entries-format.js';

// ignoreBOM: a byte order mark is kept as text, so that the rewrite keeps it (the default drops it).
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** A writer of a text format whose files feed one dictionary each (applied in turn when several share one). */
export function textWriter(extensions: readonly string[], rewrite: (text: string, content: DictionaryContent) => string, create: (content: DictionaryContent) => string): EntriesWriter {
  return {
    extensions,
    rewrite: (content, dictionaries) => encoder.encode(dictionaries.reduce((text, d) => rewrite(text, d), decoder.decode(content))),
    create: (dictionaries) => encoder.encode(dictionaries.map((d) => create(d)).join('')),
  };
}
