import { Marked, type Tokens } from 'marked';
import { escapeText, trustedHtml, type Html } from './html.js';

/*
 * A run's plan on its page is the pull-request comment (report/render-plan-markdown.ts) read by a
 * markdown parser: the same summary, API calls and term diffs, one renderer of plans fewer. That
 * markdown escapes every name, term and message it holds (escapeMarkdown, escapeHtml, code
 * fences), and writes raw HTML of its own only as the few tags below. Anything else that reads as
 * raw HTML is shown as text, links and images as their text: what reaches the page is markup the
 * renderer chose, whatever the repository or the service named.
 */

/** The raw HTML render-plan-markdown writes: the comment's marker, a term block's `<details><summary>…</summary>` and its end, a line break in a table cell. */
const MARKER = /^<!-- termsync-plan target=[^<>]*? -->\s*$/;
const DETAILS_OPEN = /^<details><summary>([^<>]*)<\/summary>\s*$/;
const DETAILS_CLOSE = /^<\/details>\s*$/;
const BREAK = /^<br>$/;

function rawHtml({ text }: Tokens.HTML | Tokens.Tag): string {
  if (MARKER.test(text)) return '';
  const details = DETAILS_OPEN.exec(text);
  // The summary was escaped by the markdown renderer (escapeHtml: no `<`, `>` or `"` is left in it).
  if (details !== null) return `<details open><summary>${details[1] ?? ''}</summary>\n`;
  if (DETAILS_CLOSE.test(text)) return '</details>\n';
  if (BREAK.test(text)) return '<br>';
  return escapeText(text);
}

/** A ```diff block with each line marked as added or removed (the colours are the stylesheet's). */
function code({ text, lang }: Tokens.Code): string {
  if (lang !== 'diff') return `<pre><code>${escapeText(text)}</code></pre>\n`;
  const lines = text.split('\n').map((line) => {
    const kind = line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : 'diff-same';
    return `<span class="${kind}">${escapeText(line)}</span>`;
  });
  return `<pre class="diff"><code>${lines.join('\n')}</code></pre>\n`;
}

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    html: rawHtml,
    code,
    link({ text }) {
      return escapeText(text);
    },
    image({ text }) {
      return escapeText(text);
    },
  },
});

/** The pull-request comment's markdown of a plan as markup for the run's page. */
export function renderPlanHtml(markdown: string): Html {
  return trustedHtml(marked.parse(markdown, { async: false }));
}
