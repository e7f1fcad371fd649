import { displayPhrase } from './format-plan.js';

/**
 * A zero-width space as an entity: placed after `@` or before the number of a reference, the text
 * reads the same but the code host no longer links it (a mention notifies people; `#123` adds an
 * event to that issue). Code hosts' own bots neutralise references this way.
 */
const BREAK = '&#8203;';

/**
 * Code-host references in text: `@name` (mentions, also `@org/team`), `#123` (also `owner/repo#123`),
 * `GH-123`, `!123` (a GitLab merge request) and `&123` (a GitLab epic). Code spans and code blocks
 * need none of this: neither platform links anything inside them.
 */
function neutraliseReference(match: string): string {
  if (match === '@') return `@${BREAK}`;
  if (match === '&') return `&amp;${BREAK}`;
  return `${match}${BREAK}`;
}

/** One pass, so that the entities written here are never escaped or broken again. */
const MARKDOWN_SPECIAL = /@|[#!](?=\d)|&(?=\d)|(?<=\bGH)-(?=\d)|[&<>\\`*_[\]|~]/gi;
const HTML_SPECIAL = /@|[#!](?=\d)|&(?=\d)|(?<=\bGH)-(?=\d)|[&<>"]/gi;

const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * Text from the repository or the service (names, terms, reasons) placed in markdown: it must not
 * break a table, open a code span, start formatting, inject HTML, mention people or link issues.
 */
export function escapeMarkdown(text: string): string {
  return displayPhrase(text).replace(MARKDOWN_SPECIAL, (c, offset: number, whole: string) => {
    if (c === '@' || isReference(c, offset, whole)) return neutraliseReference(c);
    return ENTITY[c] ?? `\\${c}`;
  });
}

/** Text inside an HTML element (a `<summary>`), where markdown is not interpreted but mentions are. */
export function escapeHtml(text: string): string {
  return displayPhrase(text).replace(HTML_SPECIAL, (c, offset: number, whole: string) => {
    if (c === '@' || isReference(c, offset, whole)) return neutraliseReference(c);
    return ENTITY[c] ?? c;
  });
}

/** `#`, `!`, `&` or the `-` of `GH-` right before a digit (the regex matched them only there, or as plain specials). */
function isReference(c: string, offset: number, whole: string): boolean {
  if (c !== '#' && c !== '!' && c !== '&' && c !== '-') return false;
  return /\d/.test(whole.charAt(offset + 1));
}

/** A code fence longer than any run of backticks inside the block. */
export function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}
