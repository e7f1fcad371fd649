import { request } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon, DaemonOptions } from '../../../src/daemon/start-daemon.js';
import { startEmulator } from '../../../src/emulator/index.js';
import { KeyRedactor } from '../../../src/lib/redact-keys.js';
import type { Emulator } from '../../e2e/harness.js';
import { copyExample, nextRun, startTestDaemon, type TestDaemon } from '../daemon-harness.js';

/*
 * The dashboard's routes on a daemon of the fake clock, against the emulator, on a copy of the
 * example repository with a glossary whose name and terms are hostile. The browser test
 * (test/browser/) drives the same pages in Chromium.
 */

const KEY = 'dash-key-7a3e1f9c2b5d';
const HOSTILE_NAME = 'Northwind <img src=x onerror=alert(1)> \u202eevil';
const HOSTILE_TERM = '</script><script>alert(2)</script>';
const PAGES = ['/', '/resources', '/runs', '/run?id=1', '/drift', '/charts'];

let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** A request with the headers a test chooses (fetch would not send another Host). */
function get(d: Daemon, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const url = new URL(path, d.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: (res.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function start(options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const keys = new KeyRedactor();
  keys.add(KEY);
  const test = await startTestDaemon({ dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, listen: { host: '127.0.0.1', port: 0 }, keys, ...options });
  daemon = test.daemon;
  await nextRun(test.daemon, 0);
  return test;
}

async function configure(extra: string): Promise<void> {
  const file = join(dir, 'config/termsync.yaml');
  await writeFile(file, `${await readFile(file, 'utf8')}${extra}`);
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-dashboard-'));
  await copyExample(dir);
  await writeFile(
    join(dir, 'glossaries/hostile.yaml'),
    [
      'kind: glossary',
      `name: ${JSON.stringify(HOSTILE_NAME)}`,
      'dictionaries:',
      '  - source_lang: en',
      '    target_lang: de',
      '    entries:',
      `      ${JSON.stringify('<img src=x onerror=alert(3)>')}: ${JSON.stringify(HOSTILE_TERM)}`,
      `      "bidi \\u202egnp.exe": "Treuepunkte"`,
      '',
    ].join('\n'),
  );
  // A glossary whose name holds the key: what people see of it says [redacted].
  await writeFile(join(dir, 'glossaries/keyed.yaml'), `kind: glossary\nname: Northwind ${KEY}\ndictionaries:\n  - source_lang: en\n    target_lang: fr\n    entries:\n      loyalty: fidélité\n`);
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the daemon's dashboard", () => {
  it('serves every page with a strict Content-Security-Policy, no framing, no sniffing; hostile names and terms are text; the key never appears', async () => {
    const d = (await start()).daemon;
    for (const path of [...PAGES, '/assets/dashboard.css', '/assets/icon.svg']) {
      const page = await get(d, path);
      expect(page.status, path).toBe(200);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.text).not.toMatch(/<img src=x|<script>alert|<\/script><script>/);
      expect(page.text).not.toContain('\u202e');
      expect(page.text).not.toContain(KEY);
      if (path.startsWith('/assets')) continue;
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      // No inline script or style, and nothing from elsewhere.
      expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]|<style|style=|https?:\/\/(?!127\.0\.0\.1)/);
    }
    const overview = await get(d, '/');
    expect(overview.text).toContain('<span class="badge ok">ready</span>');
    expect(overview.text).toMatch(/Target <span class="name">default<\/span>/);
    const resources = await get(d, '/resources');
    expect(resources.text).toContain('Northwind &lt;img src=x onerror=alert(1)&gt; \\u202eevil');
    expect(resources.text).toContain('Northwind [redacted]');
    expect(resources.text).toContain('glossaries/hostile.yaml');
    // The run's plan: the hostile term as text in the diff (terms are shown on loopback).
    const run = await get(d, '/run?id=1');
    expect(run.text).toContain('&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(run.text).toContain('Plan: 10 to add, 0 to change, 0 to destroy.');
    expect(run.text).toMatch(/<span class="diff-add">\+ loyalty → fidélité<\/span>/);
    // The charts count the daemon's own requests to the service (the first reconcile's).
    expect((await get(d, '/charts')).text).toMatch(/[1-9]\d* requests in the last 60 minutes: 2xx [1-9]/);
    // Read-only.
    for (const method of ['POST', 'PUT', 'DELETE']) expect((await get(d, '/', {}, method)).status).toBe(405);
    expect((await get(d, '/run?id=999')).status).toBe(404);
    expect((await get(d, '/run?id=<b>')).text).not.toContain('<b>');
  });

  it('shows no term where ui.show_terms is false: counts and names only, also of the runs recorded while it was true', async () => {
    const d = (await start()).daemon;
    expect((await get(d, '/run?id=1')).text).toContain('fidélité');
    await configure('ui:\n  show_terms: false\n');
    d.trigger('reload');
    await nextRun(d, 1);
    for (const path of [...PAGES, '/run?id=2']) {
      const page = await get(d, path);
      for (const term of ['fidélité', 'Treuepunkte', 'alert(2)', 'Geschenkkarte', 'Warenkorb']) expect(page.text, `${path}: ${term}`).not.toContain(term);
    }
    const run = await get(d, '/run?id=1');
    expect(run.text).toContain('Plan: 10 to add, 0 to change, 0 to destroy.');
    expect(run.text).toContain('Terms are not shown: ui.show_terms is false');
  });

  it('with a token, answers only requests that carry it (Bearer, or Basic with it as the password); /healthz stays open', async () => {
    const token = 'a-dashboard-token-0123456789';
    const d = (await start({ uiToken: () => token })).daemon;
    const refused = await get(d, '/');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('Basic realm="termsync dashboard"');
    expect(refused.text).not.toContain('Overview');
    expect((await get(d, '/assets/dashboard.css')).status).toBe(401);
    expect((await get(d, '/events')).status).toBe(401);
    expect((await get(d, '/', { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    expect((await get(d, '/', { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await get(d, '/', { authorization: `Basic ${Buffer.from(`anyone:${token}`).toString('base64')}` })).status).toBe(200);
    expect((await get(d, '/healthz')).status).toBe(200);
  });

  it('without --ui-token-file, asks for the token of POST /reconcile (read at each request), and shows the runs that route starts', async () => {
    let token = 'a-reconcile-token-0123456789';
    const d = (await start({ hooks: { reconcileToken: () => token } })).daemon;
    expect((await get(d, '/')).status).toBe(401);
    expect((await get(d, '/events')).status).toBe(401);
    const bearer = (): Record<string, string> => ({ authorization: `Bearer ${token}` });
    expect((await get(d, '/', bearer())).status).toBe(200);
    expect((await get(d, '/reconcile', bearer(), 'POST')).status).toBe(202);
    await nextRun(d, 1);
    expect((await get(d, '/', bearer())).text).toMatch(/<th scope="row">POST \/reconcile<\/th><td><a href="\/run\?id=2">#2<\/a>/);
    // A rotated token: the old one no longer opens the dashboard.
    const old = bearer();
    token = 'a-rotated-token-9876543210';
    expect((await get(d, '/', old)).status).toBe(401);
    expect((await get(d, '/', bearer())).status).toBe(200);
  });

  it('shows which targets are suspended and by what', async () => {
    const d = (await start({ suspend: true })).daemon;
    const overview = (await get(d, '/')).text;
    expect(overview).toMatch(/Suspended: <span class="name">default<\/span> \(--suspend\): differences are planned and reported, nothing is written/);
    expect(overview).toMatch(/<dt>Suspended<\/dt><dd><span class="badge info"[^>]*>[^<]*<\/span> --suspend/);
    expect((await get(d, '/')).text).toContain('<span class="badge ok">ready</span>');
  });

  it('on loopback, answers only to a loopback host name (a rebound name of another site is refused)', async () => {
    const d = (await start()).daemon;
    const port = new URL(d.url ?? '').port;
    expect((await get(d, '/', { host: `evil.example:${port}` })).status).toBe(421);
    expect((await get(d, '/', { host: `127.0.0.1:${Number(port) + 1}` })).status).toBe(421);
    expect((await get(d, '/', { host: `localhost:${port}` })).status).toBe(200);
    expect((await get(d, '/', { host: `[::1]:${port}` })).status).toBe(200);
  });

  it('compresses pages for a client that accepts gzip', async () => {
    const d = (await start()).daemon;
    const page = await get(d, '/run?id=1', { 'accept-encoding': 'gzip, deflate' });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.text).toContain('Run 1');
  });

  it('tells each open page when the state changes (server-sent events)', async () => {
    const d = (await start()).daemon;
    const controller = new AbortController();
    const res = await fetch(`${d.url ?? ''}/events`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    d.trigger('reload');
    while (!text.includes('event: change')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text).toMatch(/^retry: 3000\n\n/);
    expect(text).toMatch(/event: change\ndata: \d+\n\n/);
    controller.abort();
    await d.idle();
  });

  /** The first `change` event of a stream (its data: the state's version it tells of). */
  async function firstChange(stream: Response): Promise<number> {
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    for (;;) {
      const event = /event: change\ndata: (\d+)\n\n/.exec(text);
      if (event !== null) return Number(event[1]);
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a change: ${text}`);
      text += Buffer.from(value).toString('utf8');
    }
  }

  it('a page’s event stream starts with a change when the state changed between the drawing of the page and the opening of the stream, and only then', async () => {
    const d = (await start()).daemon;
    const drawnAt = (text: string): string => /<body data-events="\/events\?since=(\d+)">/.exec(text)?.[1] ?? 'none';
    const page = await get(d, '/');
    expect(drawnAt(page.text)).toBe(String(d.status.version));
    // A run starts and ends (the daemon then idles) before the page's script opens its stream.
    d.trigger('reload');
    await nextRun(d, 1);
    await d.idle();
    const after = d.status.version;
    expect(after).toBeGreaterThan(Number(drawnAt(page.text)));
    const controller = new AbortController();
    const late = await fetch(`${d.url ?? ''}/events?since=${drawnAt(page.text)}`, { signal: controller.signal });
    // One more change once the stream is open: its event tells of version after + 1, the catch-up of `after`.
    d.status.changed();
    await expect(firstChange(late)).resolves.toBe(after);
    controller.abort();

    // A page drawn at the current state: its stream tells of the next change only.
    const current = await get(d, '/runs');
    expect(drawnAt(current.text)).toBe(String(d.status.version));
    const second = new AbortController();
    const onTime = await fetch(`${d.url ?? ''}/events?since=${drawnAt(current.text)}`, { signal: second.signal });
    d.status.changed();
    await expect(firstChange(onTime)).resolves.toBe(Number(drawnAt(current.text)) + 1);
    second.abort();
  });

  it('keeps ui.keep_runs runs; the located error of a broken file, the resources it makes invalid and "not ready"', async () => {
    await configure('ui:\n  keep_runs: 2\n');
    const t = await start();
    const d = t.daemon;
    d.trigger('reload');
    await nextRun(d, 1);
    await writeFile(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'add to cart\tIn den Warenkorb\nbroken line without a tab\n');
    await t.edited();
    const broken = await nextRun(d, 2);
    expect(broken).toMatchObject({ id: 3, result: 'invalid' });
    expect((await get(d, '/run?id=1')).status).toBe(404);
    const runs = await get(d, '/runs');
    expect(runs.text).toMatch(/href="\/run\?id=3"/);
    expect(runs.text).not.toMatch(/href="\/run\?id=1"/);
    const run = await get(d, '/run?id=3');
    expect(run.text).toMatch(/<code class="location">glossaries\/entries\/storefront-ui\.en-de\.tsv:2:\d+<\/code>/);
    expect(run.text).toContain('Located errors');
    expect(run.text).toContain('<span class="badge bad">not ready</span>');
    const resources = await get(d, '/resources?sort=state');
    expect(resources.text).toMatch(/Northwind Storefront UI<\/span>[^]*?repository has errors/);
    // Sorted by state: the invalid one first.
    expect(resources.text.indexOf('Northwind Storefront UI')).toBeLessThan(resources.text.indexOf('Northwind Brand terminology'));
    const filtered = await get(d, '/resources?q=storefront');
    expect(filtered.text).toContain('1 of 10 resources');
    expect(filtered.text).not.toContain('Northwind Brand terminology');
  });

  /** Someone edits a dictionary in the service's web editor. */
  async function editOnService(d: Daemon, targetLang: string, entries: string): Promise<void> {
    const id = d.status.ids.get('default')?.glossaries['Northwind Storefront UI'] ?? '';
    const res = await fetch(`${emulator.url}/v3/glossaries/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: targetLang, entries, entries_format: 'tsv' }] }),
    });
    expect(res.status).toBe(200);
  }

  it('shows the drift a scheduled run found, term by term, and that it was repaired', async () => {
    const t = await start({ schedule: '* * * * * *' });
    const d = t.daemon;
    expect((await get(d, '/drift')).text).toContain('No drift found in the runs kept');
    await editOnService(d, 'fr', 'drifted term\tterme dérivé');
    t.tick();
    await nextRun(d, 1);
    const drift = await get(d, '/drift');
    expect(drift.text).toMatch(/Scheduled run <a href="\/run\?id=2">#2<\/a>/);
    expect(drift.text).toContain('repaired: the service holds the repository’s state again');
    expect(drift.text).toContain('<span class="diff-del">- drifted term → terme dérivé</span>');
    const overview = await get(d, '/');
    expect(overview.text).toMatch(/1 resource<\/span> differed at the last scheduled run \(<a href="\/run\?id=2">#2<\/a>/);
    expect(overview.text).toMatch(/<th scope="row">schedule<\/th><td><a href="\/run\?id=2">#2<\/a>/);
  });

  it('shows what a drift pull (--on-drift pull) wrote into the files, term by term', async () => {
    const t = await start({ schedule: '* * * * * *', onDrift: 'pull', verify: false });
    const d = t.daemon;
    await editOnService(d, 'de', 'gift card\tGeschenkgutschein');
    t.tick();
    await nextRun(d, 1);
    const drift = await get(d, '/drift');
    expect(drift.text).toContain('pulled into 1 file: 1 term change in 1 glossary');
    expect(drift.text).toContain('<code>glossaries/entries/storefront-ui.en-de.tsv</code>');
    expect(drift.text).toContain('~ &quot;gift card&quot;: &quot;Geschenkkarte&quot; → &quot;Geschenkgutschein&quot;');
    expect((await get(d, '/')).text).toContain('1 term change pulled into 1 file');
  });
});
