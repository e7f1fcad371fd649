import { html, type Html } from './html.js';

/** The dashboard's pages, in the order of its navigation. */
export const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/resources', title: 'Resources' },
  { path: '/runs', title: 'Runs' },
  { path: '/drift', title: 'Drift' },
  { path: '/charts', title: 'Charts' },
] as const;

export const STYLESHEET_PATH = '/assets/dashboard.css';
export const SCRIPT_PATH = '/assets/dashboard.js';
export const ICON_PATH = '/assets/icon.svg';
export const EVENTS_PATH = '/events';

export interface PageParts {
  /** The page's own title (before ` · termsync`). */
  readonly title: string;
  /** Which navigation entry is current (the run page is under Runs). */
  readonly section: (typeof PAGES)[number]['path'];
  /**
   * The readiness line in the header (live), and the change of the daemon's state it was read at
   * (DaemonStatus.version): the page's event stream starts from there, so that a change made
   * between the drawing of the page and the opening of its stream is not missed.
   */
  readonly readiness: { readonly ready: boolean; readonly reason: string; readonly version: number };
  readonly body: Html;
}

/**
 * A whole page: no inline script or style (the Content-Security-Policy allows neither), one
 * stylesheet and one script of this origin. Parts marked `data-live` (with an id) are what the
 * script replaces when the daemon's state changes (server-sent events on /events); the page is
 * complete without the script.
 */
export function renderPage(parts: PageParts): string {
  const nav = PAGES.map((p) => html`<li><a href="${p.path}"${p.path === parts.section ? html` aria-current="page"` : ''}>${p.title}</a></li>`);
  const { ready, reason, version } = parts.readiness;
  const state = ready ? html`<span class="badge ok">ready</span>` : html`<span class="badge bad">not ready</span>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · termsync</title>
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<script src="${SCRIPT_PATH}" defer></script>
</head>
<body data-events="${EVENTS_PATH}?since=${version}">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<span class="brand">termsync</span>
<nav aria-label="Dashboard pages"><ul>${nav}</ul></nav>
<p id="readiness" class="readiness" data-live>${state} <span class="reason">${reason}</span></p>
</header>
<main id="main" tabindex="-1">
${parts.body}
</main>
<footer><p>Read-only view of the daemon's state; <a href="/status">/status</a> has it as JSON, <a href="/metrics">/metrics</a> for Prometheus. <span id="live-state" role="status" aria-live="polite">Updates when a run ends (needs the page's script).</span></p></footer>
</body>
</html>
`.text;
}
