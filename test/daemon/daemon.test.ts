import { execFileSync } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { appendFile, cp, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { beginFirstLoad } from '../../src/daemon/first-load.js';
import type { Daemon, DaemonOptions } from '../../src/daemon/start-daemon.js';
import { watchFiles, type FileWatcher } from '../../src/daemon/watch-files.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createLogger, type Logger } from '../../src/lib/logger.js';
import { EntriesHasher } from '../../src/plan/fingerprint-live.js';
import { PROJECT_ROOT, type Emulator } from '../e2e/harness.js';
import { DEBOUNCE_MS, nextRun, RETRY_BASE_MS, startTestDaemon, whenStatus, type TestDaemon } from './daemon-harness.js';
import { until } from '../helpers/until.js';

const KEY = 'daemon-test-key-5f1c9e';
let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

async function start(options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const test = await startTestDaemon({
    dir,
    env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY },
    listen: { host: '127.0.0.1', port: 0 },
    ...options,
  });
  daemon = test.daemon;
  return test;
}

function requestsSince(mark: number): { method: string; path: string; query: string }[] {
  return emulator.requests().slice(mark);
}

/** The entries of one dictionary of a glossary the daemon manages, as the service holds them. */
async function entriesOnService(d: Daemon, glossary: string, sourceLang: string, targetLang: string): Promise<string> {
  const id = d.status.ids.get('default')?.glossaries[glossary];
  if (id === undefined) return '';
  const res = await fetch(`${emulator.url}/v3/glossaries/${id}/entries?source_lang=${sourceLang}&target_lang=${targetLang}`, { headers: { authorization: `Service-Auth-Key ${KEY}` } });
  return ((await res.json()) as { dictionaries: { entries: string }[] }).dictionaries[0]?.entries ?? '';
}

/** A daemon logger at debug level whose records the test reads (the daemon logs each retry it arms). */
function recordingLogger(): { logger: Logger; records: { level: number; msg: string }[] } {
  const records: { level: number; msg: string }[] = [];
  const logger = createLogger({ level: 'debug' }, { write: (line: string) => void records.push(JSON.parse(line) as { level: number; msg: string }) });
  return { logger, records };
}

/** The watcher `w`, and `edit` made as its first paths are set: once the first load has read the files, before the watch starts. */
function editedBeforeTheWatch(w: FileWatcher, edit: () => void): FileWatcher {
  let first = true;
  return {
    setPaths: (paths) => {
      if (first) edit();
      first = false;
      w.setPaths(paths);
    },
    pending: () => w.pending(),
    unbroken: () => w.unbroken(),
    reports: (f) => w.reports(f),
    close: () => w.close(),
  };
}

async function get(d: Daemon, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${d.url ?? ''}${path}`);
  return { status: res.status, text: await res.text() };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-daemon-'));
  await cp(join(PROJECT_ROOT, 'config'), join(dir, 'config'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'glossaries'), join(dir, 'glossaries'), { recursive: true });
  const config = await readFile(join(dir, 'config/termsync.yaml'), 'utf8');
  await writeFile(join(dir, 'config/termsync.yaml'), config.replace('requests_per_second: 5', 'requests_per_second: 200'));
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('termsync watch (the daemon)', () => {
  it('converges on start, applies an edited TSV with one entry read and one write, and serves its endpoints', async () => {
    const t = await start();
    const d = t.daemon;
    const first = await nextRun(d, 0);
    expect(first).toMatchObject({ trigger: 'startup', result: 'changed' });
    expect((await get(d, '/readyz')).status).toBe(200);

    const mark = emulator.requests().length;
    await appendFile(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'loyalty points\tTreuepunkte\n');
    await t.edited();
    const run = await nextRun(d, 1);
    expect(run).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    const requests = requestsSince(mark);
    expect(requests.filter((r) => r.method === 'GET' && r.path.endsWith('/entries'))).toHaveLength(1);
    expect(requests.filter((r) => r.method !== 'GET').map((r) => r.method)).toEqual(['PATCH']);

    expect(await get(d, '/healthz')).toMatchObject({ status: 200 });
    const metrics = (await get(d, '/metrics')).text;
    expect(metrics).toMatch(/termsync_reconcile_runs_total\{target="default",trigger="files",result="changed"\} 1/);
    expect(metrics).toMatch(/termsync_operations_total\{target="default",kind="glossary.patch",result="applied"\} 1/);
    expect(metrics).toMatch(/termsync_api_requests_total\{method="PATCH",endpoint="\/v3\/glossaries\/\{id\}",status="200"\} 1/);
    // The daemon's clock: the fake one, its start.
    expect(metrics).toMatch(new RegExp(`termsync_last_success_timestamp_seconds\\{target="default"\\} ${Math.floor(t.clock.now() / 1000)}\\n`));
    // The example repository: 6 glossaries (two fed by a TBX file and a workbook), 2 style rule lists.
    expect(metrics).toMatch(/termsync_managed_resources\{target="default",kind="glossary"\} 6/);
    // 8 resource files and 9 entries files: the edit's load parsed only the edited file again.
    expect(metrics).toMatch(/termsync_load_files_total\{how="read"\} 18\n/);
    expect(metrics).toMatch(/termsync_load_files_total\{how="reused"\} 16\n/);
    const status = JSON.parse((await get(d, '/status')).text) as { ids: Record<string, { glossaries: Record<string, string> }>; runs: unknown[] };
    expect(Object.keys(status.ids['default']?.glossaries ?? {}).length).toBe(6);
    expect(status.runs).toHaveLength(2);
    // Never the key, never an entry, never a path outside the repository.
    for (const path of ['/status', '/metrics', '/readyz', '/healthz']) {
      const text = (await get(d, path)).text;
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('Treuepunkte');
      expect(text).not.toContain(dir);
    }
    expect((await get(d, '/nope')).status).toBe(404);

    // SIGHUP: a full reload reads every file again.
    d.trigger('reload');
    await d.idle();
    expect(d.status.runs).toHaveLength(3);
    expect((await get(d, '/metrics')).text).toMatch(/termsync_load_files_total\{how="read"\} 35\n/);
  });

  it('a run a change started reads only the files the watcher reported, while the same watch is on; any other run reads them all', async () => {
    // A watcher the test drives: it reports what the test says, and its watch stays unbroken until the test breaks it.
    let watch: number | undefined = 1;
    let report: ((files: readonly string[]) => void) | undefined;
    const t = await start({
      watch: (o) => {
        report = o.onChange;
        return { setPaths: () => undefined, pending: () => 0, unbroken: () => watch, reports: (file) => file.startsWith('glossaries/'), close: () => Promise.resolve() };
      },
    });
    const d = t.daemon;
    expect(await nextRun(d, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    const reported = 'glossaries/entries/storefront-ui.en-de.tsv';
    const other = 'glossaries/entries/checkout-payments.en-nl.tsv';
    const onService = async (): Promise<string> => (await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')) + (await entriesOnService(d, 'Northwind Checkout and payments', 'en', 'nl'));
    // Both files change; the watcher reports one (the other's event is still to come): the run applies the one reported.
    await appendFile(join(dir, reported), 'loyalty points\tTreuepunkte\n');
    await appendFile(join(dir, other), 'loyalty points\tloyaliteitspunten\n');
    report?.([reported]);
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await onService()).toContain('Treuepunkte');
    expect(await onService()).not.toContain('loyaliteitspunten');
    // The watch broke (new paths, an error): the next run a change starts reads every file again.
    watch = 2;
    await appendFile(join(dir, reported), 'store credit\tGuthaben\n');
    report?.([reported]);
    expect(await nextRun(d, 2)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await onService()).toContain('loyaliteitspunten');
    // Unreported again, on the same watch as the last load: left to the scheduled full run, which reads every file.
    await appendFile(join(dir, other), 'wish list\tverlanglijst\n');
    report?.([reported]);
    expect(await nextRun(d, 3)).toMatchObject({ trigger: 'files', result: 'converged' });
    expect(await onService()).not.toContain('verlanglijst');
    t.tick();
    expect(await nextRun(d, 4)).toMatchObject({ trigger: 'schedule', result: 'changed' });
    expect(await onService()).toContain('verlanglijst');
  });

  it('reads every file on SIGHUP even when a full run (schedule, retry) is already queued', async () => {
    const d = (await start()).daemon;
    // The loop took the start-up run at once: while it runs, a scheduled run is queued, then SIGHUP arrives.
    expect(d.status.runs).toHaveLength(0);
    d.trigger('schedule');
    d.trigger('reload');
    await d.idle();
    // One run for both, labelled by the first full trigger; the example repository's 17 files read twice, none reused.
    expect(d.status.runs.map((r) => r.trigger)).toEqual(['schedule', 'startup']);
    const metrics = (await get(d, '/metrics')).text;
    expect(metrics).toMatch(/termsync_load_files_total\{how="read"\} 34\n/);
    expect(metrics).toMatch(/termsync_load_files_total\{how="reused"\} 0\n/);
  });

  it('compares the live dictionaries without hashing them: its plans are never saved, and a hash would keep every dictionary sorted while the repository is loaded', async () => {
    const d = (await start()).daemon;
    expect(await nextRun(d, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    // A full run over a service that holds everything: every dictionary is read and compared.
    const digests = vi.spyOn(EntriesHasher.prototype, 'digest');
    const mark = emulator.requests().length;
    try {
      d.trigger('reload');
      await d.idle();
      expect(d.status.runs[0]).toMatchObject({ trigger: 'reload', result: 'converged' });
      expect(requestsSince(mark).filter((r) => r.method === 'GET' && r.path.endsWith('/entries')).length).toBeGreaterThan(0);
      expect(digests).not.toHaveBeenCalled();
    } finally {
      digests.mockRestore();
    }
    // The dashboard's history and the endpoints still have the run.
    expect(d.history.runs()[0]?.targets[0]).toMatchObject({ target: 'default', result: 'converged', plan: { changes: 0 } });
    expect(JSON.parse((await get(d, '/status')).text)).toMatchObject({ runs: [{ trigger: 'reload', result: 'converged' }, { trigger: 'startup' }] });
  });

  it('applies an edit made while its first load ran: the watcher, started after that load, reports it', async () => {
    const file = join(dir, 'glossaries/entries/storefront-ui.en-de.tsv');
    let watcher: FileWatcher | undefined;
    let edited = false;
    const t = await start({
      watch: (o) => {
        const w = (watcher = watchFiles(o));
        return editedBeforeTheWatch(w, () => {
          appendFileSync(file, 'loyalty points\tTreuepunkte\n');
          edited = true;
        });
      },
    });
    const d = t.daemon;
    expect(await nextRun(d, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    expect(edited).toBe(true);
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).not.toContain('loyalty points');
    await until('the watcher to report the edit', () => (watcher?.pending() ?? 0) > 0);
    t.clock.advance(DEBOUNCE_MS);
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('loyalty points\tTreuepunkte');
  });

  it('reads only the reported file on the first edit after start-up (the catch-up watch is on since before the first load); what the catch-up missed, the schedule applies', async () => {
    const reported = 'glossaries/entries/storefront-ui.en-de.tsv';
    const missed = 'glossaries/entries/checkout-payments.en-nl.tsv';
    let watcher: FileWatcher | undefined;
    let edited = false;
    const { logger, records } = recordingLogger();
    const t = await start({
      logger,
      watch: (o) => {
        // The real watcher, but its catch-up misses one edit made while the first load ran: its reports leave that file out.
        const w = (watcher = watchFiles({
          ...o,
          onChange: (files) => {
            const kept = files.filter((f) => f !== missed);
            if (kept.length > 0) o.onChange(kept);
          },
        }));
        return editedBeforeTheWatch(w, () => {
          appendFileSync(join(dir, missed), 'wish list\tverlanglijst\n');
          edited = true;
        });
      },
    });
    const d = t.daemon;
    expect(await nextRun(d, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    expect(edited).toBe(true);
    // What the last load read (parsed: new or changed bytes), reused, and took unchanged without reading (vouched for by the watch).
    const lastLoad = (): unknown => records.filter((r) => r.msg === 'repository loaded').at(-1);
    // The example repository's 17 files, read by the first load.
    expect(lastLoad()).toMatchObject({ read: 17, reused: 0, unread: 0 });
    // The catch-up's batch (the missed file alone) goes, and starts nothing.
    await until('the catch-up to find the edit', () => (watcher?.pending() ?? 0) > 0);
    t.clock.advance(DEBOUNCE_MS);
    expect(watcher?.pending()).toBe(0);
    // The first edit after start-up: its run reads the reported file alone, and takes the others as the first load read them.
    await appendFile(join(dir, reported), 'loyalty points\tTreuepunkte\n');
    await until('the watcher to report the edit', () => (watcher?.pending() ?? 0) > 0);
    t.clock.advance(DEBOUNCE_MS);
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(lastLoad()).toMatchObject({ read: 1, reused: 16, unread: 16 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('loyalty points\tTreuepunkte');
    expect(await entriesOnService(d, 'Northwind Checkout and payments', 'en', 'nl')).not.toContain('verlanglijst');
    // The scheduled full run reads every file: the edit the catch-up missed is applied.
    t.tick();
    expect(await nextRun(d, 2)).toMatchObject({ trigger: 'schedule', result: 'changed' });
    expect(lastLoad()).toMatchObject({ read: 1, reused: 16, unread: 0 });
    expect(await entriesOnService(d, 'Northwind Checkout and payments', 'en', 'nl')).toContain('wish list\tverlanglijst');
  });

  it('takes a first load begun before it started, and applies an edit made after that load read the files', async () => {
    const { logger, records } = recordingLogger();
    const first = beginFirstLoad(dir);
    // The load is done before the daemon starts (as when importing the daemon takes longer): an edit after it is the watcher's catch-up to report.
    expect((await first.loaded).memo?.read).toBe(17);
    appendFileSync(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'loyalty points\tTreuepunkte\n');
    const t = await start({ logger, firstLoad: first });
    const d = t.daemon;
    expect(await nextRun(d, 0)).toMatchObject({ trigger: 'startup', result: 'changed' });
    // The start-up run read nothing itself: one load so far, the one begun before.
    expect(records.filter((r) => r.msg === 'repository loaded')).toHaveLength(1);
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).not.toContain('loyalty points');
    await t.edited();
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('loyalty points\tTreuepunkte');
    // The watch counts as on since before that load began: the edit's run read the reported file alone.
    expect(records.filter((r) => r.msg === 'repository loaded').at(-1)).toMatchObject({ read: 1, reused: 16, unread: 16 });
  });

  it('turns a burst of 20 file writes into one run', async () => {
    const t = await start();
    const d = t.daemon;
    await d.idle();
    const file = join(dir, 'glossaries/entries/storefront-ui.en-de.tsv');
    const base = await readFile(file, 'utf8');
    // The 20 writes go one after another without a turn of the event loop between them, so the
    // watcher (in this process) cannot report the file before the last of them, however slow the
    // machine: its report waits for the size to hold still for writeFinishMs of real time, and a
    // stall between two awaited writes would cut the burst in two. The batch goes when the fake
    // clock passes the debounce.
    for (let i = 0; i < 20; i++) writeFileSync(file, `${base}burst term ${i}\tBurstbegriff ${i}\n`);
    await t.edited();
    const burst = await nextRun(d, d.status.runs.length);
    expect(burst).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('burst term 19\t');
    expect(d.status.runs.filter((r) => r.trigger === 'files')).toHaveLength(1);
    // Then a marker: a term appended to another file. Its run reads the marker's file alone: the
    // burst was reported once, before the run that applied it, and never again.
    const before = d.status.runs.length;
    await appendFile(join(dir, 'glossaries/entries/storefront-ui.en-fr.tsv'), 'marker term\tterme repère\n');
    await t.edited();
    const marker = await nextRun(d, before);
    expect(marker).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'fr')).toContain('marker term\t');
    // No retry is armed: nothing waits on the clock but the root check.
    expect(d.status.nextRetryAt).toBeUndefined();
    expect(t.clock.pendingSleeps()).toBe(1);
    // The last state of the file is what the service holds.
    d.trigger('reload');
    expect(await nextRun(d, before + 1)).toMatchObject({ trigger: 'reload', result: 'converged' });
  });

  it('repairs drift made on the service on the scheduled full reconcile', async () => {
    const t = await start({ schedule: '* * * * * *' });
    const d = t.daemon;
    await d.idle();
    expect(t.schedules).toEqual(['* * * * * *']);
    const ids = d.status.ids.get('default');
    const id = ids?.glossaries['Northwind Storefront UI'] ?? '';
    expect(id).not.toBe('');
    // Someone adds a term in the service's web editor: same dictionary, one more entry.
    const res = await fetch(`${emulator.url}/v3/glossaries/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'fr', entries: 'drifted term\tterme dérivé', entries_format: 'tsv' }] }),
    });
    expect(res.status).toBe(200);
    t.tick();
    const repaired = await nextRun(d, 1);
    expect(repaired).toMatchObject({ trigger: 'schedule', result: 'changed' });
    expect(repaired.targets[0]?.summary?.calls.PUT).toBe(1);
    expect((await get(d, '/metrics')).text).toMatch(/termsync_drift_detected_total\{target="default"\} 1/);
  });

  it('picks up a changed schedule from the config without a restart', async () => {
    const t = await start();
    const d = t.daemon;
    await d.idle();
    expect(d.status.schedule).toBe('*/15 * * * *');
    const config = join(dir, 'config/termsync.yaml');
    writeFileSync(config, (await readFile(config, 'utf8')).replace('schedule: "*/15 * * * *"', 'schedule: "* * * * * *"'));
    await t.edited();
    const reloaded = await nextRun(d, 1);
    // A changed config re-reads everything (it may change anything), and reschedules.
    expect(reloaded).toMatchObject({ trigger: 'files', result: 'converged' });
    expect(reloaded.targets[0]?.notRefreshed).toBeUndefined();
    expect(d.status.schedule).toBe('* * * * * *');
    expect(t.schedules).toEqual(['*/15 * * * *', '* * * * * *']);
    t.tick();
    expect(await nextRun(d, 2)).toMatchObject({ trigger: 'schedule', result: 'converged' });
  });

  it('an invalid edit makes /readyz fail and changes nothing on the service; fixing it recovers', async () => {
    const { logger, records } = recordingLogger();
    const t = await start({ logger });
    const d = t.daemon;
    await d.idle();
    const file = join(dir, 'glossaries/entries/storefront-ui.en-de.tsv');
    const good = await readFile(file, 'utf8');
    const mark = emulator.requests().length;
    writeFileSync(file, `${good}only a source, no tab\n`);
    await t.edited();
    const broken = await nextRun(d, 1);
    expect(broken.result).toBe('invalid');
    const ready = await get(d, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toMatch(/error/);
    expect(requestsSince(mark)).toEqual([]);
    const status = JSON.parse((await get(d, '/status')).text) as { repository: { valid: boolean; diagnostics: { file: string; line: number }[] } };
    expect(status.repository.valid).toBe(false);
    expect(status.repository.diagnostics[0]).toMatchObject({ file: 'glossaries/entries/storefront-ui.en-de.tsv' });
    // Not retried in a loop: it waits for the next change. The run is recorded, so its end
    // (which arms a retry after a failed run) has run: no retry is armed, none was logged, and
    // nothing but the root check waits on the clock.
    await d.idle();
    expect(d.status.nextRetryAt).toBeUndefined();
    expect(records.filter((r) => r.msg.startsWith('reconcile failed; retrying'))).toEqual([]);
    expect(t.clock.pendingSleeps()).toBe(1);
    expect(d.status.runs).toHaveLength(2);

    writeFileSync(file, `${good}loyalty points\tTreuepunkte\n`);
    await t.edited();
    const fixed = await nextRun(d, 2);
    expect(fixed.result).toBe('changed');
    expect((await get(d, '/readyz')).status).toBe(200);
  });

  it('reports a guard-blocked plan once, without retrying it and without writing', async () => {
    const { logger, records } = recordingLogger();
    const t = await start({ logger });
    const d = t.daemon;
    await d.idle();
    const mark = emulator.requests().length;
    writeFileSync(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'cart\tWarenkorb\n');
    await t.edited();
    const blocked = await nextRun(d, 1);
    expect(blocked.result).toBe('blocked');
    expect(blocked.targets[0]?.guards?.[0]).toMatch(/loses/);
    // The blocked run is recorded, so its end (which arms a retry after a failed run) has run.
    await d.idle();
    expect(d.status.nextRetryAt).toBeUndefined();
    expect(records.filter((r) => r.msg.startsWith('reconcile failed; retrying'))).toEqual([]);
    expect(t.clock.pendingSleeps()).toBe(1);
    expect(d.status.runs).toHaveLength(2);
    expect(requestsSince(mark).filter((r) => r.method !== 'GET')).toEqual([]);
    expect((await get(d, '/readyz')).status).toBe(503);
  });

  it('a URL but no key: says what is missing, is not ready, and does not retry (no spinning)', async () => {
    const { logger, records } = recordingLogger();
    const t = await start({ logger, env: { TERMSYNC_BASE_URL: emulator.url } });
    const d = t.daemon;
    await d.idle();
    expect(d.status.runs.map((r) => r.result)).toEqual(['misconfigured']);
    const said = records.find((r) => r.msg.startsWith('reconcile misconfigured'));
    expect(said?.msg).toBe(
      'reconcile misconfigured: no API key for target "default": set TERMSYNC_API_KEY (or TERMSYNC_API_KEY_FILE) (not retried: the next run is the schedule\'s, a file change\'s or SIGHUP\'s)',
    );
    expect(said?.level).toBe(50);
    expect(d.status.nextRetryAt).toBeUndefined();
    expect(records.filter((r) => r.msg.startsWith('reconcile failed; retrying'))).toEqual([]);
    // However long it waits, no run until something changes.
    t.clock.advance(RETRY_BASE_MS * 1000);
    await d.idle();
    expect(d.status.runs).toHaveLength(1);
    const ready = await get(d, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toContain('the last reconcile ended misconfigured: no API key for target \\"default\\": set TERMSYNC_API_KEY');
    expect(emulator.requests()).toEqual([]);
  });

  it('retries a run that failed because the service was down, with back-off, and converges once it is back', async () => {
    emulator.setFaults('503=1');
    const t = await start({ env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY, TERMSYNC_MAX_ATTEMPTS: '1' } });
    const d = t.daemon;
    await d.idle();
    const failed = d.status.runs[0];
    expect(failed?.result).toBe('unreachable');
    const armedAt = t.clock.now();
    expect(d.status.nextRetryAt).toBe(new Date(armedAt + RETRY_BASE_MS).toISOString());
    emulator.setFaults('');
    // Not before the back-off has passed.
    t.clock.advance(RETRY_BASE_MS - 1);
    await d.idle();
    expect(d.status.runs).toHaveLength(1);
    t.clock.advance(1);
    await d.idle();
    expect(d.status.nextRetryAt).toBeUndefined();
    const retried = d.status.runs[0];
    expect(retried).toMatchObject({ trigger: 'retry', result: 'changed' });
    expect(retried?.targets[0]?.applied).toBe(8);
  });

  it('doubles the back-off while the service stays down, and a success resets it', async () => {
    emulator.setFaults('503=1');
    const t = await start({ env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY, TERMSYNC_MAX_ATTEMPTS: '1' } });
    const d = t.daemon;
    await d.idle();
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const at = Date.parse(d.status.nextRetryAt ?? '');
      waits.push(at - t.clock.now());
      t.clock.advance(at - t.clock.now());
      await d.idle();
    }
    expect(waits).toEqual([RETRY_BASE_MS, 2 * RETRY_BASE_MS, 4 * RETRY_BASE_MS]);
    expect(d.status.runs.map((r) => `${r.trigger} ${r.result}`)).toEqual(['retry unreachable', 'retry unreachable', 'retry unreachable', 'startup unreachable']);
    // Back: a SIGHUP converges, drops the waiting retry, and the next failure waits the first delay again.
    emulator.setFaults('');
    d.trigger('reload');
    await d.idle();
    expect(d.status.runs[0]).toMatchObject({ trigger: 'reload', result: 'changed' });
    expect(d.status.nextRetryAt).toBeUndefined();
    emulator.setFaults('503=1');
    d.trigger('reload');
    await d.idle();
    expect(Date.parse(d.status.nextRetryAt ?? '') - t.clock.now()).toBe(RETRY_BASE_MS);
  });

  it('stops on request: lets the running apply finish, releases the lock, and reconciles nothing more', async () => {
    const t = await start();
    const d = t.daemon;
    // Past its load (a stop during the load ends the run there, see stop-while-loading.test.ts): a target's run.
    await whenStatus(d, "the first run's target run to start", () => d.status.targets.firstRunning());
    await d.stop();
    daemon = undefined;
    // The run was finished (or stopped between operations), not abandoned: it is on record.
    expect(d.status.runs[0]?.trigger).toBe('startup');
    expect(['changed', 'interrupted']).toContain(d.status.runs[0]?.result);
    // The running reconcile finished (or stopped before its next operation); the lock is gone.
    await expect(stat(join(dir, '.termsync.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
    // Every timer is gone: the root check, the stop's grace period.
    expect(t.clock.pendingSleeps()).toBe(0);
    const mark = emulator.requests().length;
    const runs = d.status.runs.length;
    await appendFile(join(dir, 'glossaries/entries/storefront-ui.en-de.tsv'), 'after stop\tnach dem Stopp\n');
    // Every way a run starts (the watcher's report of that file, the schedule, SIGHUP, a retry),
    // asked for directly: a stopped daemon queues none of them.
    for (const trigger of ['files', 'schedule', 'reload', 'retry', 'git'] as const) d.trigger(trigger, ['glossaries/entries/storefront-ui.en-de.tsv']);
    await d.idle();
    expect(d.status.running).toBeUndefined();
    expect(d.status.runs).toHaveLength(runs);
    expect(requestsSince(mark)).toEqual([]);
  });
});

describe('termsync watch --git-pull', () => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });

  it('fast-forwards to new commits and reconciles what they changed; a pull that cannot fast-forward leaves the tree and reports it', async () => {
    const remote = join(dir, 'remote.git');
    const work = join(dir, 'work');
    const clone = join(dir, 'clone');
    git(dir, 'init', '--quiet', '--bare', '-b', 'main', remote);
    git(dir, 'clone', '--quiet', remote, work);
    await cp(join(dir, 'config'), join(work, 'config'), { recursive: true });
    await cp(join(dir, 'glossaries'), join(work, 'glossaries'), { recursive: true });
    git(work, 'checkout', '--quiet', '-b', 'main');
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', 'terms');
    git(work, 'push', '--quiet', 'origin', 'main');
    git(dir, 'clone', '--quiet', '-b', 'main', remote, clone);

    const t = await startTestDaemon({ dir: clone, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, gitPullMs: 300 });
    const d = t.daemon;
    daemon = d;
    await d.idle();
    expect(d.status.runs[0]).toMatchObject({ trigger: 'startup', result: 'changed' });

    await appendFile(join(work, 'glossaries/entries/storefront-ui.en-de.tsv'), 'loyalty points\tTreuepunkte\n');
    git(work, 'commit', '--quiet', '-am', 'one more term');
    git(work, 'push', '--quiet', 'origin', 'main');
    // Nothing is fetched before the interval has passed.
    t.clock.advance(299);
    await d.idle();
    expect(d.status.runs).toHaveLength(1);
    t.clock.advance(1);
    await d.idle();
    expect(d.status.runs[0]).toMatchObject({ trigger: 'git', result: 'changed', files: 1 });
    expect(d.status.git).toMatchObject({ ok: true, head: git(work, 'rev-parse', 'HEAD').trim() });

    // A local commit in the clone: the next pull is not a fast-forward. (Made without touching the
    // working tree: the daemon sets aside an edit of it that is not committed, before a commit could take it.)
    git(clone, 'commit', '--quiet', '--allow-empty', '-m', 'local');
    await appendFile(join(work, 'glossaries/entries/storefront-ui.en-fr.tsv'), 'remote only\tseulement distant\n');
    git(work, 'commit', '--quiet', '-am', 'remote');
    git(work, 'push', '--quiet', 'origin', 'main');
    t.clock.advance(300);
    await d.idle();
    expect(d.status.git).toMatchObject({ ok: false, failures: 1 });
    expect(d.status.git?.error).toMatch(/^git merge failed/);
    expect(d.status.runs).toHaveLength(2);
    expect(await readFile(join(clone, 'glossaries/entries/storefront-ui.en-fr.tsv'), 'utf8')).not.toContain('remote only');
    expect(await d.metrics.registry.metrics()).toMatch(/termsync_git_pulls_total\{result="failed"\} 1\n/);
  });
});

describe('a repository root behind a symbolic link (a git-sync sidecar)', () => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });

  it('reconciles what the new checkout changed when the link is swapped to it', async () => {
    const repo = join(dir, 'repo');
    git(dir, 'init', '--quiet', '-b', 'main', repo);
    await cp(join(dir, 'config'), join(repo, 'config'), { recursive: true });
    await cp(join(dir, 'glossaries'), join(repo, 'glossaries'), { recursive: true });
    git(repo, 'add', '.');
    git(repo, 'commit', '--quiet', '-m', 'one');
    const first = git(repo, 'rev-parse', 'HEAD').trim();
    git(repo, 'worktree', 'add', '--quiet', '--detach', join(dir, 'wt-1'), first);
    await symlink(join(dir, 'wt-1'), join(dir, 'current'));

    const t = await startTestDaemon({ dir: join(dir, 'current'), env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, rootCheckMs: 100 });
    const d = t.daemon;
    daemon = d;
    expect(await nextRun(d, 0)).toMatchObject({ result: 'changed' });

    await appendFile(join(repo, 'glossaries/entries/storefront-ui.en-de.tsv'), 'loyalty points\tTreuepunkte\n');
    git(repo, 'commit', '--quiet', '-am', 'two');
    git(repo, 'worktree', 'add', '--quiet', '--detach', join(dir, 'wt-2'), 'HEAD');
    // As git-sync does it: a new link next to the old one, renamed over it (atomic).
    await symlink(join(dir, 'wt-2'), join(dir, 'current.new'));
    await rename(join(dir, 'current.new'), join(dir, 'current'));
    const mark = emulator.requests().length;
    // The next root check sees the swap (it asks git what changed, then queues the run).
    t.clock.advance(100);
    const run = await nextRun(d, 1);
    expect(run).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
    const requests = requestsSince(mark);
    expect(requests.filter((r) => r.path.endsWith('/entries'))).toHaveLength(1);
    expect(requests.filter((r) => r.method !== 'GET').map((r) => r.method)).toEqual(['PATCH']);

    // The watcher follows the link: an edit in the new checkout is seen.
    await appendFile(join(dir, 'wt-2', 'glossaries/entries/storefront-ui.en-de.tsv'), 'gift voucher\tGeschenkgutschein\n');
    await t.edited();
    expect(await nextRun(d, 2)).toMatchObject({ trigger: 'files', result: 'changed', files: 1 });
  });
});
