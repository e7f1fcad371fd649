// A key that is an ordinary word: `demo`, and a glossary `democracy terms` whose entries hold the
// word too. The key is taken out of what termsync shows (stdout, stderr, log lines, the daemon's
// /status and /metrics), never out of what it compares, plans, sends or writes: applies converge
// on one glossary, the plan is empty, pull writes the real terms.
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { until } from '../helpers/until.js';
import { createArea, freePort, liveState, looksLikeStackTrace, type RunResult, writeRepo } from './harness.js';

const area = createArea('key-in-data');
const KEY = 'demo';

const REPO = {
  'config/termsync.yaml': 'version: 1\nprune: "off"\ntargets:\n  - name: default\n',
  'glossaries/democracy.yaml': 'kind: glossary\nname: democracy terms\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: democracy.en-de.tsv\ntests:\n  - source_lang: en\n    target_lang: de\n    text: democracy\n    expect: [Demokratie]\n',
  'glossaries/democracy.en-de.tsv': 'democracy\tDemokratie\ndemo\tVorführung\n',
};

describe('a key that is an ordinary word: redaction never touches data', () => {
  let emulator: RunningEmulator | undefined;
  afterAll(async () => {
    await emulator?.close();
  });

  it('key "demo", glossary "democracy terms": three applies give one glossary, the plan is empty, pull writes the real terms', async () => {
    emulator = await startEmulator({ port: 0, seed: 71, keys: [KEY] });
    const url = emulator.url;
    const dir = await area.folder('repo');
    await writeRepo(dir, REPO);
    const env = { TERMSYNC_BASE_URL: url, TERMSYNC_API_KEY: KEY };
    const shown: [string, string][] = [];
    const run = async (argv: string[]): Promise<RunResult> => {
      const result = await area.run([...argv, '--dir', '.'], { cwd: dir, env, timeoutMs: 120_000 });
      shown.push([`${argv.join(' ')}`, result.stdout + result.stderr]);
      if (looksLikeStackTrace(result.stdout + result.stderr)) throw new Error(`${argv.join(' ')}: a stack trace`);
      return result;
    };

    for (let i = 1; i <= 3; i++) {
      const apply = await run(['apply']);
      const live = await liveState(url, KEY);
      area.tried(`apply ${i}: exit ${apply.code}, ${live.glossaries.length} glossaries on the service (${live.glossaries.map((g) => g.name).join(', ')}); said: ${apply.stdout.trim().split('\n').pop() ?? ''}`);
      expect(apply.code).toBe(0);
    }
    const live = await liveState(url, KEY);
    expect(live.glossaries.map((g) => g.name)).toEqual(['democracy terms']);
    const plan = await run(['plan', '--detailed-exitcode']);
    area.tried(`plan after three applies: exit ${plan.code}; said: ${plan.stdout.trim()}`);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes. The service matches the repository.');

    // An edit made on the service, with the key's word in it: pull writes it as it is.
    const id = live.glossaries[0]?.glossary_id ?? '';
    const put = await fetch(`${url}/v3/glossaries/${id}/dictionaries`, {
      method: 'PUT',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source_lang: 'en', target_lang: 'de', entries: 'democracy\tDemokratie\ndemo\tVorführung\ndemo day\tDemotag', entries_format: 'tsv' }),
    });
    expect(put.ok).toBe(true);
    const check = await run(['pull', '--check']);
    const pull = await run(['pull']);
    const written = await readFile(join(dir, 'glossaries/democracy.en-de.tsv'), 'utf8');
    area.tried(`pull after an edit on the service: exit ${pull.code}; the entries file now reads ${JSON.stringify(written)}`);
    expect(check.code).toBe(2);
    expect(pull.code).toBe(0);
    expect(written).toBe('democracy\tDemokratie\ndemo\tVorführung\ndemo day\tDemotag\n');
    expect(written).not.toContain('[redacted]');
    const after = await run(['plan', '--detailed-exitcode']);
    expect(after.code).toBe(0);

    // The daemon: its log lines and endpoints are outputs too. An edit on the service makes its
    // start-up run change the glossary, so /status names it (the glossary tests that run verified).
    const undo = await fetch(`${url}/v3/glossaries/${id}/dictionaries`, {
      method: 'PUT',
      headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source_lang: 'en', target_lang: 'de', entries: 'democracy\tDemokratie', entries_format: 'tsv' }),
    });
    expect(undo.ok).toBe(true);
    const port = await freePort();
    let child: ChildProcess | undefined;
    const watch = area.run(['watch', '--dir', '.', '--listen', `127.0.0.1:${port}`, '--log-level', 'debug'], { cwd: dir, env, timeoutMs: 120_000, onSpawn: (c) => (child = c) });
    let ready = 0;
    let status = '';
    // Not there in time: the checks below say what /readyz and /status held.
    await until('the glossary on /status', async () => {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      if (ready === 200) status = await (await fetch(`http://127.0.0.1:${port}/status`)).text();
      return status.includes('cracy terms');
    }, { timeoutMs: 60_000, everyMs: 200 }).catch(() => undefined);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    child?.kill('SIGTERM');
    const daemon = await watch;
    shown.push(['watch: log lines', daemon.stderr + daemon.stdout], ['watch: /status', status], ['watch: /metrics', metrics]);
    area.tried(`watch: /readyz ${ready}, /status ${status.length} bytes, exit ${daemon.code ?? daemon.signal} after SIGTERM`);
    expect(ready).toBe(200);
    expect(status).toContain('[redacted]cracy terms');
    expect((await liveState(url, KEY)).glossaries).toHaveLength(1);

    // Nothing shown holds the key: what people see of the data says [redacted] (`Demokratie` is not the key).
    const leaks = shown.filter(([, text]) => text.includes(KEY)).map(([what, text]) => `${what}: ${text.slice(Math.max(0, text.indexOf(KEY) - 60), text.indexOf(KEY) + 40)}`);
    area.tried(`${shown.length} outputs searched for "${KEY}": ${leaks.length} hold it`);
    expect(leaks).toEqual([]);
    expect(shown.some(([, text]) => text.includes('[redacted]cracy terms'))).toBe(true);
  });
});
