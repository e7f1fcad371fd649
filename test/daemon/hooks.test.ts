import { createHmac } from 'node:crypto';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DELIVERY_MEMORY_MS, MAX_HOOK_BODY_BYTES, secretFile } from '../../src/daemon/hook-routes.js';
import type { Daemon, DaemonOptions } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCliCaptured } from '../cli/run-cli.js';
import type { Emulator } from '../e2e/harness.js';
import { copyExample, git, nextRun, pushToBareRemote, startTestDaemon, type TestDaemon } from './daemon-harness.js';

/*
 * The endpoints that start a run from outside: POST /hooks/github, /hooks/gitlab and /reconcile,
 * on a daemon that follows a git remote (--git-pull, whose own timer never fires: the fake clock
 * stands still) or a plain folder. A request that must change nothing is followed by `idle()`: a
 * hook queues its run before it answers, so a run it had asked for would be waited for there.
 */

const KEY = 'hooks-test-key-31c2';
const SECRET = 'webhook-secret-8d2f';
const TOKEN = 'reconcile-token-7a9e';
let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-hooks-'));
  emulator = await startEmulator({ port: 0, keys: [KEY] });
  await writeFile(join(dir, 'secret'), `${SECRET}\n`);
  await writeFile(join(dir, 'token'), `${TOKEN}\n`);
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

/** The example repository in `work`, pushed to a bare remote, and the daemon's clone of it (`clone`, on main). */
async function gitRepositories(): Promise<{ work: string; clone: string }> {
  const work = join(dir, 'work');
  await copyExample(work);
  await writeFile(join(work, '.gitignore'), '.termsync.lock\n');
  return { work, clone: pushToBareRemote(dir, work).clone };
}

async function start(repo: string, options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const t = await startTestDaemon({
    dir: repo,
    env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY },
    listen: { host: '127.0.0.1', port: 0 },
    verify: false,
    hooks: { webhookSecret: secretFile(join(dir, 'secret'), '--webhook-secret-file'), reconcileToken: secretFile(join(dir, 'token'), '--reconcile-token-file') },
    ...options,
  });
  daemon = t.daemon;
  await nextRun(t.daemon, 0);
  return t;
}

function signature(body: string, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function post(d: Daemon, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: unknown; headers: Headers }> {
  const res = await fetch(`${d.url ?? ''}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown), headers: res.headers };
}

function github(d: Daemon, delivery: string, body: string, event = 'push', sign = signature(body)): ReturnType<typeof post> {
  return post(d, '/hooks/github', body, { 'x-github-event': event, 'x-github-delivery': delivery, 'x-hub-signature-256': sign });
}

const pushTo = (ref: string): string => JSON.stringify({ ref, before: '0'.repeat(40), after: '1'.repeat(40), repository: { full_name: 'example/terminology' } });

/** The entries of one dictionary as the service holds them. */
async function entriesOnService(d: Daemon, glossary: string, sourceLang: string, targetLang: string): Promise<string> {
  const id = d.status.ids.get('default')?.glossaries[glossary];
  if (id === undefined) return '';
  const res = await fetch(`${emulator.url}/v3/glossaries/${id}/entries?source_lang=${sourceLang}&target_lang=${targetLang}`, { headers: { authorization: `Service-Auth-Key ${KEY}` } });
  return ((await res.json()) as { dictionaries: { entries: string }[] }).dictionaries[0]?.entries ?? '';
}

async function metrics(d: Daemon): Promise<string> {
  return (await fetch(`${d.url ?? ''}/metrics`)).text();
}

describe('POST /hooks/github with --git-pull', () => {
  it('a signed push to the watched branch fetches and reconciles the new commit at once, without the clock moving', async () => {
    const { work, clone } = await gitRepositories();
    const t = await start(clone, { gitPullMs: 3_600_000 });
    const d = t.daemon;
    await appendFile(join(work, 'glossaries/entries/storefront-ui.en-de.tsv'), 'webhook term\tWebhookbegriff\n');
    git(work, 'commit', '--quiet', '-am', 'a term');
    git(work, 'push', '--quiet', 'origin', 'main');
    const head = git(work, 'rev-parse', 'HEAD').trim();
    const now = t.clock.now();

    const answer = await github(d, 'delivery-1', pushTo('refs/heads/main'));
    expect(answer).toMatchObject({ status: 202, json: { reconcile: 'queued' } });
    const run = await nextRun(d, 1);
    // No timer was involved: the git poll (an hour) and the schedule never fired.
    expect(t.clock.now()).toBe(now);
    expect(run).toMatchObject({ trigger: 'webhook', result: 'changed', files: 1 });
    expect(d.status.git).toMatchObject({ ok: true, head });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('webhook term\tWebhookbegriff');
    const text = await metrics(d);
    expect(text).toContain('termsync_reconcile_runs_total{target="default",trigger="webhook",result="changed"} 1');
    expect(text).toContain('termsync_hook_requests_total{endpoint="/hooks/github",result="queued"} 1');
  });

  it('answers a bad signature 401, a replayed delivery 409 and an oversized body 413, and none of them changes anything', async () => {
    const { work, clone } = await gitRepositories();
    const t = await start(clone, { gitPullMs: 3_600_000 });
    const d = t.daemon;
    await appendFile(join(work, 'glossaries/entries/storefront-ui.en-de.tsv'), 'held term\tGehaltener Begriff\n');
    git(work, 'commit', '--quiet', '-am', 'a term');
    git(work, 'push', '--quiet', 'origin', 'main');
    const body = pushTo('refs/heads/main');
    const before = git(clone, 'rev-parse', 'HEAD').trim();
    const expectNothingChanged = async (): Promise<void> => {
      await d.idle();
      expect(d.status.runs).toHaveLength(1);
      expect(git(clone, 'rev-parse', 'HEAD').trim()).toBe(before);
      expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).not.toContain('held term');
    };

    // Signed with another secret, not signed, signed over another body, the header of the old SHA-1 scheme only.
    expect(await github(d, 'bad-1', body, 'push', signature(body, 'not-the-secret'))).toMatchObject({ status: 401 });
    expect((await post(d, '/hooks/github', body, { 'x-github-event': 'push', 'x-github-delivery': 'bad-2' })).status).toBe(401);
    expect(await github(d, 'bad-3', body, 'push', signature(pushTo('refs/heads/other')))).toMatchObject({ status: 401 });
    expect((await post(d, '/hooks/github', body, { 'x-github-event': 'push', 'x-github-delivery': 'bad-4', 'x-hub-signature': 'sha1=0' })).status).toBe(401);
    await expectNothingChanged();

    // Larger than the limit, validly signed: refused before the signature is looked at.
    const big = JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(MAX_HOOK_BODY_BYTES) });
    expect(await github(d, 'big-1', big, 'push', signature(big))).toMatchObject({ status: 413 });
    await expectNothingChanged();

    // Once accepted, the same delivery again is a replay; a new delivery of the same push is not.
    expect(await github(d, 'delivery-1', body)).toMatchObject({ status: 202 });
    await nextRun(d, 1);
    expect(d.status.runs[0]).toMatchObject({ trigger: 'webhook', result: 'changed' });
    expect(await github(d, 'delivery-1', body)).toMatchObject({ status: 409, json: { error: 'delivery delivery-1 was received before' } });
    await d.idle();
    expect(d.status.runs).toHaveLength(2);
    // The bad ones were not remembered: their ids are free (a refused request changes nothing).
    expect(await github(d, 'bad-1', body)).toMatchObject({ status: 202 });
    await d.idle();
    // Nothing new to fetch: the pull brought nothing, so no run (the push was reconciled already).
    expect(d.status.runs).toHaveLength(2);

    const text = await metrics(d);
    expect(text).toContain('termsync_hook_requests_total{endpoint="/hooks/github",result="unauthorized"} 4');
    expect(text).toContain('termsync_hook_requests_total{endpoint="/hooks/github",result="too_large"} 1');
    expect(text).toContain('termsync_hook_requests_total{endpoint="/hooks/github",result="replayed"} 1');
  });

  it('remembers a delivery for a bounded time: after DELIVERY_MEMORY_MS on the clock it is accepted again', async () => {
    const { clone } = await gitRepositories();
    // No pull and no root check falls due while the clock moves a day: the work of the test is the
    // same whatever the clock's step (a pull an hour and a root check every 2 s made it 24 git
    // fetches and 43,200 checks, 20 s at a load of 13 on two cores).
    const t = await start(clone, { gitPullMs: 2 * DELIVERY_MEMORY_MS, rootCheckMs: 2 * DELIVERY_MEMORY_MS });
    const d = t.daemon;
    const body = pushTo('refs/heads/main');
    expect((await github(d, 'delivery-7', body)).status).toBe(202);
    await d.idle();
    t.clock.advance(DELIVERY_MEMORY_MS - 1);
    await d.idle();
    expect((await github(d, 'delivery-7', body)).status).toBe(409);
    t.clock.advance(2);
    await d.idle();
    expect((await github(d, 'delivery-7', body)).status).toBe(202);
  });

  it('answers ping, ignores a push to another branch, a tag and other events (no run), and needs a delivery id', async () => {
    const { clone } = await gitRepositories();
    const d = (await start(clone, { gitPullMs: 3_600_000 })).daemon;
    expect(await github(d, 'p-1', JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }), 'ping')).toMatchObject({ status: 200, json: { pong: true, follows: 'refs/heads/main' } });
    expect(await github(d, 'o-1', pushTo('refs/heads/feature'))).toMatchObject({
      status: 200,
      json: { reconcile: false, reason: 'a push to refs/heads/feature; the daemon follows refs/heads/main' },
    });
    expect(await github(d, 'o-2', pushTo('refs/tags/v1'))).toMatchObject({ status: 200, json: { reconcile: false } });
    expect(await github(d, 'o-3', JSON.stringify({ action: 'opened' }), 'pull_request')).toMatchObject({ status: 200, json: { reconcile: false } });
    const body = pushTo('refs/heads/main');
    expect((await post(d, '/hooks/github', body, { 'x-github-event': 'push', 'x-hub-signature-256': signature(body) })).status).toBe(400);
    // GitHub's other content type: the JSON as the form field `payload`.
    const form = `payload=${encodeURIComponent(pushTo('refs/heads/feature'))}`;
    expect(await post(d, '/hooks/github', form, { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'push', 'x-github-delivery': 'f-1', 'x-hub-signature-256': signature(form) })).toMatchObject({
      status: 200,
      json: { reconcile: false },
    });
    await d.idle();
    expect(d.status.runs).toHaveLength(1);
    // Only POST.
    expect((await fetch(`${d.url ?? ''}/hooks/github`)).status).toBe(405);
  });

  it('reads the secret file at each request: a rotated secret needs no restart', async () => {
    const { clone } = await gitRepositories();
    const d = (await start(clone, { gitPullMs: 3_600_000 })).daemon;
    const body = pushTo('refs/heads/feature');
    await writeFile(join(dir, 'secret'), 'the-new-secret\n');
    expect((await github(d, 'r-1', body)).status).toBe(401);
    expect((await github(d, 'r-2', body, 'push', signature(body, 'the-new-secret'))).status).toBe(200);
    // A secret that cannot be read any more refuses every request (500), it never lets one through.
    await rm(join(dir, 'secret'));
    expect(await github(d, 'r-3', body, 'push', signature(body, 'the-new-secret'))).toMatchObject({ status: 500, json: { error: 'the secret cannot be read: see the daemon log' } });
  });
});

describe('POST /hooks/gitlab', () => {
  const gitlab = (d: Daemon, uuid: string, body: string, token = SECRET, event = 'Push Hook'): ReturnType<typeof post> =>
    post(d, '/hooks/gitlab', body, { 'x-gitlab-event': event, 'x-gitlab-event-uuid': uuid, 'x-gitlab-token': token });

  it('a Push Hook with the token reconciles the watched branch; a wrong token is 401, a replay 409, another branch no run', async () => {
    const { work, clone } = await gitRepositories();
    const d = (await start(clone, { gitPullMs: 3_600_000 })).daemon;
    await appendFile(join(work, 'glossaries/entries/storefront-ui.en-de.tsv'), 'gitlab term\tGitLab-Begriff\n');
    git(work, 'commit', '--quiet', '-am', 'a term');
    git(work, 'push', '--quiet', 'origin', 'main');
    const body = JSON.stringify({ object_kind: 'push', ref: 'refs/heads/main' });

    expect(await gitlab(d, 'u-1', body, 'wrong-token')).toMatchObject({ status: 401 });
    expect(await gitlab(d, 'u-2', body, `${SECRET}x`)).toMatchObject({ status: 401 });
    expect((await post(d, '/hooks/gitlab', body, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u-3' })).status).toBe(401);
    expect(await gitlab(d, 'u-4', JSON.stringify({ object_kind: 'push', ref: 'refs/heads/feature' }))).toMatchObject({ status: 200, json: { reconcile: false } });
    expect(await gitlab(d, 'u-5', JSON.stringify({ object_kind: 'merge_request' }), SECRET, 'Merge Request Hook')).toMatchObject({ status: 200, json: { reconcile: false } });
    // GitLab always sends JSON: the body is read as such whatever the Content-Type (curl's default is form-encoded).
    const formTyped = { 'content-type': 'application/x-www-form-urlencoded', 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u-5f', 'x-gitlab-token': SECRET };
    expect(await post(d, '/hooks/gitlab', JSON.stringify({ object_kind: 'push', ref: 'refs/heads/feature' }), formTyped)).toMatchObject({ status: 200, json: { reconcile: false } });
    await d.idle();
    expect(d.status.runs).toHaveLength(1);

    expect(await gitlab(d, 'u-6', body)).toMatchObject({ status: 202 });
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'webhook', result: 'changed', files: 1 });
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'de')).toContain('gitlab term\tGitLab-Begriff');
    expect(await gitlab(d, 'u-6', body)).toMatchObject({ status: 409 });
    expect((await post(d, '/hooks/gitlab', body, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET })).status).toBe(400);
  });
});

describe('webhooks without --git-pull, and POST /reconcile', () => {
  async function plainRepository(): Promise<string> {
    const repo = join(dir, 'repo');
    await copyExample(repo);
    return repo;
  }

  it('a push webhook makes a full reconcile of the tree as it is (nothing to fetch), repairing drift; the branch is named by --webhook-branch', async () => {
    const repo = await plainRepository();
    const t = await start(repo, { hooks: { webhookSecret: secretFile(join(dir, 'secret'), '--webhook-secret-file'), branch: 'production' } });
    const d = t.daemon;
    const id = d.status.ids.get('default')?.glossaries['Northwind Storefront UI'] ?? '';
    // An edit on the service, outside git: only a run that reads every dictionary sees it.
    await fetch(`${emulator.url}/v3/glossaries/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [{ source_lang: 'en', target_lang: 'fr', entries: 'drifted term\tterme dérivé', entries_format: 'tsv' }] }),
    });
    expect((await github(d, 'w-1', pushTo('refs/heads/main'))).status).toBe(200);
    expect(await github(d, 'w-2', pushTo('refs/heads/production'))).toMatchObject({ status: 202 });
    const run = await nextRun(d, 1);
    expect(run).toMatchObject({ trigger: 'webhook', result: 'changed' });
    expect(run.files).toBeUndefined();
    expect(run.targets[0]?.notRefreshed).toBeUndefined();
    expect(await entriesOnService(d, 'Northwind Storefront UI', 'en', 'fr')).not.toContain('drifted term');
    // Without --reconcile-token-file, POST /reconcile is not served (a path the table does not hold answers only GET and HEAD: 404 there).
    expect((await post(d, '/reconcile', '', { authorization: `Bearer ${TOKEN}` })).status).toBe(405);
    expect((await fetch(`${d.url ?? ''}/reconcile`)).status).toBe(404);
  });

  it('POST /reconcile with the bearer token queues a full run (trigger api); without it, 401 and no run', async () => {
    const repo = await plainRepository();
    const d = (await start(repo, { hooks: { reconcileToken: secretFile(join(dir, 'token'), '--reconcile-token-file') } })).daemon;
    const refused = await post(d, '/reconcile', '', { authorization: 'Bearer wrong' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="termsync"');
    expect((await post(d, '/reconcile', '', {})).status).toBe(401);
    expect((await post(d, '/reconcile', '', { authorization: `Basic ${TOKEN}` })).status).toBe(401);
    await d.idle();
    expect(d.status.runs).toHaveLength(1);
    expect(await post(d, '/reconcile', '', { authorization: `Bearer ${TOKEN}` })).toMatchObject({ status: 202, json: { reconcile: 'queued' } });
    expect(await nextRun(d, 1)).toMatchObject({ trigger: 'api', result: 'converged' });
    // The webhooks are off without their secret.
    expect((await github(d, 'x-1', pushTo('refs/heads/main'))).status).toBe(405);
    expect((await fetch(`${d.url ?? ''}/hooks/github`)).status).toBe(404);
    expect(await metrics(d)).toContain('termsync_hook_requests_total{endpoint="/reconcile",result="unauthorized"} 3');
  });

  it('refuses to start when no branch can be told: a checkout that is not on a branch needs --webhook-branch', async () => {
    const repo = await plainRepository();
    await expect(
      startTestDaemon({ dir: repo, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, listen: { host: '127.0.0.1', port: 0 }, hooks: { webhookSecret: secretFile(join(dir, 'secret'), '--webhook-secret-file') } }),
    ).rejects.toThrow(/name it with --webhook-branch/);
  });
});

describe("watch's secret files", () => {
  it('a secret file that cannot be used stops the start with exit 3 and a message naming the option and the file, never its text', async () => {
    const repo = join(dir, 'repo');
    await copyExample(repo);
    await writeFile(join(dir, 'empty'), '\n');
    const watch = (args: string[], env: Record<string, string> = {}): ReturnType<typeof runCliCaptured> =>
      runCliCaptured(['watch', '--dir', repo, '--listen', '127.0.0.1:0', ...args], { cwd: repo, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY, ...env } });
    const cases: [string[], Record<string, string>, string][] = [
      [['--webhook-secret-file', join(dir, 'missing')], {}, `cannot read the file of --webhook-secret-file (TERMSYNC_WEBHOOK_SECRET_FILE) (${join(dir, 'missing')}): ENOENT`],
      [[], { TERMSYNC_WEBHOOK_SECRET_FILE: '/dev/zero' }, 'cannot read the file of --webhook-secret-file (TERMSYNC_WEBHOOK_SECRET_FILE) (/dev/zero): it is a device: name a regular file that holds the secret'],
      [['--reconcile-token-file', join(dir, 'empty')], {}, `the file of --reconcile-token-file (TERMSYNC_RECONCILE_TOKEN_FILE) (${join(dir, 'empty')}) is empty: write the secret into it`],
      [['--reconcile-token-file', dir], {}, 'it is a folder'],
      [['--webhook-branch', 'main'], {}, '--webhook-branch needs --webhook-secret-file (or TERMSYNC_WEBHOOK_SECRET_FILE): without a secret the webhooks are off'],
    ];
    for (const [args, env, message] of cases) {
      const run = await watch(args, env);
      expect(run.code, message).toBe(3);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    // A folder that is not a checkout of a branch (no git here), without --webhook-branch: exit 3 before anything runs.
    const detached = await watch(['--webhook-secret-file', join(dir, 'secret')]);
    expect(detached.code).toBe(3);
    expect(detached.stderr).toContain('name it with --webhook-branch');
    expect(detached.stderr).not.toContain(SECRET);
    expect(emulator.requests()).toEqual([]);
  });
});
