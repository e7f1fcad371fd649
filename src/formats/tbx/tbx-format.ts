import type { EntriesFormat } from '../entries-format.js';
import { formatTbx } from './format-tbx.js';

/**
 * A TBX file carries far more than its terms (XML markup, notes, definitions, other languages), so
 * it may be larger than the service's 10 MiB: it is parsed in chunks, never held as one string.
 */
export const MAX_TBX_FILE_BYTES = 100 * 1024 * 1024;

/** TBX (ISO 30042): one concept per term entry, a term per language (see parse-tbx.ts). */
export const TBX_FORMAT: EntriesFormat = {
  name: 'tbx',
  extensions: ['.tbx'],
  misnamed: { extensions: ['.xml'], hint: 'name a TBX file .tbx' },
  // It declares its own encoding, and is decoded as it is parsed.
  content: 'bytes',
  maxBytes: MAX_TBX_FILE_BYTES,
  tooLarge: (shown, size) => `\`entries_file\` ${shown} is ${size} bytes, so it is not read: a TBX file may be at most ${MAX_TBX_FILE_BYTES} bytes (100 MiB); split the terminology over several files and glossaries`,
  dialect: [],
  dialectNote: { encoding: 'a TBX file declares its own' },
  concepts: {
    unit: 'line',
    item: 'concept',
    load: async () => {
      const { parseTbx } = await import('./parse-tbx.js');
      const { decodeXmlChunks } = await import('../common/xml-text.js');
      return { read: async ({ bytes }, file, collector, languages, options, diagnostics, pause) => ({ ok: await parseTbx(decodeXmlChunks(bytes), file, collector, options.terms, diagnostics, languages, pause) }) };
    },
  },
  import: { kind: 'glossary', noun: 'TBX file', create: (title, table) => formatTbx(title, table) },
};
