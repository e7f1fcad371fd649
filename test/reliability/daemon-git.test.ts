// The daemon's git mode (`watch --git-pull`), run as a real process against a local bare remote:
// an edit of the clone's working tree that is not committed (a changed entries file, a new
// glossary) is never applied, and set aside in a git stash; what is pushed is applied; a remote
// that cannot be reached makes /readyz answer 503 after a few failed pulls (also on /status and in
// a metric), and ready again once pulls succeed. A daemon listening beyond loopback warns that its
// endpoints have no authentication.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { until } from '../helpers/until.js';
import { createArea, freePort, liveState, looksLikeStackTrace, type RunResult, SECRET_KEY, serviceEnv, writeRepo } from './harness.js';

const area = createArea('daemon-git');
const IDENTITY = ['-c', 'user.name=termsync test', '-c', 'user.email=test@localhost'];

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...IDENTITY, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(area.dir, 'home'), GIT_TERMINAL_PROMPT: '0' } });
}

const REPO = {
  'config/termsync.yaml': 'version: 1\nprune: "off"\ntargets:\n  - name: default\n',
  'glossaries/git.yaml': 'kind: glossary\nname: rel git terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: git.en-de.tsv\n',
  'glossaries/git.en-de.tsv': 'committed term\tfestgeschriebener Begriff\n',
};

describe('the daemon with --git-pull', () => {
  let emulator: RunningEmulator | undefined;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await emulator?.close();
  });

  it('applies only what is committed, and says so on /readyz when every pull fails', async () => {
    emulator = await startEmulator({ port: 0, seed: 91, keys: [SECRET_KEY] });
    const url = emulator.url;
    const remote = await area.folder('remote.git');
    const work = await area.folder('work');
    const clone = join(area.dir, 'clone');
    git(remote, 'init', '--quiet', '--bare', '-b', 'main');
    git(work, 'init', '--quiet', '-b', 'main');
    await writeRepo(work, { ...REPO, '.gitignore': '.termsync.lock\n' });
    git(work, 'add', '.');
    git(work, 'commit', '--quiet', '-m', 'terms');
    git(work, 'remote', 'add', 'origin', remote);
    git(work, 'push', '--quiet', '-u', 'origin', 'main');
    git(area.dir, 'clone', '--quiet', '-b', 'main', remote, clone);

    const entries = async (): Promise<string> => {
      const live = await liveState(url);
      const id = live.glossaries.find((g) => g.name === 'rel git terms')?.glossary_id;
      if (id === undefined) return '';
      const answer = await fetch(`${url}/v3/glossaries/${id}/entries?source_lang=en&target_lang=de`, { headers: { authorization: `Service-Auth-Key ${SECRET_KEY}` } });
      return ((await answer.json()) as { dictionaries: { entries: string }[] }).dictionaries[0]?.entries ?? '';
    };

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const readyz = async (): Promise<{ status: number; reason: string }> => {
      const answer = await fetch(`${base}/readyz`);
      return { status: answer.status, reason: ((await answer.json()) as { reason: string }).reason };
    };
    const status = async (): Promise<Record<string, unknown>> => (await (await fetch(`${base}/status`)).json()) as Record<string, unknown>;
    const watch: Promise<RunResult> = area.run(['watch', '--dir', '.', '--listen', `127.0.0.1:${port}`, '--git-pull', '1s', '--log-format', 'json'], {
      cwd: clone,
      env: serviceEnv(url),
      timeoutMs: 300_000,
      onSpawn: (c) => children.push(c),
    });
    const lastRun = async (): Promise<string | undefined> => ((await status()).runs as { result: string }[])[0]?.result;
    await until('the start-up run', async () => ((await lastRun()) === 'changed' ? true : undefined), { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true });
    expect(await entries()).toBe('committed term\tfestgeschriebener Begriff');

    // An edit of the working tree, not committed: a term added to a file, and a new glossary.
    const tsv = join(clone, 'glossaries/git.en-de.tsv');
    await appendFile(tsv, 'local only\tnur lokal\n');
    await writeFile(join(clone, 'glossaries/local.yaml'), 'kind: glossary\nname: rel local glossary\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries:\n      local: lokal\n');
    // Then something committed and pushed: it is applied, the local edit is not.
    await appendFile(join(work, 'glossaries/git.en-de.tsv'), 'pushed term\tgepushter Begriff\n');
    git(work, 'commit', '--quiet', '-am', 'one more term');
    git(work, 'push', '--quiet', 'origin', 'main');
    const applied = await until('the pushed term on the service', async () => ((await entries()).includes('pushed term') ? entries() : undefined), { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true }).catch(async (error: unknown) => {
      const names = (await liveState(url)).glossaries.map((g) => g.name).join(', ');
      throw new Error(`${String(error)}; the service holds ${JSON.stringify(await entries())} in the glossaries ${names}; /readyz ${JSON.stringify(await readyz())}`);
    });
    const aside = ((await status()).localEdits ?? { files: [], stash: '' }) as { files: string[]; stash: string };
    const live = await liveState(url);
    const stashes = git(clone, 'stash', 'list');
    area.tried(
      `local edits (a term in a file, a new glossary): set aside ${JSON.stringify(aside.files)} in stash ${aside.stash.slice(0, 12)}; ` +
        `after a pushed commit the service holds ${JSON.stringify(applied)} and the glossaries ${live.glossaries.map((g) => g.name).join(', ')}; git stash list: ${stashes.trim()}`,
    );
    expect(aside.files).toEqual(['glossaries/git.en-de.tsv', 'glossaries/local.yaml']);
    expect(applied).toBe('committed term\tfestgeschriebener Begriff\npushed term\tgepushter Begriff');
    expect(live.glossaries.map((g) => g.name)).toEqual(['rel git terms']);
    expect(stashes).toContain('termsync: local edits set aside');
    expect(await readFile(tsv, 'utf8')).toBe('committed term\tfestgeschriebener Begriff\npushed term\tgepushter Begriff\n');
    // Nothing of the edit is lost: the stash holds it.
    expect(git(clone, 'stash', 'show', '--include-untracked', '-p', 'stash@{0}')).toContain('+local only\tnur lokal');

    // The remote goes away: every pull fails; after a few, /readyz says so (and /status, /metrics).
    await rename(remote, `${remote}-moved`);
    const failing = await until('/readyz 503 for the failed pulls', async () => {
      const r = await readyz();
      return r.status === 503 ? r : undefined;
    }, { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true });
    const git503 = (await status()).git as { ok: boolean; failures: number; error: string };
    const metrics = await (await fetch(`${base}/metrics`)).text();
    area.tried(`remote unreachable: /readyz ${failing.status} (${failing.reason}); /status git ${JSON.stringify(git503).slice(0, 200)}; metric ${/termsync_git_pull_consecutive_failures \d+/.exec(metrics)?.[0] ?? 'absent'}`);
    expect(failing.reason).toMatch(/^the last \d+ git pulls failed \(git fetch failed: .*\): the service follows an old revision$/);
    expect(git503.ok).toBe(false);
    expect(git503.failures).toBeGreaterThanOrEqual(3);
    expect(Number(/termsync_git_pull_consecutive_failures (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);

    // Back: the next pull succeeds and the daemon is ready again.
    await rename(`${remote}-moved`, remote);
    const back = await until('/readyz 200 once pulls succeed', async () => {
      const r = await readyz();
      return r.status === 200 ? r : undefined;
    }, { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true });
    const recovered = await (await fetch(`${base}/metrics`)).text();
    area.tried(`remote back: /readyz ${back.status} (${back.reason}); metric ${/termsync_git_pull_consecutive_failures \d+/.exec(recovered)?.[0] ?? 'absent'}`);
    expect(recovered).toMatch(/termsync_git_pull_consecutive_failures 0/);

    // A commit made in the clone, not pushed: not the upstream's revision, so not applied either.
    await appendFile(tsv, 'local commit\tlokaler Commit\n');
    git(clone, 'commit', '--quiet', '-am', 'local, not pushed');
    const refused = await until('the local commit refused on /status', async () => {
      const g = (await status()).git as { error?: string };
      return g.error?.includes('commit its upstream does not have') === true ? g.error : undefined;
    }, { timeoutMs: 30_000, everyMs: 200, ignoreErrors: true });
    const stillThere = await entries();
    area.tried(`a local commit, not pushed: /status git says "${refused}"; the service holds ${JSON.stringify(stillThere)}`);
    expect(stillThere).not.toContain('local commit');

    children.at(-1)?.kill('SIGTERM');
    const daemon = await watch;
    area.tried(`watch stopped by SIGTERM: exit ${daemon.code ?? daemon.signal}`);
    expect(daemon.code).toBe(0);
    expect(looksLikeStackTrace(daemon.stderr)).toBe(false);
    // Listening on loopback: no warning about the endpoints.
    expect(daemon.stderr).not.toContain('have no authentication');
  });

  it('--listen 0.0.0.0: a warning that the endpoints have no authentication', async () => {
    const dir = await area.folder('open');
    await writeRepo(dir, REPO);
    const port = await freePort();
    let child: ChildProcess | undefined;
    const watch = area.run(['watch', '--dir', '.', '--listen', `0.0.0.0:${port}`, '--log-format', 'json'], {
      cwd: dir,
      env: serviceEnv(emulator?.url ?? ''),
      timeoutMs: 120_000,
      onSpawn: (c) => {
        child = c;
        children.push(c);
      },
    });
    await until('/healthz', async () => ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 ? true : undefined), { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true });
    child?.kill('SIGTERM');
    const daemon = await watch;
    const warning = daemon.stderr.split('\n').find((l) => l.includes('have no authentication')) ?? '';
    area.tried(`--listen 0.0.0.0:${port}: exit ${daemon.code ?? daemon.signal}; warned: ${warning.slice(0, 300)}`);
    expect(daemon.code).toBe(0);
    expect(JSON.parse(warning)).toMatchObject({ level: 40, listen: `0.0.0.0:${port}` });
    expect(warning).toContain('a NetworkPolicy, a reverse proxy with authentication, or --listen 127.0.0.1 with a sidecar');
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(5);
    expect(hits).toEqual([]);
  });
});
