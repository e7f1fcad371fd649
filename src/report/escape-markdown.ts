import { displayPhrase } from './format-plan.js';

/**
 * Text from the repository or the service (names, terms, reasons) placed in markdown: it must not
 * break a table, open a code span, start formatting or inject HTML.
 */
export function escapeMarkdown(text: string): string {
  return displayPhrase(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`);
}

/** Text inside an HTML element (a `<summary>`), where markdown is not interpreted. */
export function escapeHtml(text: string): string {
  return displayPhrase(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A code fence longer than any run of backticks inside the block. */
export function fenceFor(lines: readonly string[]): string {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}
