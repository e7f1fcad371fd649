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
  rules: [
    { id: 'entries/not-tbx', severity: 'error', summary: 'a .tbx file that is not TBX' },
    { id: 'entries/malformed-xml', severity: 'error', summary: 'malformed XML in a TBX file' },
    { id: 'entries/xml-doctype', severity: 'error', summary: 'an XML document type declaration with an internal subset (entities)' },
    { id: 'entries/xml-too-deep', severity: 'error', summary: 'XML elements nested more than 64 deep' },
    { id: 'entries/invalid-encoding', severity: 'error', summary: 'a TBX file that is not valid UTF-8 or UTF-16' },
    { id: 'entries/tbx-language', severity: 'error', summary: 'a TBX language section without `xml:lang`' },
    { id: 'entries/tbx-status', severity: 'error', summary: "a TBX term's unknown usage status" },
    { id: 'entries/tbx-status-ignored', severity: 'warning', summary: "a tool's own status field with a value that is no usage status" },
    { id: 'entries/mixed-variants', severity: 'error', summary: 'two variants of one glossary language in a TBX file' },
    { id: 'entries/language-variant', severity: 'warning', summary: 'a TBX `xml:lang` written as a variant, read as its glossary language' },
  ],
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
