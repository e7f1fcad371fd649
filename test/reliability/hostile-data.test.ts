// Hostile data: what the service sends and what the repository holds must never steer a write
// outside the repository, end in an internal error, inject lines into a CI log, or leave behind a
// repository that fails `validate`. termsync runs as a real process (`bin/termsync.js`) against a
// service that speaks the API's shapes with hostile content (hostileService), and against the
// emulator where the content is the repository's.
import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { until } from '../helpers/until.js';
import { createArea, filesUnder, looksLikeStackTrace, SECRET_KEY, serviceEnv, writeRepo, type RepoFiles, type RunResult } from './harness.js';
import { hostileService, type Hostile, type HostileGlossary } from './hostile-servers.js';

const area = createArea('hostile-data');

const CONFIG = ['version: 1', 'resources: [glossaries]', 'targets:', '  - name: default', ''].join('\n');
const SHOP_YAML = ['kind: glossary', 'name: Shop', 'dictionaries:', '  - source_lang: en', '    target_lang: de', '    entries_file: shop.en-de.tsv', ''].join('\n');
const SHOP_ENTRIES = 'cart\tWarenkorb\ncheckout\tKasse\n';

/** A small repository: one glossary of one dictionary, in an entries file. */
function shopRepository(extra: RepoFiles = {}): RepoFiles {
  return { 'config/termsync.yaml': CONFIG, 'glossaries/shop.yaml': SHOP_YAML, 'glossaries/shop.en-de.tsv': SHOP_ENTRIES, ...extra };
}

/** Every file under `dir` and its bytes (as latin1 text, so any byte compares). */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const file of await filesUnder(dir)) out[relative(dir, file)] = (await readFile(file)).toString('latin1');
  return out;
}

/**
 * A case's folder: the repository in `repo/`, and `outside/`, a folder next to it that nothing may
 * write into. `reset()` writes both afresh (each run of a case starts from them, whatever the last did).
 */
async function caseFolders(name: string, files: RepoFiles): Promise<{ root: string; repo: string; outside: string; reset: () => Promise<void> }> {
  const root = await area.folder(name);
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  const reset = async (): Promise<void> => {
    await rm(repo, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
    await writeRepo(repo, files);
    await writeRepo(outside, { 'keep.txt': 'a file of the user, outside the repository\n' });
  };
  await reset();
  return { root, repo, outside, reset };
}

/**
 * A language code that, as the part of a file name after `glossaries/shop.en-` (pull's new entries
 * file) or `glossaries/evil.en-` (import's), climbs out of the repository into `outside/`, next to
 * it: the first `..` ends the name part, two more leave `glossaries/` and the repository. Relative
 * and lowercase, as the code is lowercased before use.
 */
const PATH_SHAPED = '../../../../outside/pwned';

/** A stack trace or an internal error in a run's output, as a problem of the check. */
function traceProblems(run: RunResult, what: string): string[] {
  const problems: string[] = [];
  if (looksLikeStackTrace(run.stdout + run.stderr)) problems.push(`${what}: a stack trace`);
  if (/Internal error/.test(run.stderr)) problems.push(`${what}: an internal error: ${run.stderr.slice(-300)}`);
  return problems;
}

/** Runs the daemon at start-up (`watch --on-drift pull`) until its first full run has ended, then stops it. */
async function daemonStartUp(repo: string, url: string, extra: readonly string[] = []): Promise<{ run: RunResult; status: { drift?: { result?: string; error?: string } } }> {
  let child: ChildProcess | undefined;
  let stderr = '';
  const running = area.run(['watch', '--dir', '.', '--on-drift', 'pull', '--target', 'default', '--listen', '127.0.0.1:0', '--no-verify', ...extra], {
    cwd: repo,
    env: serviceEnv(url, { TERMSYNC_MAX_ATTEMPTS: '1' }),
    timeoutMs: 120_000,
    onSpawn: (spawned) => {
      child = spawned;
      spawned.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    },
  });
  let status: { drift?: { result?: string; error?: string }; runs?: { trigger: string }[] } = {};
  // Not there in time: the daemon is stopped all the same, and the checks on its run say what is missing.
  await until('the start-up run on /status', async () => {
    const endpoint = /serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)?.[1];
    if (endpoint === undefined) return false;
    status = (await (await fetch(`${endpoint}/status`)).json()) as typeof status;
    return (status.runs ?? []).some((r) => r.trigger === 'startup');
  }, { timeoutMs: 90_000, everyMs: 100 }).catch(() => undefined);
  child?.kill('SIGTERM');
  return { run: await running, status };
}

describe('hostile data from the service and the repository', () => {
  const servers: Hostile[] = [];
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, seed: 25 });
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await emulator.close();
  });
  const serve = async (content: Parameters<typeof hostileService>[0]): Promise<Hostile> => {
    const server = await hostileService(content);
    servers.push(server);
    return server;
  };

  it('path-shaped language codes: pull, import and the daemon at start-up write nothing outside the repository (nothing at all), exit 7', async () => {
    const { repo, outside, reset } = await caseFolders('language-path', shopRepository());
    const evil = PATH_SHAPED;
    const glossaries: HostileGlossary[] = [
      { id: 'g-shop', name: 'Shop', dictionaries: [{ source: 'en', target: 'de', entries: 'cart\tWarenkorb\ncheckout\tKasse' }, { source: 'en', target: evil, entries: 'owned\tby the service' }] },
      { id: 'g-evil', name: 'Evil', dictionaries: [{ source: 'en', target: evil, entries: 'owned\tby the service' }] },
    ];
    const server = await serve({ glossaries });
    const before = { repo: await snapshot(repo), outside: await snapshot(outside) };
    const problems: string[] = [];
    const unchanged = async (what: string): Promise<void> => {
      const now = { repo: await snapshot(repo), outside: await snapshot(outside) };
      if (JSON.stringify(now.outside) !== JSON.stringify(before.outside)) problems.push(`${what}: wrote outside the repository: ${Object.keys(now.outside).join(', ')}`);
      if (JSON.stringify(now.repo) !== JSON.stringify(before.repo)) problems.push(`${what}: changed the repository: ${Object.keys(now.repo).join(', ')}`);
    };
    for (const argv of [['pull'], ['import'], ['import', '--format', 'tbx'], ['pull', '--check']]) {
      await reset();
      const run = await area.run([...argv, '--dir', '.'], { cwd: repo, env: serviceEnv(server.url, { TERMSYNC_MAX_ATTEMPTS: '1' }), timeoutMs: 60_000 });
      const what = argv.join(' ');
      area.tried(`${what} against a service listing the target language ${evil}: exit ${run.code}; ${run.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`);
      area.count('hostile behaviours', 1);
      if (run.code !== 7) problems.push(`${what}: exit ${run.code} (expected 7): ${run.stderr.slice(-300)}`);
      if (!/unexpected response: `glossaries\.0\.dictionaries\.1\.target_lang`: expected a language code \(letters, digits and hyphens, at most 35 characters\), got "\.\.\/\.\.\/\.\.\/\.\.\/outside\/pwned"/.test(run.stderr)) {
        problems.push(`${what}: the message does not name the field and the code: ${run.stderr.slice(-300)}`);
      }
      problems.push(...traceProblems(run, what));
      await unchanged(what);
    }
    await reset();
    const daemon = await daemonStartUp(repo, server.url);
    area.tried(`watch --on-drift pull at start-up: drift ${daemon.status.drift?.result ?? 'not reported'} (${daemon.status.drift?.error?.slice(0, 160) ?? ''}); exit ${daemon.run.code}`);
    area.count('hostile behaviours', 1);
    if (daemon.status.drift?.result !== 'failed' || !/expected a language code/.test(daemon.status.drift.error ?? '')) {
      problems.push(`watch: the drift pull did not fail on the language code: ${JSON.stringify(daemon.status.drift)}`);
    }
    problems.push(...traceProblems(daemon.run, 'watch'));
    await unchanged('watch --on-drift pull');
    expect(problems).toEqual([]);
    expect(server.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });

  it('a NUL in a language code: pull, import and the daemon end with exit 7, an unexpected response named, never an internal error', async () => {
    const { repo, reset } = await caseFolders('language-nul', shopRepository());
    const glossaries: HostileGlossary[] = [
      { id: 'g-shop', name: 'Shop', dictionaries: [{ source: 'en', target: 'de', entries: 'cart\tWarenkorb\ncheckout\tKasse' }, { source: 'en', target: 'de\u0000x', entries: 'nul\tbyte' }] },
    ];
    const server = await serve({ glossaries });
    const before = await snapshot(repo);
    const problems: string[] = [];
    for (const argv of [['pull'], ['import'], ['plan'], ['pull', '--check']]) {
      await reset();
      const run = await area.run([...argv, '--dir', '.'], { cwd: repo, env: serviceEnv(server.url, { TERMSYNC_MAX_ATTEMPTS: '1' }), timeoutMs: 60_000 });
      const what = argv.join(' ');
      area.tried(`${what} against a service listing the target language "de\\u0000x": exit ${run.code}; ${run.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`);
      area.count('hostile behaviours', 1);
      if (run.code !== 7) problems.push(`${what}: exit ${run.code} (expected 7): ${run.stderr.slice(-300)}`);
      if (!run.stderr.includes('unexpected response: `glossaries.0.dictionaries.1.target_lang`: expected a language code (letters, digits and hyphens, at most 35 characters), got "de?x"')) {
        problems.push(`${what}: the message does not name the field and the code: ${run.stderr.slice(-300)}`);
      }
      if (run.stderr.includes('\u0000')) problems.push(`${what}: a NUL in the output`);
      problems.push(...traceProblems(run, what));
    }
    await reset();
    const daemon = await daemonStartUp(repo, server.url);
    area.tried(`watch --on-drift pull at start-up: drift ${daemon.status.drift?.result ?? 'not reported'} (${daemon.status.drift?.error?.slice(0, 160) ?? ''})`);
    if (!/expected a language code/.test(daemon.status.drift?.error ?? '')) problems.push(`watch: ${JSON.stringify(daemon.status.drift)}`);
    problems.push(...traceProblems(daemon.run, 'watch'));
    expect(await snapshot(repo)).toEqual(before);
    expect(problems).toEqual([]);
  });

  it('every write stays in the repository: links of the repository and --out-dir cannot carry one out; --out and --ids-out the user names elsewhere still work', async () => {
    const problems: string[] = [];
    const env = serviceEnv(emulator.url);
    // A glossary the repositories do not declare: what import writes (into the folder it is given).
    const seeded = await fetch(`${emulator.url}/v3/glossaries`, {
      method: 'POST',
      headers: { Authorization: `Service-Auth-Key ${SECRET_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Imported terms', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: 'account\tKonto', entries_format: 'tsv' }] }),
    });
    expect(seeded.status).toBe(201);
    const check = async (what: string, argv: readonly string[], files: RepoFiles, expected: { code: number; says?: RegExp }): Promise<{ repo: string; outside: string }> => {
      const { repo, outside } = await caseFolders(`confined-${what.replace(/[^a-z0-9]+/gi, '-')}`, files);
      const before = await snapshot(outside);
      const run = await area.run(argv, { cwd: repo, env, timeoutMs: 60_000 });
      area.tried(`${what}: exit ${run.code}; ${run.stderr.trim().split('\n').at(-1)?.slice(0, 220) ?? ''}`);
      area.count('bad inputs', 1);
      if (run.code !== expected.code) problems.push(`${what}: exit ${run.code} (expected ${expected.code}): ${run.stderr.slice(-300)}`);
      if (expected.says !== undefined && !expected.says.test(run.stderr)) problems.push(`${what}: the message does not match ${String(expected.says)}: ${run.stderr.slice(-300)}`);
      if (JSON.stringify(await snapshot(outside)) !== JSON.stringify(before)) problems.push(`${what}: wrote outside the repository: ${Object.keys(await snapshot(outside)).join(', ')}`);
      problems.push(...traceProblems(run, what));
      return { repo, outside };
    };
    const refused = /refused to write .*(symbolic link leads it to|leads outside)/;
    // init: a folder it writes into, or the .gitignore it appends to, is a link out of the folder.
    await check('init with config/ a link out', ['init', '--dir', '.'], { 'config': { symlink: '../outside' }, 'README.md': 'a repository\n' }, { code: 3, says: refused });
    await check('init with .gitignore a link out', ['init', '--dir', '.'], { '.gitignore': { symlink: '../outside/keep.txt' } }, { code: 3, says: refused });
    // import: the resource folder is a link out of the repository; --out-dir names a folder outside.
    const declared = shopRepository();
    await check('import into a resource folder that is a link out', ['import', '--dir', '.'], { ...declared, 'config/termsync.yaml': CONFIG.replace('[glossaries]', '[imported, glossaries]'), 'imported': { symlink: '../outside' } }, { code: 3, says: refused });
    await check('import --out-dir outside the repository', ['import', '--dir', '.', '--out-dir', '../outside'], declared, { code: 3, says: /--out-dir \.\.\/outside is outside the repository/ });
    await check('import --out-dir through a link out', ['import', '--dir', '.', '--out-dir', 'glossaries/away'], { ...declared, 'glossaries/away': { symlink: '../../outside' } }, { code: 3, says: refused });
    // plan --out and apply --ids-out into a folder of the repository that is a link out of it.
    await check('plan --out through a link of the repository', ['plan', '--dir', '.', '--out', 'plans/plan.json'], { ...declared, 'plans': { symlink: '../outside' } }, { code: 3, says: refused });
    await check('apply --ids-out through a link of the repository', ['apply', '--dir', '.', '--ids-out', 'ids/ids.json'], { ...declared, 'ids': { symlink: '../outside' } }, { code: 3, says: refused });
    await check('plan --out onto a link of the repository to a file outside', ['plan', '--dir', '.', '--out', 'plan.json'], { ...declared, 'plan.json': { symlink: '../outside/keep.txt' } }, { code: 3, says: refused });
    // What the user names outside the repository is the user's choice (CI writes to $RUNNER_TEMP): it works.
    const { root, repo } = await caseFolders('confined-user-outside', declared);
    const work = await area.folder('confined-user-outside/work');
    for (const argv of [['plan', '--dir', repo, '--out', join(work, 'plan.json')], ['apply', join(work, 'plan.json'), '--dir', repo, '--ids-out', join(work, 'ids.json')]]) {
      const run = await area.run(argv, { cwd: root, env, timeoutMs: 60_000 });
      area.tried(`${argv[0] ?? ''} with an output outside the repository, named by the user: exit ${run.code}`);
      if (run.code !== 0) problems.push(`${argv.join(' ')}: exit ${run.code} (expected 0): ${run.stderr.slice(-300)}`);
    }
    const saved = (await readFile(join(work, 'ids.json'), 'utf8').catch(() => '')) + (await readFile(join(work, 'plan.json'), 'utf8').catch(() => ''));
    if (!saved.includes('"Shop"')) problems.push(`the plan or ids file outside the repository was not written: ${saved.slice(0, 200)}`);
    expect(problems).toEqual([]);
  });

  it('entries and values the files cannot hold: pull, import and the daemon write nothing, exit 3, each named on the service; validate still passes', async () => {
    const voice = ['kind: style_rules', 'name: Voice', 'language: de', 'custom_instructions:', '  - label: Formal', '    prompt: Address the reader formally.', ''].join('\n');
    const { repo, reset } = await caseFolders('unwritable', shopRepository({ 'glossaries/voice.yaml': voice }));
    const bad = [
      'cart\tWaren\tkorb',
      'line\u2028separator\tZeile',
      'next\u0085line\tZeile',
      'blank\t',
      `long\t${'x'.repeat(1100)}`,
      'checkout\tKasse',
    ].join('\n');
    const glossaries: HostileGlossary[] = [
      { id: 'g-shop', name: 'Shop', dictionaries: [{ source: 'en', target: 'de', entries: bad }, { source: 'en', target: 'fr', entries: 'nul\u0000byte\tnul' }] },
      { id: 'g-new', name: 'Broken', dictionaries: [{ source: 'en', target: 'de', entries: bad }] },
    ];
    const styleLists = [{ id: 's-voice', name: 'Voice', language: 'de', instructions: [{ id: 'i1', label: 'Formal', prompt: 'Address the reader formally.' }, { id: 'i2', label: 'two\nlines', prompt: 'p' }] }];
    const server = await serve({ glossaries, styleLists });
    const before = await snapshot(repo);
    const problems: string[] = [];
    const named = [
      /glossary "Shop" \(id "g-shop"\) on the service, dictionary en → de, entry 1 \("cart"\): target phrase "Waren\\tkorb" contains a tab/,
      /dictionary en → de, entry 2 \("line\\u2028separator"\): source phrase contains the control character U\+2028/,
      /dictionary en → de, entry 3 \("next\\u0085line"\): source phrase contains the control character U\+0085/,
      /dictionary en → de, entry 4 \("blank"\): empty target phrase/,
      /dictionary en → de, entry 5 \("long"\): target phrase is 1100 UTF-8 bytes; the limit is 1024/,
    ];
    for (const argv of [['pull'], ['import'], ['import', '--format', 'xlsx']]) {
      await reset();
      const run = await area.run([...argv, '--dir', '.'], { cwd: repo, env: serviceEnv(server.url), timeoutMs: 60_000 });
      const what = argv.join(' ');
      area.tried(`${what} against a service holding entries no file can hold: exit ${run.code}; ${run.stderr.trim().split('\n')[0]?.slice(0, 200) ?? ''}`);
      area.count('hostile behaviours', 1);
      if (run.code !== 3) problems.push(`${what}: exit ${run.code} (expected 3): ${run.stderr.slice(-400)}`);
      const expected = argv[0] === 'pull' ? [...named, /dictionary en → fr, entry 1 \("nul\\u0000byte"\): source phrase contains the control character U\+0000/, /style rule list "Voice" \(id "s-voice"\) on the service, custom instruction "two\\nlines": the label contains the control character U\+000A/] : named.map((r) => new RegExp(r.source.replace('glossary "Shop" \\(id "g-shop"\\)', 'glossary "Broken" \\(id "g-new"\\)')));
      for (const says of expected) if (!says.test(run.stderr)) problems.push(`${what}: does not name ${String(says)}: ${run.stderr.slice(0, 600)}`);
      if (!/nothing was written/.test(run.stderr)) problems.push(`${what}: does not say that nothing was written`);
      if (JSON.stringify(await snapshot(repo)) !== JSON.stringify(before)) problems.push(`${what}: changed the repository`);
      problems.push(...traceProblems(run, what));
      const validate = await area.run(['validate', '--dir', '.'], { cwd: repo, timeoutMs: 60_000 });
      if (validate.code !== 0) problems.push(`${what}: validate fails afterwards: ${validate.stdout.slice(-300)}`);
    }
    await reset();
    const daemon = await daemonStartUp(repo, server.url);
    area.tried(`watch --on-drift pull at start-up: drift ${daemon.status.drift?.result ?? 'not reported'} (${daemon.status.drift?.error?.slice(0, 160) ?? ''})`);
    if (daemon.status.drift?.result !== 'failed' || !/pull refused/.test(daemon.status.drift.error ?? '')) problems.push(`watch: ${JSON.stringify(daemon.status.drift)}`);
    if (JSON.stringify(await snapshot(repo)) !== JSON.stringify(before)) problems.push('watch: changed the repository');
    problems.push(...traceProblems(daemon.run, 'watch'));
    expect(problems).toEqual([]);
  });

  it('output cannot inject: no path, name, term or message from the repository or the service starts a line of any command\'s output', async () => {
    const PAYLOAD = '\n::error title=PWNED::owned\n';
    const problems: string[] = [];
    /** Lines as a CI runner splits them (CR, LF, CRLF), and the other line breaks a terminal or a log viewer may honour. */
    // eslint-disable-next-line no-control-regex
    const lines = (text: string): string[] => text.split(/\r\n|[\r\n\u2028\u2029\u0085\u000b\u000c]/);
    const checkOutput = (what: string, run: RunResult, github = false): void => {
      for (const [stream, text] of [['stdout', run.stdout], ['stderr', run.stderr]] as const) {
        for (const line of lines(text)) {
          const start = line.trimStart();
          const allowed = github && stream === 'stdout' && /^::(error|warning) file=/.test(start);
          if (start.startsWith('::') && !allowed) problems.push(`${what}: a line of ${stream} starts a workflow command: ${JSON.stringify(line.slice(0, 120))}`);
        }
        // eslint-disable-next-line no-control-regex
        if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) problems.push(`${what}: a control character or line separator on ${stream}`);
      }
      problems.push(...traceProblems(run, what));
    };
    // The repository: a resource file, its entries file and a target with the payload in their names
    // (valid: the run goes on and names them), and a service whose names, ids and terms carry it.
    const evilFile = `glossaries/x${PAYLOAD}.yaml`;
    const evilEntries = `z${PAYLOAD}.tsv`;
    const files: RepoFiles = {
      'config/termsync.yaml': CONFIG,
      [evilFile]: ['kind: glossary', 'name: Evil', 'dictionaries:', '  - source_lang: en', '    target_lang: fr', `    entries_file: ${JSON.stringify(evilEntries)}`, ''].join('\n'),
      // A byte order mark: a warning that names the file.
      [`glossaries/${evilEntries}`]: '\ufeffcart\tpanier\n',
      ...Object.fromEntries(Object.entries(shopRepository()).filter(([k]) => k !== 'config/termsync.yaml')),
      'glossaries/voice.yaml': ['kind: style_rules', 'name: Voice', 'language: de', 'configured_rules:', '  punctuation:', '    quotes: use_guillemets', 'custom_instructions:', '  - label: Formal', '    prompt: Address the reader formally.', ''].join('\n'),
    };
    const { repo } = await caseFolders('inject', files);
    const server = await serve({
      errorMessage: `bad${PAYLOAD}request \u001b[2J`,
      glossaries: [
        { id: `g-shop${PAYLOAD}`, name: 'Shop', dictionaries: [{ source: 'en', target: 'de', entries: `cart\tWarenkorb\ncheckout\tKasse${PAYLOAD.replace(/\n/g, '\u2028')}` }] },
        { id: 'g-evil', name: 'Evil', dictionaries: [{ source: 'en', target: 'fr', entries: 'cart\tchariot' }] },
        { id: `g-other${PAYLOAD}`, name: `Other${PAYLOAD}`, dictionaries: [{ source: 'en', target: 'de', entries: 'a\tb' }] },
        { id: 'g-other-2', name: `Other${PAYLOAD}`, dictionaries: [{ source: 'en', target: 'de', entries: 'a\tb' }] },
      ],
      styleLists: [{ id: `s-voice${PAYLOAD}`, name: 'Voice', language: 'de', instructions: [{ id: 'i1', label: 'Formal', prompt: `Address the reader formally.${PAYLOAD}` }, { id: 'i2', label: `Extra${PAYLOAD}`, prompt: 'p' }] }],
    });
    const env = serviceEnv(server.url, { TERMSYNC_MAX_ATTEMPTS: '1' });
    const runs: [string, readonly string[], boolean][] = [
      ['validate', ['validate'], false],
      ['validate --format github', ['validate', '--format', 'github'], true],
      ['validate --format json', ['validate', '--format', 'json'], false],
      ['plan', ['plan'], false],
      ['plan --format markdown', ['plan', '--format', 'markdown'], false],
      ['plan --format json', ['plan', '--format', 'json'], false],
      ['apply', ['apply'], false],
      ['apply --format json', ['apply', '--format', 'json'], false],
      ['pull --check', ['pull', '--check'], false],
      ['pull', ['pull'], false],
      ['import', ['import'], false],
      ['verify', ['verify'], false],
    ];
    for (const [what, argv, github] of runs) {
      const run = await area.run([...argv, '--dir', '.'], { cwd: repo, env, timeoutMs: 60_000 });
      area.tried(`${what} with the payload in repository file names and the service's names, ids, terms and messages: exit ${run.code}, ${lines(run.stdout + run.stderr).length} lines`);
      area.count('hostile behaviours', 1);
      checkOutput(what, run, github);
    }
    for (const format of ['json', 'pretty']) {
      const daemon = await daemonStartUp(repo, server.url, ['--log-format', format]);
      area.tried(`watch --log-format ${format} at start-up with the payload in file names and the service's data: ${lines(daemon.run.stderr).length} lines of log`);
      checkOutput(`watch --log-format ${format}`, daemon.run);
    }
    // A repository whose broken file carries it: every command that reads the repository reports it.
    const broken = await caseFolders('inject-broken', { ...files, [`glossaries/y${PAYLOAD}.yaml`]: 'kind: glossary\nname: [\n' });
    for (const argv of [['validate'], ['plan'], ['apply'], ['pull'], ['import'], ['verify']]) {
      const run = await area.run([...argv, '--dir', '.'], { cwd: broken.repo, env, timeoutMs: 60_000 });
      area.tried(`${argv[0] ?? ''} on a repository whose broken file carries the payload in its name: exit ${run.code}`);
      if (run.code !== 3) problems.push(`${argv[0] ?? ''} on the broken repository: exit ${run.code} (expected 3)`);
      checkOutput(`${argv[0] ?? ''} (broken repository)`, run);
    }
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(10);
    expect(hits).toEqual([]);
  });
});
