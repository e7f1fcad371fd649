/**
 * The service's glossary size limit; a TSV or CSV entries file larger than this is refused before
 * it is read (a bound on memory), even though CRLF, quoting or padding may make a file larger than
 * the entries it uploads: the message says so.
 */
export const MAX_ENTRIES_FILE_BYTES = 10 * 1024 * 1024;

/** Why a TSV or CSV entries file of `size` bytes is not read. */
export function textTooLarge(shown: string, size: number): string {
  return `\`entries_file\` ${shown} is ${size} bytes, so it is not read: the 10 MiB limit (${MAX_ENTRIES_FILE_BYTES} bytes) applies to the glossary's entries as uploaded (TSV, all dictionaries together), and a larger file may hold fewer bytes of entries because of CRLF line breaks, CSV quoting, language columns or padding: save it as TSV with LF line breaks and no padding, or split the entries over several glossaries`;
}
