import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { copyExample } from '../daemon/daemon-harness.js';
import { until } from '../helpers/until.js';

/*
 * The dashboard in a real browser: Debian's Chromium (`apt-get install chromium`; .ci/run installs
 * it when it is missing) driven by playwright-core, against `termsync watch --emulator auto` (what
 * `npm start` runs) on a copy of the example repository.
 */

/** TERMSYNC_CHROMIUM, else `chromium` where PATH finds it (as .ci/run looks for it), else Debian's /usr/bin/chromium. */
export const CHROMIUM =
  process.env['TERMSYNC_CHROMIUM'] ??
  (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((folder) => folder !== '')
    .map((folder) => join(folder, 'chromium'))
    .find((file) => existsSync(file)) ??
  '/usr/bin/chromium';

/**
 * Chromium's flags here: headless, no sandbox (root in a container), and none of its own traffic
 * (background networking, component updates, sync, QUIC): this machine's network refuses it, and
 * a test that counts requests must see only the page's.
 */
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** Chromium with a fresh profile, or a failure that says how to install it. */
export async function launchChromium(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it when it is missing), or set TERMSYNC_CHROMIUM`);
  const profile = await mkdtemp(join(tmpdir(), 'termsync-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchProcess {
  readonly dir: string;
  readonly url: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** `termsync watch --emulator auto` on a copy of the example repository, as `npm start` runs it (its own port). */
export async function startWatch(): Promise<WatchProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'termsync-browser-'));
  await copyExample(dir);
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('TERMSYNC_')) delete env[name];
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/termsync.js'), 'watch', '--emulator', 'auto', '--dir', dir, '--listen', '127.0.0.1:0'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await until('the dashboard line', () => /\(open (http:\/\/127\.0\.0\.1:\d+)\/ in a browser\)/.exec(err)?.[1], { timeoutMs: 30_000 });
  return {
    dir,
    url,
    child,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      await rm(dir, { recursive: true, force: true });
      return code;
    },
  };
}

/** What the browser saw go wrong: console errors and warnings, failed requests, requests to another origin. */
export function watchPage(page: Page, origin: string): { problems: string[]; requests: string[] } {
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    // The event stream is cut when a page is left or the daemon stops: that is not a failure of the page.
    if (new URL(request.url()).pathname === '/events') return;
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? ''})`);
  });
  page.on('request', (request) => {
    requests.push(request.url());
    if (new URL(request.url()).origin !== origin) problems.push(`request to another origin: ${request.url()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`answer ${response.status()}: ${response.url()}`);
  });
  return { problems, requests };
}

const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: number;
  readonly targets: string;
}

/**
 * axe-core's checks of the page as it is now (WCAG 2.1 A and AA, and best practices). Evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern: the
 * page itself still allows no inline script.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  const source = await readFile(AXE_SOURCE, 'utf8');
  await page.evaluate(`${source}\n;undefined`);
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ') })))`);
}
