import { writeFileSync } from 'node:fs';
import { appendFile, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Daemon, DaemonOptions } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import { PROJECT_ROOT, type Emulator } from '../e2e/harness.js';
import { git, nextRun, pushToBareRemote, startTestDaemon, type TestDaemon } from './daemon-harness.js';

const KEY = 'daemon-verify-key-29c4';
let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

async function start(repo: string, options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const test = await startTestDaemon({
    dir: repo,
    env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY },
    listen: { host: '127.0.0.1', port: 0 },
    ...options,
  });
  daemon = test.daemon;
  return test;
}

async function get(d: Daemon, path: string): Promise<string> {
  return (await fetch(`${d.url ?? ''}${path}`)).text();
}

function translateRequests(mark: number): number {
  return emulator
    .requests()
    .slice(mark)
    .filter((r) => r.path === '/v2/translate').length;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-daemon-vp-'));
  await cp(join(PROJECT_ROOT, 'config'), join(dir, 'repo', 'config'), { recursive: true });
  await cp(join(PROJECT_ROOT, 'glossaries'), join(dir, 'repo', 'glossaries'), { recursive: true });
  const config = await readFile(join(dir, 'repo', 'config/termsync.yaml'), 'utf8');
  await writeFile(join(dir, 'repo', 'config/termsync.yaml'), config.replace('requests_per_second: 5', 'requests_per_second: 200'));
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('termsync watch: verify after a reconcile that changed something', () => {
  it('runs the tests of the glossaries a run changed, and shows the results on /status and as metrics without any term', async () => {
    const repo = join(dir, 'repo');
    const t = await start(repo);
    const d = t.daemon;
    await nextRun(d, 0);
    // The start-up run created every glossary: the tests of the two that declare some ran.
    const last = d.status.verify.get('default')?.last;
    expect(last?.result).toBe('passed');
    expect(last?.glossaries).toEqual(expect.arrayContaining(['Northwind Checkout and payments', 'Northwind Product catalogue', 'Northwind Storefront UI']));
    expect(await get(d, '/metrics')).toMatch(/termsync_verify_tests\{target="default",result="pass"\} 4/);

    // An edit of a glossary without tests sends no translation.
    let mark = emulator.requests().length;
    await appendFile(join(repo, 'glossaries/entries/storefront-ui.en-de.tsv'), 'loyalty points\tTreuepunkte\n');
    await t.edited();
    await nextRun(d, 1);
    expect(translateRequests(mark)).toBe(0);

    // A wrong term in a tested glossary: applied, then its tests fail.
    mark = emulator.requests().length;
    const csv = join(repo, 'glossaries/entries/product-catalogue.en-de.csv');
    writeFileSync(csv, (await readFile(csv, 'utf8')).replace('down jacket,Daunenjacke', 'down jacket,Daunenmantel'));
    await t.edited();
    const run = await nextRun(d, 2);
    expect(run).toMatchObject({ trigger: 'files', result: 'changed' });
    // One request per language pair of its tests (en → de, en → it).
    expect(translateRequests(mark)).toBe(2);
    const metrics = await get(d, '/metrics');
    expect(metrics).toMatch(/termsync_verify_tests\{target="default",result="pass"\} 3/);
    expect(metrics).toMatch(/termsync_verify_tests\{target="default",result="fail"\} 1/);
    expect(metrics).toMatch(/termsync_verify_runs_total\{target="default",result="failed"\} 1/);
    expect(metrics).toMatch(/termsync_verify_characters_total\{target="default"\} \d+/);
    const status = JSON.parse(await get(d, '/status')) as { verify: Record<string, { result: string; pass: number; fail: number; checks: unknown[] }> };
    expect(status.verify['default']).toMatchObject({ result: 'failed', pass: 3, fail: 1, glossaries: ['Northwind Product catalogue'] });
    expect(status.verify['default']?.checks).toContainEqual({
      glossary: 'Northwind Product catalogue',
      kind: 'test',
      index: 1,
      file: 'glossaries/product-catalogue.yaml',
      line: 8,
      sourceLang: 'en',
      targetLang: 'de',
      result: 'fail',
      missing: 1,
      forbidden: 0,
    });
    const text = await get(d, '/status');
    for (const term of ['Daunenjacke', 'Daunenmantel', 'merino wool', 'Treuepunkte']) expect(text).not.toContain(term);
  }, 60_000);
});

describe('termsync watch --on-drift pull --git-pull', () => {
  it('writes a service edit into the files, pushes it to a drift branch of a local bare remote, never to the branch it reads, and does not overwrite it', async () => {
    const work = join(dir, 'repo');
    const { remote, clone } = pushToBareRemote(dir, work);
    const mainBefore = git(remote, 'rev-parse', 'main').trim();

    const t = await start(clone, { onDrift: 'pull', gitPullMs: 3_600_000, schedule: '* * * * * *', verify: false });
    const d = t.daemon;
    await nextRun(d, 0);
    const id = d.status.ids.get('default')?.glossaries['Northwind Storefront UI'] ?? '';
    expect(id).not.toBe('');
    // A terminologist changes a term in the service's web editor.
    const res = await fetch(`${emulator.url}/v3/glossaries/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'gift card\tGeschenkgutschein', entries_format: 'tsv' }] }),
    });
    expect(res.status).toBe(200);

    t.tick();
    await d.idle();
    const drift = d.status.drift;
    expect(drift).toMatchObject({ target: 'default', result: 'written', files: ['glossaries/entries/storefront-ui.en-de.tsv'], glossaries: 1, termChanges: 1 });
    expect(drift?.branch).toMatch(/^termsync\/drift-\d{4}-\d{2}-\d{2}-\d{6}$/);
    // The branch holds exactly the one changed line; the branch the daemon reads is untouched.
    const branch = drift?.branch ?? '';
    expect(git(remote, 'diff', 'main', branch)).toContain('-gift card\tGeschenkkarte\n+gift card\tGeschenkgutschein\n');
    expect(git(remote, 'diff', '--stat', 'main', branch).trim().split('\n')).toHaveLength(2);
    expect(git(remote, 'log', '-1', '--format=%s', branch).trim()).toBe('termsync: adopt edits made on the service (target default)');
    expect(git(remote, 'rev-parse', 'main').trim()).toBe(mainBefore);
    expect(git(clone, 'rev-parse', 'HEAD').trim()).toBe(mainBefore);
    expect(git(clone, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/heads/termsync/').trim().split('\n')).toHaveLength(1);

    // Later scheduled runs keep the service's term (the files hold it) and push no second branch.
    const runs = d.status.runs.length;
    for (let i = 0; i < 2; i++) {
      t.tick();
      await d.idle();
    }
    expect(d.status.runs).toHaveLength(runs + 2);
    const entries = (await (
      await fetch(`${emulator.url}/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`, { headers: { authorization: `Service-Auth-Key ${KEY}` } })
    ).json()) as { dictionaries: { entries: string }[] };
    expect(entries.dictionaries[0]?.entries).toContain('gift card\tGeschenkgutschein');
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/heads/termsync/').trim().split('\n')).toHaveLength(1);
    expect(await get(d, '/metrics')).toMatch(/termsync_drift_pulls_total\{target="default",result="written"\} 1/);

    // The pull request is merged: the daemon's next git pull fast-forwards over its own local edit.
    git(work, 'fetch', '--quiet', 'origin');
    git(work, 'merge', '--quiet', '--ff-only', `origin/${branch}`);
    git(work, 'push', '--quiet', 'origin', 'main');
    const count = d.status.runs.length;
    d.trigger('git');
    await d.idle();
    expect(d.status.runs).toHaveLength(count + 1);
    expect(d.status.git).toMatchObject({ ok: true, head: git(work, 'rev-parse', 'HEAD').trim() });
    expect(git(clone, 'status', '--porcelain')).toBe('');
    expect(await readFile(join(clone, 'glossaries/entries/storefront-ui.en-de.tsv'), 'utf8')).toContain('gift card\tGeschenkgutschein\n');
  }, 60_000);
});

describe('termsync watch --on-drift pull, when the drift pull fails', () => {
  /** Merges entries into a dictionary on the service, as its web editor does. */
  const editOnService = async (id: string, entries: string): Promise<void> => {
    const res = await fetch(`${emulator.url}/v3/glossaries/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'de', entries, entries_format: 'tsv' }] }),
    });
    expect(res.status).toBe(200);
  };
  const entriesOnService = async (id: string): Promise<string> => {
    const res = await fetch(`${emulator.url}/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`, { headers: { authorization: `Service-Auth-Key ${KEY}` } });
    return ((await res.json()) as { dictionaries: { entries: string }[] }).dictionaries[0]?.entries ?? '';
  };

  it('writes nothing to the service (its edits are kept), says why on /readyz, and adopts the edits once the pull can', async () => {
    const repo = join(dir, 'repo');
    const tsv = join(repo, 'glossaries/entries/storefront-ui.en-de.tsv');
    const t = await start(repo, { onDrift: 'pull', target: 'default', verify: false });
    const d = t.daemon;
    await d.idle();
    expect(d.status.runs[0]).toMatchObject({ trigger: 'startup', result: 'changed' });
    const id = d.status.ids.get('default')?.glossaries['Northwind Storefront UI'] ?? '';
    expect(id).not.toBe('');
    const filesBefore = await readFile(tsv, 'utf8');

    // A terminologist changes a term on the service, and someone adds an entry whose target has the
    // shape of a credential: no file may hold it, so the pull refuses the whole dictionary.
    await editOnService(id, 'gift card\tGeschenkgutschein\nsupport key\tAKIAIOSFODNN7EXAMPL3');
    const mark = emulator.requests().length;
    t.tick();
    await d.idle();
    expect(d.status.drift).toMatchObject({ target: 'default', result: 'failed' });
    expect(d.status.drift?.error).toMatch(/pull refused/);
    // The run planned and reported the difference, and wrote nothing: the service keeps its edit.
    expect(d.status.runs[0]).toMatchObject({ trigger: 'schedule', result: 'pending' });
    expect(emulator.requests().slice(mark).filter((r) => r.method !== 'GET')).toEqual([]);
    expect(await entriesOnService(id)).toContain('gift card\tGeschenkgutschein');
    expect(await readFile(tsv, 'utf8')).toBe(filesBefore);
    const ready = await fetch(`${d.url ?? ''}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { reason: string }).reason).toMatch(/^the drift pull failed \(pull refused: .*\): nothing is written to the service until the edits made there can be adopted/);
    expect(await get(d, '/metrics')).toMatch(/termsync_drift_pulls_total\{target="default",result="failed"\} 1/);
    // Not retried in a loop: the next full reconcile (the schedule, SIGHUP) tries again.
    expect(d.status.nextRetryAt).toBeUndefined();

    // The value is corrected on the service: the next scheduled run adopts both edits into the file.
    await editOnService(id, 'support key\tSupportschlüssel');
    t.tick();
    await d.idle();
    expect(d.status.drift).toMatchObject({ target: 'default', result: 'written', files: ['glossaries/entries/storefront-ui.en-de.tsv'] });
    const file = await readFile(tsv, 'utf8');
    expect(file).toContain('gift card\tGeschenkgutschein\n');
    expect(file).toContain('support key\tSupportschlüssel\n');
    expect(await entriesOnService(id)).toContain('gift card\tGeschenkgutschein');
    expect(d.status.runs[0]).toMatchObject({ trigger: 'schedule', result: 'converged' });
    expect((await fetch(`${d.url ?? ''}/readyz`)).status).toBe(200);
  }, 60_000);

  it('with several targets and no --target, writes nothing either', async () => {
    const repo = join(dir, 'repo');
    const config = join(repo, 'config/termsync.yaml');
    const text = await readFile(config, 'utf8');
    expect(text).toContain('targets:\n  - name: default\n');
    await writeFile(config, text.replace('targets:\n', 'targets:\n  - name: staging\n    base_url_env: TERMSYNC_STAGING_URL\n    api_key_env: TERMSYNC_STAGING_KEY\n'));
    const t = await start(repo, { onDrift: 'pull', verify: false, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY, TERMSYNC_STAGING_URL: emulator.url, TERMSYNC_STAGING_KEY: KEY } });
    const d = t.daemon;
    await d.idle();
    expect(d.status.drift).toMatchObject({ target: '', result: 'failed', error: 'pull adopts the state of one target: start the daemon with --target' });
    expect(emulator.requests().filter((r) => r.method !== 'GET')).toEqual([]);
    expect(d.status.runs[0]).toMatchObject({ trigger: 'startup', result: 'pending' });
    expect((await fetch(`${d.url ?? ''}/readyz`)).status).toBe(503);
  });
});
