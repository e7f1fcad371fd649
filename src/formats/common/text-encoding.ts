import { isUtf8 } from 'node:buffer';
import { error, type Diagnostic } from '../../lib/diagnostics.js';

/** Offset of the first byte that is not valid UTF-8 (only called once decoding failed). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need < 0) return i;
    for (let k = 1; k <= need; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return i;
}

export function bytePosition(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}


function utf16Order(bytes: Uint8Array): 'little-endian' | 'big-endian' | undefined {
  return bytes[0] === 0xff && bytes[1] === 0xfe ? 'little-endian' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'big-endian' : undefined;
}

/**
 * The located error for bytes that are not valid UTF-8. `setting`: the file may declare another
 * encoding (an entries file's `encoding`), so the message names the one it looks like.
 */
export function invalidUtf8(bytes: Buffer, file: string, code: string, setting = false): Diagnostic {
  // Windows editors and spreadsheets save "Unicode" text as UTF-16 with a byte order mark: name
  // the encoding rather than the first byte (FF or FE, never valid in UTF-8).
  const order = utf16Order(bytes);
  if (order !== undefined) {
    const fix = setting ? 'set `encoding: utf-16` next to `entries_file`, or save the file as UTF-8' : 'save the file as UTF-8';
    return error(code, `saved as UTF-16 (${order}, it starts with a UTF-16 byte order mark): ${fix}`, file, 1, 1);
  }
  const offset = firstInvalidUtf8(bytes);
  const { line, column } = bytePosition(bytes, offset);
  if (!setting) return error(code, `not valid UTF-8 (byte ${offset + 1}): save the file as UTF-8`, file, line, column);
  const like = looksLikeWindows1252(bytes);
  const fix = like
    ? `it looks like Windows-1252 (what Excel and Windows editors write for Western European languages): set \`encoding: windows-1252\` next to \`entries_file\`, or save the file as UTF-8 (in Excel: "CSV UTF-8")`
    : `if it is in another encoding, name it with \`encoding\` next to \`entries_file\` (${TEXT_ENCODINGS.join(', ')}), or save it as UTF-8`;
  return error(code, `not valid UTF-8 (byte ${offset + 1}): ${fix}`, file, line, column);
}

/** The encodings an entries file (TSV or CSV) may declare with `encoding`; UTF-8 is the default. */
export const TEXT_ENCODINGS = ['utf-8', 'windows-1252', 'iso-8859-1', 'utf-16'] as const;
export type TextEncodingName = (typeof TEXT_ENCODINGS)[number];

// Bytes Windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D): a file with one is not in it.
const UNDEFINED_IN_1252: ReadonlySet<number> = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

/**
 * Whether bytes that are not UTF-8 read as Windows-1252 text: no undefined byte, no other control
 * byte than tab and line breaks, and at least one byte above 0x7F that is a letter or a sign of it.
 */
function looksLikeWindows1252(bytes: Uint8Array): boolean {
  let high = 0;
  for (const b of bytes) {
    if (b >= 0x80) {
      if (UNDEFINED_IN_1252.has(b)) return false;
      high++;
    } else if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  }
  return high > 0;
}

/**
 * The text of an entries file in the encoding its resource declares (`encoding`, not UTF-8), or
 * why it cannot be read so. A file that is UTF-8 all the same is refused rather than read as
 * Windows-1252 or Latin-1 (its accented letters would become two letters each: `Größe` →
 * `GrÃ¶ÃŸe`); UTF-16 needs its byte order mark (Excel's "Unicode Text" writes one).
 */
export function decodeDeclared(bytes: Buffer, encoding: Exclude<TextEncodingName, 'utf-8'>, file: string): { text?: string; diagnostic?: Diagnostic } {
  const fail = (message: string, line = 1, column = 1): { diagnostic: Diagnostic } => ({ diagnostic: error('entries-file/encoding', message, file, line, column) });
  const order = utf16Order(bytes);
  if (encoding === 'utf-16') {
    if (order === undefined) return fail('`encoding: utf-16`, but the file does not start with a UTF-16 byte order mark (FF FE or FE FF): save it as "Unicode Text" again, or remove `encoding` if it is UTF-8');
    try {
      return { text: new TextDecoder(order === 'little-endian' ? 'utf-16le' : 'utf-16be', { fatal: true }).decode(bytes) };
    } catch {
      return fail('`encoding: utf-16`, but the file is not valid UTF-16 (an unpaired surrogate, or an odd number of bytes)');
    }
  }
  if (order !== undefined) return fail(`\`encoding: ${encoding}\`, but the file starts with a UTF-16 byte order mark: set \`encoding: utf-16\``);
  if (isUtf8(bytes)) {
    const offset = bytes.findIndex((b) => b >= 0x80);
    if (offset !== -1) {
      const { line, column } = bytePosition(bytes, offset);
      return fail(`\`encoding: ${encoding}\`, but the file is UTF-8 (byte ${offset + 1} starts a UTF-8 character): read as ${encoding}, each accented letter would become two (Größe → GrÃ¶ÃŸe); remove \`encoding\``, line, column);
    }
  }
  return { text: encoding === 'iso-8859-1' ? bytes.toString('latin1') : decodeWindows1252(bytes) };
}

/**
 * The characters of Windows-1252 bytes 0x80 to 0x9F (the WHATWG index; 0x81, 0x8D, 0x8F, 0x90 and
 * 0x9D, undefined, stay the C1 controls, which the entries' checks refuse). Every other byte is the
 * Latin-1 character of its value.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Windows-1252 text. Not Node's TextDecoder: on Node 20 its `windows-1252` decodes 0x80–0x9F as
 * Latin-1 (C1 controls where Excel wrote €, “ ” and –; fixed in Node 23), and no library of the
 * project decodes it.
 */
function decodeWindows1252(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as string);
}

