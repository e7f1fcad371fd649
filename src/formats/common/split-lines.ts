/** One line of a text file: its content and the line break that ends it (`''` on a last line without one). */
export interface Line {
  readonly text: string;
  readonly eol: string;
}

/** The lines of a text, each with its own line break (LF, CRLF or CR), so that joining them gives the text back. */
export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const breaks = /\r\n|\r|\n/g;
  let start = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    lines.push({ text: text.slice(start, m.index), eol: m[0] });
    start = m.index + m[0].length;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

/** The line break new lines get: the file's first, or LF. */
export function lineBreakOf(lines: readonly Line[]): string {
  return lines.find((l) => l.eol !== '')?.eol ?? '\n';
}

/** Lines joined back, with `added` appended (after a line break, when the last line had none). */
export function joinLines(bom: string, lines: readonly Line[], added: readonly string[]): string {
  if (added.length === 0) return bom + lines.map((l) => l.text + l.eol).join('');
  const eol = lineBreakOf(lines);
  const kept = lines.map((l, i) => l.text + (i === lines.length - 1 && l.eol === '' ? eol : l.eol));
  return bom + kept.join('') + added.map((a) => a + eol).join('');
}
