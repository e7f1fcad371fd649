import type { ReaderRule } from '../entries-format.js';

/** The rules every reader of entries checks (canonical phrases, tables of language columns, concepts): listed in the loader's rule table. */
export const COMMON_READER_RULES: readonly ReaderRule[] = [
  { id: 'entries/duplicate-source', severity: 'error', summary: 'a source phrase given twice in one dictionary (after canonicalisation)' },
  { id: 'entries/control-character', severity: 'error', summary: 'a phrase with a control character' },
  { id: 'entries/tab-or-newline', severity: 'error', summary: 'a phrase with a tab or a line break inside' },
  { id: 'entries/phrase-too-long', severity: 'error', summary: "a phrase over the service's 1024 UTF-8 bytes" },
  { id: 'entries/header-row', severity: 'error', summary: 'a `header_row` past the end of the table' },
  { id: 'entries/no-header-row', severity: 'error', summary: 'a table whose header row names no declared language' },
  { id: 'entries/missing-language-column', severity: 'error', summary: 'a header row without a column for a declared language' },
  { id: 'entries/duplicate-language-column', severity: 'error', summary: 'two columns for one language' },
  { id: 'entries/too-much-text', severity: 'error', summary: 'language columns holding more text than any entries file may' },
  { id: 'entries/bom', severity: 'warning', summary: 'a byte order mark, removed' },
  { id: 'entries/line-ending', severity: 'warning', summary: 'CR or CRLF line breaks, converted to LF' },
  { id: 'entries/not-nfc', severity: 'warning', summary: 'a phrase not in Unicode NFC, normalised' },
  { id: 'entries/whitespace-trimmed', severity: 'warning', summary: 'a phrase with surrounding whitespace, trimmed' },
  { id: 'entries/more-canonical-changes', severity: 'warning', summary: 'how many more phrases canonicalisation changed (after the first 100)' },
  { id: 'entries/blank-line', severity: 'warning', summary: 'a blank line, ignored' },
  { id: 'entries/case-twin', severity: 'warning', summary: 'two source phrases that differ only in case' },
  { id: 'entries/missing-term', severity: 'warning', summary: 'a concept without a term in a declared language, left out of its dictionaries' },
  { id: 'entries/more-missing-terms', severity: 'warning', summary: 'how many more concepts lack a term (after the first 100)' },
  { id: 'entries/language-column-variant', severity: 'warning', summary: 'a language column written as a variant (`de-DE`), read as its glossary language' },
];
