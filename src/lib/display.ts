/**
 * The one display function: text from the repository or the service (a path, a name, a term, a
 * message) passes here before it reaches a terminal, a log or a CI log. Every character that could
 * end a line, start a new one or be acted on there is written as an escape — C0 controls (`\t`,
 * `\n`, `\r`, the rest as `\u001b` …), DEL, the C1 controls (U+0085 NEXT LINE, U+009B CSI …), the
 * line and paragraph separators, and the bidirectional embeddings, overrides and isolates that
 * reorder what a terminal shows — so one value stays on its line and no value can begin a line
 * (a `::error …` workflow command, an escape sequence). Everything else is kept as it is; the
 * result holds none of those characters, so a second pass changes nothing.
 */
// eslint-disable-next-line no-control-regex
const NOT_DISPLAYED = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

export function displayText(value: string): string {
  return value.replace(NOT_DISPLAYED, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

// What displayText escapes that JSON.stringify writes as it is: DEL, the C1 controls, the line and
// paragraph separators, the bidirectional controls (JSON escapes every C0 control itself).
const NOT_DISPLAYED_IN_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (as JSON.stringify writes it) fit for a terminal or a CI log: the characters
 * displayText escapes that JSON.stringify leaves as they are are written as `\uXXXX` escapes. They
 * can only be inside strings, so the text is still JSON, of the very same value.
 */
export function displayJson(json: string): string {
  return json.replace(NOT_DISPLAYED_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
