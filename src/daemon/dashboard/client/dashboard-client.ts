/*
 * The dashboard's one script (served as /assets/dashboard.js; the pages work without it): it
 * follows the daemon's event stream and, when the state changes, fetches the page again and puts
 * its live parts (`[data-live][id]`) in place of the old ones, keeping the focus where it was; and
 * it filters the Resources page as you type (the server filters: the same `?q=` as without the
 * script). No framework, nothing from another origin.
 */

const LIVE = '[data-live][id]';

/** Tells screen readers and everyone else whether the page is following the daemon. */
function say(text: string): void {
  const live = document.getElementById('live-state');
  if (live !== null && live.textContent !== text) live.textContent = text;
}

/** A way to find the focused element again in new markup: its id, or a link's address. */
function focusKey(element: Element): string | undefined {
  if (element.id !== '') return `#${CSS.escape(element.id)}`;
  const href = element.getAttribute('href');
  if (element instanceof HTMLAnchorElement && href !== null) return `a[href="${CSS.escape(href)}"]`;
  return undefined;
}

/** Replaces the live parts of this page with those of `fresh`; details the reader closed stay closed. */
function swap(fresh: Document): void {
  for (const next of Array.from(fresh.querySelectorAll<HTMLElement>(LIVE))) {
    const current = document.getElementById(next.id);
    if (current === null || current.innerHTML === next.innerHTML) continue;
    const active = document.activeElement;
    const key = active !== null && current.contains(active) ? focusKey(active) : undefined;
    const closed = new Set(Array.from(current.querySelectorAll('details:not([open]) > summary')).map((s) => s.textContent));
    current.replaceChildren(...Array.from(next.childNodes).map((node) => document.importNode(node, true)));
    for (const summary of Array.from(current.querySelectorAll('details[open] > summary'))) if (closed.has(summary.textContent)) summary.parentElement?.removeAttribute('open');
    if (key !== undefined) current.querySelector<HTMLElement>(key)?.focus();
  }
  if (fresh.title !== '') document.title = fresh.title;
}

let inFlight = false;
let again = false;

/** Fetches this page again and swaps its live parts: one request at a time, and one more for what changed meanwhile. */
async function refresh(): Promise<void> {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    const answer = await fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store', credentials: 'same-origin' });
    if (answer.ok || answer.status === 404) swap(new DOMParser().parseFromString(await answer.text(), 'text/html'));
  } catch {
    say('The daemon cannot be reached; trying again.');
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

function follow(): void {
  const path = document.body.dataset['events'];
  if (path === undefined || typeof EventSource === 'undefined') return;
  const events = new EventSource(path);
  let lost = false;
  events.addEventListener('open', () => {
    say('Live: the page updates when the daemon’s state changes.');
    // Back after a break (the daemon restarted): what changed meanwhile.
    if (lost) void refresh();
    lost = false;
  });
  events.addEventListener('change', () => void refresh());
  events.addEventListener('error', () => {
    lost = true;
    say('Not live: the daemon cannot be reached; reconnecting.');
  });
}

/** The Resources page's filter: as you type, the address says it and the table follows. */
function filterAsYouType(): void {
  const input = document.getElementById('resource-filter');
  if (!(input instanceof HTMLInputElement) || input.form === null) return;
  let timer: number | undefined;
  const apply = (): void => {
    const url = new URL(location.href);
    if (input.value.trim() === '') url.searchParams.delete('q');
    else url.searchParams.set('q', input.value);
    history.replaceState(null, '', url);
    void refresh();
  };
  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(apply, 150);
  });
  input.form.addEventListener('submit', (event) => {
    event.preventDefault();
    window.clearTimeout(timer);
    apply();
  });
}

follow();
filterAsYouType();
