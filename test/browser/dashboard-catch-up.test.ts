import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { Emulator } from '../e2e/harness.js';
import { copyExample, nextRun, startTestDaemon } from '../daemon/daemon-harness.js';
import { launchChromium, watchPage, type Browser } from './browser-harness.js';

/*
 * A page is drawn, then its script opens the event stream: a change of the daemon's state between
 * the two (a run that ends, and the daemon idle after it) has no stream to be told on. The page
 * must still end showing the state as it is. Here the page's stream is held back (the browser's
 * request waits) until the daemon has run again and gone idle: the order that made the
 * dashboard browser test stop at "a reconcile is running" about one run in five, made certain.
 */

const KEY = 'catch-up-key-5e8d2a';

let dir: string | undefined;
let emulator: Emulator | undefined;
let daemon: Daemon | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await emulator?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a dashboard page whose event stream opens after the state changed', () => {
  it('shows the state as it is once its stream is open: a run that ended between the drawing of the page and the opening of its stream', async () => {
    browser = await launchChromium();
    dir = await mkdtemp(join(tmpdir(), 'termsync-catch-up-'));
    await copyExample(dir);
    emulator = await startEmulator({ port: 0, keys: [KEY] });
    const d = (await startTestDaemon({ dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, listen: { host: '127.0.0.1', port: 0 } })).daemon;
    daemon = d;
    await nextRun(d, 0);
    await d.idle();
    const url = d.url ?? '';
    const { page } = browser;
    const seen = watchPage(page, url);

    // The page's event stream waits until the daemon has run again and is idle.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked = (): void => undefined;
    const streamAsked = new Promise<void>((resolve) => (asked = resolve));
    await page.route(
      (address) => address.pathname === '/events',
      async (route) => {
        asked();
        await held;
        await route.continue();
      },
    );
    await page.goto(`${url}/`);
    const readiness = page.locator('#readiness');
    await expect(readiness.textContent()).resolves.toMatch(/ready\s+the last reconcile ended changed/);
    await streamAsked;
    d.trigger('reload');
    await nextRun(d, 1);
    await d.idle();
    expect(d.status.readiness()).toEqual({ ready: true, reason: 'the last reconcile ended converged' });
    await expect(readiness.textContent()).resolves.toMatch(/ended changed/);

    // The stream opens on a state the page does not show yet: the page catches up by itself.
    release();
    await readiness.filter({ hasText: /ready\s+the last reconcile ended converged/ }).waitFor({ timeout: 15_000 });
    await expect(page.locator('#overview table.runs tbody tr', { hasText: 'reload (SIGHUP)' }).count()).resolves.toBe(1);
    await expect(page.locator('#live-state').textContent()).resolves.toMatch(/^Live:/);
    expect(seen.problems).toEqual([]);
  }, 60_000);
});
