// Secrets: every command, at the most talkative log level, in its success and failure paths, with
// the key given as a variable and as a file; the daemon's endpoints read while it runs. Everything
// they print, write or serve is kept under this check's folder and searched for the key (each
// other check searches its own outputs the same way).
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { until } from '../helpers/until.js';
import { createArea, freePort, inParallel, type RunResult, SECRET_KEY, serviceEnv, writeRepo } from './harness.js';
import { termRepository } from './term-repository.js';

const area = createArea('secrets');
const TRACE = ['--log-level', 'trace'];

const VERIFIED = `kind: glossary
name: rel verified
dictionaries:
  - source_lang: en
    target_lang: de
    entries:
      gift card: Geschenkkarte
tests:
  - source_lang: en
    target_lang: de
    text: "Add the gift card to your cart."
    expect: [Geschenkkarte]
`;

describe('secrets: the key is never printed, logged, written or served', () => {
  const emulators: RunningEmulator[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(emulators.map((e) => e.close()));
    for (const clean of cleanups) await clean();
  });

  it('every command, success and failure paths, trace logging', async () => {
    const log = (name: string) => pino({ level: 'trace' }, pino.destination({ dest: join(area.dir, `emulator-${name}.log`), sync: true }));
    const emulator = await startEmulator({ port: 0, seed: 51, keys: [SECRET_KEY], logger: log('main') });
    const otherAccount = await startEmulator({ port: 0, seed: 52, keys: ['not-the-suite-key'], logger: log('other') });
    const faulty = await startEmulator({ port: 0, seed: 53, keys: [SECRET_KEY], faults: '429=0.3,503=0.2,reset=0.1', logger: log('faulty') });
    emulators.push(emulator, otherAccount, faulty);
    const dir = await area.folder('repo');
    await writeRepo(dir, { ...termRepository(51, 0, { v3: 3, v2: 1, styleLists: 1, entries: 10 }), 'glossaries/verified.yaml': VERIFIED });
    // The key file itself lives outside the searched folder (it is the one place the key belongs).
    const keyDir = await mkdtemp(join(tmpdir(), 'termsync-key-'));
    cleanups.push(() => rm(keyDir, { recursive: true, force: true }));
    const keyFile = join(keyDir, 'key');
    await writeFile(keyFile, `${SECRET_KEY}\n`, { mode: 0o600 });
    const env = serviceEnv(emulator.url);
    const fromFile = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY_FILE: keyFile };
    const config = { 'config/termsync.yaml': termRepository(51, 0, { v3: 0, v2: 0, styleLists: 0, entries: 1 })['config/termsync.yaml'] as string };
    const imported = await area.folder('imported');
    await writeRepo(imported, config);
    const importedXlsx = await area.folder('imported-xlsx');
    await writeRepo(importedXlsx, config);

    const runs: [string, readonly string[], Record<string, string>, string, readonly number[]][] = [
      ['validate', ['validate', '--dir', '.', ...TRACE], env, dir, [0]],
      ['plan (text, saved)', ['plan', '--dir', '.', '--out', 'saved.plan.json', ...TRACE], env, dir, [0]],
      ['plan (markdown)', ['plan', '--dir', '.', '--format', 'markdown', ...TRACE], env, dir, [0]],
      ['plan (json)', ['plan', '--dir', '.', '--format', 'json', ...TRACE], env, dir, [0]],
      ['apply of the saved plan, ids written', ['apply', 'saved.plan.json', '--dir', '.', '--ids-out', 'ids.json', ...TRACE], env, dir, [0]],
      ['apply (json), key from a file', ['apply', '--dir', '.', '--format', 'json', ...TRACE], fromFile, dir, [0]],
      ['verify', ['verify', '--dir', '.', '--format', 'json', ...TRACE], env, dir, [0, 8]],
      ['apply --verify', ['apply', '--dir', '.', '--verify', ...TRACE], env, dir, [0, 8]],
      ['pull --check', ['pull', '--check', '--dir', '.', ...TRACE], env, dir, [0, 2]],
      ['pull', ['pull', '--dir', '.', ...TRACE], env, dir, [0]],
      ['import (tsv)', ['import', '--dir', '.', ...TRACE], env, imported, [0]],
      ['import (xlsx)', ['import', '--dir', '.', '--format', 'xlsx', ...TRACE], env, importedXlsx, [0]],
      ['plan under faults', ['plan', '--dir', '.', ...TRACE], serviceEnv(faulty.url), dir, [0, 7]],
      ['apply under faults', ['apply', '--dir', '.', ...TRACE], serviceEnv(faulty.url), dir, [0, 6, 7]],
      ['a key another account does not know (401)', ['plan', '--dir', '.', ...TRACE], serviceEnv(otherAccount.url), dir, [7]],
      ['a key with a space in it', ['plan', '--dir', '.', ...TRACE], { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: `${SECRET_KEY} x` }, dir, [7]],
      ['a URL termsync refuses (plain http elsewhere)', ['plan', '--dir', '.', ...TRACE], serviceEnv('http://example.com:9/'), dir, [7]],
      ['a URL that carries credentials', ['plan', '--dir', '.', ...TRACE], serviceEnv(`http://user:${encodeURIComponent(SECRET_KEY)}@127.0.0.1:9/`), dir, [7]],
      ['nothing listening', ['apply', '--dir', '.', ...TRACE], serviceEnv('http://127.0.0.1:9/'), dir, [7]],
      ['an unknown option', ['plan', '--dir', '.', '--no-such-option', ...TRACE], env, dir, [3]],
    ];
    const problems: string[] = [];
    const one = async ([name, argv, runEnv, cwd, codes]: (typeof runs)[number]): Promise<void> => {
      const run = await area.run(argv, { cwd, env: { ...runEnv, TERMSYNC_MAX_ATTEMPTS: '3' }, timeoutMs: 120_000 });
      area.tried(`${name}: exit ${run.code ?? run.signal}, ${run.stdout.length} bytes out, ${run.stderr.split('\n').length - 1} lines on stderr`);
      if (!codes.includes(run.code ?? -1)) problems.push(`${name}: exit ${run.code ?? run.signal}, expected ${codes.join(' or ')}: ${run.stderr.slice(-300)}`);
    };
    // The runs that change the repository or the service go one after the other; those that end
    // before any write (refusals, failures) run two at a time after them.
    const refusals = runs.filter(([, , , , codes]) => !codes.includes(0));
    for (const run of runs.filter((r) => !refusals.includes(r))) await one(run);
    await inParallel(2, refusals.map((run) => () => one(run)));

    // TERMSYNC_ALLOWED_HOSTS (environment only) naming another host: the key goes nowhere.
    const before = emulator.requests().length;
    const fenced = await area.run(['plan', '--dir', '.', ...TRACE], { cwd: dir, env: { ...env, TERMSYNC_ALLOWED_HOSTS: 'api.service.example' } });
    const sent = emulator.requests().length - before;
    area.tried(`TERMSYNC_ALLOWED_HOSTS=api.service.example, URL on 127.0.0.1: exit ${fenced.code}, ${sent} requests; said: ${fenced.stderr.trim().split('\n').pop() ?? ''}`);
    if (fenced.code !== 7 || sent !== 0) problems.push(`TERMSYNC_ALLOWED_HOSTS: exit ${fenced.code}, ${sent} requests (expected 7 and none)`);

    // The daemon: its endpoints are outputs too.
    const port = await freePort();
    let child: ChildProcess | undefined;
    const watch: Promise<RunResult> = area.run(['watch', '--dir', '.', '--listen', `127.0.0.1:${port}`, '--log-format', 'json', ...TRACE], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
      onSpawn: (c) => (child = c),
    });
    const served: string[] = [];
    // Not ready in time: the endpoints are read all the same, and what they answer is checked for the key.
    await until('/readyz 200', async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, { timeoutMs: 60_000, everyMs: 200, ignoreErrors: true }).catch(() => undefined);
    for (const path of ['/healthz', '/readyz', '/status', '/metrics']) {
      const body = await fetch(`http://127.0.0.1:${port}${path}`).then(
        (r) => r.text(),
        (e: unknown) => `unreachable: ${String(e)}`,
      );
      served.push(path);
      await writeFile(join(area.dir, 'outputs', `watch${path.replace('/', '-')}.txt`), body);
    }
    child?.kill('SIGTERM');
    const daemon = await watch;
    area.tried(`watch: served ${served.join(', ')}; stopped by SIGTERM: exit ${daemon.code ?? daemon.signal}, ${daemon.stderr.split('\n').length - 1} log lines`);
    if (daemon.code !== 0) problems.push(`watch: exit ${daemon.code ?? daemon.signal} after SIGTERM`);
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (stdout, stderr, plans, ids, imported files, pulled files, daemon endpoints, emulator logs) for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(50);
    expect(hits).toEqual([]);
  });
});
