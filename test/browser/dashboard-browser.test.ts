import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../e2e/harness.js';
import { axeViolations, launchChromium, startWatch, watchPage, type Browser, type WatchProcess } from './browser-harness.js';

/*
 * `npm start`, then the dashboard in Chromium: the overview shows the first reconcile, the targets
 * and the resources; an edit of a TSV file appears as a new run without a reload, and its page shows
 * the changed term in the diff; a broken file shows its located error and "not ready". No console
 * error, no failed request, no request to another origin; axe-core finds no serious or critical
 * violation on any page; the filter and the run links are reached with the keyboard.
 *
 * TERMSYNC_SCREENSHOTS=1 (`npm run screenshots`) also writes docs/img/dashboard-overview.png and
 * docs/img/dashboard-run.png; `npm test` writes nothing.
 */

let watch: WatchProcess | undefined;
let browser: Browser | undefined;
const screenshots = process.env['TERMSYNC_SCREENSHOTS'] === '1';
const IMAGES = join(PROJECT_ROOT, 'docs', 'img');


afterAll(async () => {
  await browser?.close();
  if (watch !== undefined) expect(await watch.stop()).toBe(0);
});

describe('the dashboard in Chromium', () => {
  it('shows the first reconcile, follows an edit live, shows its term diff and a broken file’s located error; accessible, keyboard-usable, nothing from elsewhere', async () => {
    // Started here rather than in a hook: a machine without Chromium fails this test, never skips it.
    browser = await launchChromium();
    watch = await startWatch();
    const seen = watchPage(browser.page, watch.url);
    const { page } = browser;
    const started = Date.now();
    await page.goto(`${watch.url}/`);
    await expect(page.title()).resolves.toBe('Overview · termsync');
    // The first reconcile (start-up) arrives on the page by itself if it had not ended yet.
    const overview = page.locator('#overview');
    await overview.locator('table.runs tbody tr', { hasText: 'start-up' }).waitFor({ timeout: 30_000 });
    await expect(overview.locator('h2', { hasText: 'Target default' }).count()).resolves.toBe(1);
    // The run is recorded before the daemon marks itself idle: the page follows both changes, also
    // when they come between the drawing of the page and the opening of its event stream (the
    // order dashboard-catch-up.test.ts makes certain).
    await page.locator('#readiness', { hasText: /ready\s+the last reconcile ended changed/ }).waitFor({ timeout: 30_000 });
    await expect(overview.locator('dd', { hasText: '8 resources' }).textContent()).resolves.toContain('8 in sync');

    await page.getByRole('navigation').getByRole('link', { name: 'Resources' }).click();
    await page.waitForURL(`${watch.url}/resources`);
    const rows = page.locator('table.resources tbody tr');
    await expect(rows.count()).resolves.toBe(8);
    await expect(rows.filter({ hasText: 'Northwind Storefront UI' }).textContent()).resolves.toMatch(/glossaries\/storefront-ui\.yaml.*en-de 13.*in sync/s);

    // An edit, seen without a reload: the page keeps a mark that a reload would lose.
    await page.getByRole('navigation').getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(`${watch.url}/`);
    await page.evaluate('window.termsyncMark = 1');
    if (screenshots) {
      await mkdir(IMAGES, { recursive: true });
      await page.screenshot({ path: join(IMAGES, 'dashboard-overview.png'), fullPage: true });
    }
    await appendFile(join(watch.dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'gift voucher\tGeschenkgutschein\n');
    const editRun = overview.locator('table.runs tbody tr', { hasText: 'file change' }).first();
    await editRun.waitFor({ timeout: 30_000 });
    await expect(page.evaluate('window.termsyncMark')).resolves.toBe(1);
    await expect(editRun.textContent()).resolves.toMatch(/changed/);

    await editRun.getByRole('link').click();
    await page.waitForURL(/\/run\?id=\d+$/);
    const added = page.locator('.plan pre.diff .diff-add', { hasText: 'gift voucher → Geschenkgutschein' });
    await expect(added.isVisible()).resolves.toBe(true);
    await expect(page.locator('.plan').textContent()).resolves.toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    await expect(page.locator('table.operations').textContent()).resolves.toMatch(/PATCH \/v3\/glossaries\/.*Northwind Storefront UI.*applied/s);
    if (screenshots) await page.screenshot({ path: join(IMAGES, 'dashboard-run.png'), fullPage: true });
    const editRunUrl = page.url();

    // A broken file: the overview says "not ready" by itself, and the failed run names the place.
    await page.goto(`${watch.url}/`);
    await page.evaluate('window.termsyncMark = 2');
    await writeFile(join(watch.dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'add to cart\tIn den Warenkorb\nthis line has no tab\n');
    await page.locator('#readiness', { hasText: 'not ready' }).waitFor({ timeout: 30_000 });
    await expect(page.evaluate('window.termsyncMark')).resolves.toBe(2);
    await expect(page.locator('#readiness').textContent()).resolves.toContain('the repository has 1 error(s)');
    await overview.locator('table.runs tbody tr', { hasText: 'repository has errors' }).first().getByRole('link').click();
    await page.waitForURL(/\/run\?id=\d+$/);
    await expect(page.locator('table.problems code.location').first().textContent()).resolves.toMatch(/^glossaries\/entries\/storefront-ui\.en-de\.tsv:2:\d+$/);
    await expect(page.locator('table.problems').textContent()).resolves.toMatch(/error.*entries\//s);
    const brokenRunUrl = page.url();

    // Keyboard: the filter of Resources and a run link of Runs, reached with Tab.
    await page.goto(`${watch.url}/resources`);
    let tabs = 0;
    while ((await page.evaluate('document.activeElement?.id')) !== 'resource-filter' && tabs < 20) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    expect(await page.evaluate('document.activeElement?.id')).toBe('resource-filter');
    await page.keyboard.type('storefront');
    await page.locator('#resource-count', { hasText: '1 of 8 resources' }).waitFor();
    await expect(rows.count()).resolves.toBe(1);
    expect(page.url()).toBe(`${watch.url}/resources?q=storefront`);
    await page.goto(`${watch.url}/runs`);
    tabs = 0;
    while (!/^\/run\?id=/.test(String(await page.evaluate('document.activeElement?.getAttribute("href")'))) && tabs < 20) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    const href = String(await page.evaluate('document.activeElement?.getAttribute("href")'));
    expect(href).toMatch(/^\/run\?id=\d+$/);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${watch.url}${href}`);

    // axe-core on every page: no serious or critical violation.
    for (const path of ['/', '/resources', '/runs', new URL(editRunUrl).pathname + new URL(editRunUrl).search, new URL(brokenRunUrl).pathname + new URL(brokenRunUrl).search, '/drift', '/charts']) {
      await page.goto(`${watch.url}${path}`);
      const violations = await axeViolations(page);
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'), path).toEqual([]);
    }

    expect(seen.problems).toEqual([]);
    expect(seen.requests.length).toBeGreaterThan(10);
    const origin = `${watch.url}/`;
    expect(seen.requests.every((url) => url.startsWith(origin))).toBe(true);
    // The figure the report quotes: the whole walk through, in wall time.
    console.log(`dashboard browser test: ${((Date.now() - started) / 1000).toFixed(1)} s from the first page to the last check`);
  }, 180_000);
});
