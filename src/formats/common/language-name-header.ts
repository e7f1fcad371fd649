import { canonicalLang } from '../../lib/canonical.js';
import { error, type Diagnostic } from '../../lib/diagnostics.js';
import { ENGLISH_LANGUAGE_NAMES } from '../../lib/languages.js';
import type { LanguagePair } from '../../model/entries.js';

/** The English names a code goes by, lowercased: its base language's (`en-gb`: english). */
function namesOf(code: string): readonly string[] {
  return (ENGLISH_LANGUAGE_NAMES as Readonly<Record<string, readonly string[] | undefined>>)[code.split('-')[0] ?? code] ?? [];
}

/**
 * Whether a row is exactly the English names of the pair's languages (any case, spaces around
 * aside). The writers (pull, import) put a header row before an entry that would come first and
 * read so, as they do before one that reads as a header.
 */
export function namesThePair(fields: readonly string[], pair: LanguagePair): boolean {
  if (fields.length !== 2) return false;
  const [source = '', target = ''] = fields.map((field) => field.trim().toLowerCase());
  return namesOf(canonicalLang(pair.sourceLang)).includes(source) && namesOf(canonicalLang(pair.targetLang)).includes(target);
}

/**
 * A per-dictionary file's first row that names the pair's languages instead of being an entry or
 * one of the header rows the contract lists (`English,German` for en → de, any case): refused at
 * the row, saying which header to write. Never an entry (no term translates a language's name into
 * the other language's name), never silently a header (the header rows stay the listed ones, which
 * every reader and `pull` agree on). Undefined for any other row.
 */
export function languageNameHeader(fields: readonly string[], pair: LanguagePair, separator: string, file: string, line: number): Diagnostic | undefined {
  if (!namesThePair(fields, pair)) return undefined;
  const codes = `${canonicalLang(pair.sourceLang)}${separator}${canonicalLang(pair.targetLang)}`;
  return error(
    'entries/language-name-header',
    `the first row names the pair's languages (${fields.map((f) => f.trim()).join(', ')}): it is not an entry, and a header row is the pair's codes (\`${codes}\`) or another of the listed headers; write \`${codes}\` instead, or remove the row`,
    file,
    line,
    1,
  );
}
