import { displayText } from '../../lib/display.js';

/**
 * HTML made here, safe to place in a page as it is. Text from the repository or the service never
 * becomes one except through `html`, which escapes every interpolated string: the dashboard builds
 * its markup with this one function, so there is no place where a name, a term or a message is
 * concatenated into markup unescaped.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What may be interpolated: markup made here, text (escaped), numbers, nothing, or a list of these. */
export type HtmlValue = Html | string | number | boolean | undefined | null | readonly HtmlValue[];

const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text as HTML text or attribute value: first the one display function (control characters,
 * line separators and bidirectional controls as `\uXXXX` escapes, so that no value reorders or
 * breaks what is shown around it), then the five characters that mean something to HTML.
 */
export function escapeText(text: string): string {
  return displayText(text).replace(/[&<>"']/g, (c) => ENTITY[c] ?? c);
}

function valueText(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === undefined || value === null || value === false || value === true) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return escapeText(value);
  let out = '';
  for (const item of value) out += valueText(item);
  return out;
}

/** A template of markup: every interpolated string is escaped, `Html` values are kept as they are. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += valueText(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/**
 * Markup that is trusted because this module's callers made it from no outside text: SVG drawn from
 * numbers, the output of the plan's renderer after its own checks (render-plan-html.ts).
 */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}

/** A list of values joined into one piece of markup. */
export function joinHtml(values: readonly HtmlValue[], separator: Html = new Html('')): Html {
  return new Html(values.map(valueText).join(separator.text));
}
