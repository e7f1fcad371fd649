// Bad input: broken and malicious repositories. Each one, given to a command that talks to the
// service, must exit 3 with a located message (`file:line:col: error: [code]`, or the cell of a
// workbook), print no stack trace, and send not a single request.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_TABLE } from '../../src/config/rules/rule-table.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { workbookBomb, workbookBytes, zipBytes } from '../fixtures/build-files.js';
import { createArea, inParallel, looksLikeStackTrace, PROJECT_ROOT, seeded, serviceEnv, writeRepo, type RepoFiles } from './harness.js';
import { CONFIG, GENERATED_CASES, type BadRepo } from './bad-repositories.js';

const area = createArea('bad-input');
const RULES = join(PROJECT_ROOT, 'test', 'fixtures', 'rules');

/**
 * The fixture repositories of the validator's rules (test/fixtures/rules) that hold an error, with
 * where the error must be reported. Warning-only fixtures are left out: they are valid input.
 */
const FIXTURES: readonly (readonly [fixture: string, code: string, file: string, line: number, column: number])[] = [
  ['yaml-syntax', 'yaml/syntax', 'glossaries/broken.yaml', 3, 1],
  ['yaml-multiple-documents', 'yaml/multiple-documents', 'glossaries/two.yaml', 8, 1],
  ['yaml-empty', 'yaml/empty', 'glossaries/empty.yaml', 1, 1],
  ['yaml-alias-bomb', 'yaml/alias-bomb', 'glossaries/bomb.yaml', 4, 8],
  ['yaml-too-deep', 'yaml/too-deep', 'glossaries/deep.yaml', 7, 75],
  ['yaml-duplicate-key', 'yaml/duplicate-key', 'glossaries/dup.yaml', 3, 1],
  ['yaml-not-a-mapping', 'yaml/not-a-mapping', 'glossaries/list.yaml', 1, 1],
  ['yaml-invalid-utf8', 'yaml/invalid-utf8', 'glossaries/latin1.yaml', 2, 9],
  ['yaml-utf16', 'yaml/invalid-utf8', 'glossaries/notepad.yaml', 1, 1],
  ['resource-unknown-kind', 'resource/unknown-kind', 'glossaries/x.yaml', 1, 7],
  ['resource-missing-kind', 'resource/missing-kind', 'glossaries/x.yaml', 2, 1],
  ['resource-duplicate-name', 'resource/duplicate-name', 'glossaries/b.yaml', 2, 1],
  ['resource-symlink-loop', 'file/unreadable', 'glossaries/loop.yaml', 1, 1],
  ['resource-outside-repo', 'resource/outside-repo', 'glossaries/linked.yaml', 1, 1],
  ['resource-unknown-kind-secret', 'resource/unknown-kind', 'glossaries/x.yaml', 1, 7],
  ['schema-unknown-field', 'schema/unknown-field', 'glossaries/x.yaml', 3, 1],
  ['schema-unknown-nested-field', 'schema/unknown-field', 'glossaries/x.yaml', 6, 5],
  ['schema-invalid-type', 'schema/invalid-type', 'glossaries/x.yaml', 3, 18],
  ['schema-missing-field', 'schema/missing-field', 'glossaries/x.yaml', 1, 1],
  ['schema-invalid-value', 'schema/invalid-value', 'termsync.yaml', 3, 16],
  ['glossary-unknown-api', 'glossary/unknown-api', 'glossaries/x.yaml', 3, 6],
  ['glossary-v2-dictionary-count', 'glossary/v2-dictionary-count', 'glossaries/x.yaml', 4, 1],
  ['glossary-no-dictionaries', 'glossary/no-dictionaries', 'glossaries/x.yaml', 3, 1],
  ['glossary-duplicate-pair', 'glossary/duplicate-pair', 'glossaries/x.yaml', 8, 5],
  ['glossary-name-too-long', 'glossary/name-too-long', 'glossaries/x.yaml', 2, 7],
  ['glossary-entries-source', 'glossary/entries-source', 'glossaries/x.yaml', 4, 5],
  ['glossary-blank-name', 'glossary/blank-name', 'glossaries/x.yaml', 2, 7],
  ['glossary-v2-v3-same-name', 'glossary/v2-v3-same-name', 'glossaries/b.yaml', 2, 1],
  ['lang-unknown', 'lang/unknown', 'glossaries/x.yaml', 5, 18],
  ['lang-region-variant', 'lang/region-variant', 'glossaries/x.yaml', 5, 18],
  ['lang-same-pair', 'lang/same-pair', 'glossaries/x.yaml', 5, 18],
  ['test-no-dictionary', 'test/no-dictionary', 'glossaries/x.yaml', 10, 18],
  ['test-target-variant', 'test/target-variant', 'glossaries/x.yaml', 10, 18],
  ['test-nothing-to-check', 'test/nothing-to-check', 'glossaries/x.yaml', 9, 5],
  ['test-blank-text', 'test/blank-text', 'glossaries/x.yaml', 11, 11],
  ['test-blank-term', 'test/blank-term', 'glossaries/x.yaml', 12, 21],
  ['test-expect-and-forbid', 'test/expect-and-forbid', 'glossaries/x.yaml', 13, 14],
  ['style-language', 'style/language', 'glossaries/s.yaml', 3, 11],
  ['style-name-too-long', 'style/name-too-long', 'glossaries/s.yaml', 2, 7],
  ['style-prompt-too-long', 'style/prompt-too-long', 'glossaries/s.yaml', 6, 13],
  ['style-too-many-instructions', 'style/too-many-instructions', 'glossaries/s.yaml', 405, 5],
  ['style-duplicate-label', 'style/duplicate-label', 'glossaries/s.yaml', 7, 12],
  ['style-blank-text', 'style/blank-text', 'glossaries/s.yaml', 5, 12],
  ['style-blank-rule-name', 'style/blank-text', 'glossaries/s.yaml', 6, 5],
  ['style-empty-category', 'style/empty-category', 'glossaries/s.yaml', 5, 3],
  ['style-blank-option', 'style/blank-option', 'glossaries/s.yaml', 6, 17],
  ['style-instruction-language', 'style/instruction-language', 'glossaries/s.yaml', 7, 22],
  ['style-configured-rules-shape', 'style/configured-rules-shape', 'glossaries/s.yaml', 6, 5],
  ['entries-file-missing', 'entries-file/missing', 'glossaries/x.yaml', 6, 19],
  ['entries-file-dotdot', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-absolute', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-symlink-out', 'entries-file/outside-repo', 'glossaries/x.yaml', 6, 19],
  ['entries-file-extension', 'entries-file/extension', 'glossaries/x.yaml', 6, 19],
  ['entries-file-invalid-utf8', 'entries-file/invalid-utf8', 'glossaries/terms.tsv', 2, 14],
  ['entries-file-utf16', 'entries-file/invalid-utf8', 'glossaries/terms.tsv', 1, 1],
  ['entries-file-symlink-loop', 'entries-file/unreadable', 'glossaries/x.yaml', 6, 19],
  ['entries-file-not-a-file', 'entries-file/not-a-file', 'glossaries/x.yaml', 6, 19],
  ['entries-duplicate-source', 'entries/duplicate-source', 'glossaries/terms.tsv', 4, 1],
  ['entries-empty-source', 'entries/empty-source', 'glossaries/terms.tsv', 2, 1],
  ['entries-empty-target', 'entries/empty-target', 'glossaries/terms.tsv', 2, 10],
  ['entries-tab-or-newline', 'entries/tab-or-newline', 'glossaries/terms.csv', 2, 1],
  ['entries-phrase-too-long', 'entries/phrase-too-long', 'glossaries/terms.tsv', 2, 1],
  ['entries-field-count-tsv', 'entries/field-count', 'glossaries/terms.tsv', 2, 15],
  ['entries-field-count-csv', 'entries/field-count', 'glossaries/terms.csv', 2, 1],
  ['entries-malformed-quote', 'entries/malformed-quote', 'glossaries/terms.csv', 2, 1],
  ['entries-malformed-quote-unclosed', 'entries/malformed-quote', 'glossaries/terms.csv', 2, 6],
  ['entries-wrong-separator', 'entries/wrong-separator', 'glossaries/terms.csv', 1, 5],
  ['entries-empty-target-csv', 'entries/empty-target', 'glossaries/terms.csv', 2, 15],
  ['entries-not-a-string', 'entries/not-a-string', 'glossaries/x.yaml', 8, 14],
  ['entries-not-a-string-key', 'entries/not-a-string', 'glossaries/x.yaml', 8, 9],
  ['entries-empty-dictionary-file', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-empty-dictionary-inline', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 14],
  ['entries-empty-dictionary-blank', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-empty-dictionary-columns', 'entries/empty-dictionary', 'glossaries/x.yaml', 6, 19],
  ['entries-control-character', 'entries/control-character', 'glossaries/terms.tsv', 2, 1],
  ['entries-control-character-nel', 'entries/control-character', 'glossaries/terms.tsv', 2, 10],
  ['entries-control-character-inline', 'entries/control-character', 'glossaries/x.yaml', 8, 7],
  ['config-not-found', 'config/not-found', 'config/termsync.yaml', 1, 1],
  ['config-unknown-prune-mode', 'config/unknown-prune-mode', 'termsync.yaml', 2, 8],
  ['config-owned-names-missing', 'config/owned-names-missing', 'termsync.yaml', 2, 8],
  ['config-api-key-in-repo', 'config/api-key-in-repo', 'termsync.yaml', 5, 18],
  ['config-api-key-in-resource', 'config/api-key-in-repo', 'glossaries/x.yaml', 9, 15],
  ['config-api-key-in-broken-yaml', 'config/api-key-in-repo', 'glossaries/x.yaml', 4, 12],
  ['config-token-in-repo', 'config/api-key-in-repo', 'termsync.yaml', 6, 12],
  ['config-unsupported-version', 'config/unsupported-version', 'termsync.yaml', 1, 10],
  ['config-duplicate-target', 'config/duplicate-target', 'termsync.yaml', 6, 11],
  ['config-invalid-schedule', 'config/invalid-schedule', 'termsync.yaml', 2, 11],
  ['config-invalid-env-name', 'config/invalid-env-name', 'termsync.yaml', 4, 19],
  ['config-resource-folder-outside', 'config/resource-folder-outside', 'termsync.yaml', 2, 12],
  ['config-unknown-field', 'schema/unknown-field', 'termsync.yaml', 3, 3],
  ['config-verify-invalid', 'schema/invalid-value', 'termsync.yaml', 7, 19],
  ['config-env-name-not-allowed', 'config/env-name-not-allowed', 'termsync.yaml', 5, 18],
  ['config-env-name-conflict', 'config/env-name-conflict', 'termsync.yaml', 4, 19],
  ['config-secret-in-entries', 'config/api-key-in-repo', 'glossaries/terms.tsv', 2, 9],
  ['config-secret-in-comment', 'config/api-key-in-repo', 'glossaries/x.yaml', 3, 7],
  ['config-outside-repo', 'config/outside-repo', 'termsync.yaml', 1, 1],
  ['resource-control-character', 'resource/control-character', 'glossaries/x.yaml', 2, 7],
  ['style-control-character', 'resource/control-character', 'glossaries/s.yaml', 5, 12],
];

/** The commands that contact the service; each bad repository meets one, chosen by the seed. */
const COMMANDS = ['apply', 'plan', 'apply', 'pull', 'verify', 'plan'] as const;
const SEED = 11;
/**
 * Repositories also run as a real `bin/termsync.js` process (the rest run the same CLI in this
 * process, which costs no Node start-up): the hostile ones, and a seeded sample of the others.
 */
const AS_PROCESS = /pipe|dev-zero|passwd|bomb|megabyte|over-10-mib|too-many|deep|binary|inline-entries/;
const SAMPLE_AS_PROCESS = 0.1;

/** Credentials planted in the bad repositories: a message may point at them, never repeat them. */
const PLANTED = ['0c6d3b1f-9a27-4e58-b4d0-2f7e91c3a865', 'ghp_R8tY4uK6nB1cD5eF0g', 'AKIAQW3XZ7LMP2VR8TY4', 'sk-Qw3Xz7LmP2vR8tY4', '3f9a2c71', 'sk9Qw3Xz7LmP2vR8tY4uK6nB1cD5eF0g'];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** CPU seconds a process has used (user and system, from /proc). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Codes of the validator that only ever warn (valid input) or are not codes at all. */
/** Every rule of the loader that reports an error, from its one table (src/config/rules/rule-table.ts). */
function validatorErrorCodes(): Set<string> {
  return new Set(RULE_TABLE.filter((rule) => rule.severity === 'error').map((rule) => rule.id));
}

/** `file:line:col: error: [code]` (or `file:Sheet!A1: error: [code]`), at the start of a line. */
function locatedLine(c: BadRepo): RegExp {
  const where = c.at === undefined ? '(\\d+:\\d+|[^\\s:]+![A-Z]+\\d+)' : escape(c.at);
  return new RegExp(`^${escape(c.file)}:${where}: error: \\[${escape(c.code)}\\] \\S`, 'm');
}

describe('bad input: broken and malicious repositories exit 3, located, before any request', () => {
  let emulator: RunningEmulator;
  const repos: BadRepo[] = [];

  beforeAll(async () => {
    const logFile = join(area.dir, 'emulator.log');
    emulator = await startEmulator({ port: 0, seed: SEED, logger: pino({ level: 'trace' }, pino.destination({ dest: logFile, sync: true })) });
    // The fixtures are copied with their symbolic links as they are (some point outside on purpose).
    const fixtures = await area.folder('fixtures');
    await cp(RULES, fixtures, { recursive: true, verbatimSymlinks: true });
    for (const [fixture, code, file, line, column] of FIXTURES) {
      repos.push({ name: `rules/${fixture}`, dir: join(fixtures, fixture), code, file, at: `${line}:${column}` });
    }
    const generated = await area.folder('generated');
    for (const c of GENERATED_CASES) {
      const dir = join(generated, c.name);
      const files: RepoFiles = typeof c.files === 'function' ? await c.files({ workbookBytes, workbookBomb, zipBytes }) : c.files;
      await writeRepo(dir, files);
      for (const [path, size] of Object.entries(c.sparse ?? {})) {
        await writeRepo(dir, { [path]: '' });
        await truncate(join(dir, path), size);
      }
      repos.push({ ...c, dir });
    }
  });

  afterAll(async () => {
    await emulator?.close();
  });

  it(`at least 60 repositories, every validator rule among them`, async () => {
    const random = seeded(SEED);
    const commands = repos.map(() => COMMANDS[Math.floor(random() * COMMANDS.length)] as string);
    const sampled = repos.map(() => random() < SAMPLE_AS_PROCESS);
    const failures: string[] = [];
    let processes = 0;
    const results = await inParallel(
      2,
      repos.map((repo, i) => async () => {
        const before = emulator.requests().length;
        const command = commands[i] as string;
        const asProcess = AS_PROCESS.test(repo.name) || sampled[i] === true;
        const argv = [command, '--dir', repo.dirArg ?? '.'];
        const options = { cwd: repo.dir as string, env: serviceEnv(emulator.url) };
        const run = asProcess ? await area.run(argv, { ...options, timeoutMs: 120_000 }) : await area.runInProcess(argv, options);
        const requests = emulator.requests().length - before;
        const output = run.stdout + run.stderr;
        const problems: string[] = [];
        if (run.code !== 3) problems.push(`exit ${run.code ?? run.signal} (expected 3)`);
        if (!locatedLine(repo).test(run.stderr)) problems.push(`no line "${repo.file}:${repo.at ?? 'L:C'}: error: [${repo.code}]" on stderr`);
        if (looksLikeStackTrace(output)) problems.push('a stack trace or internal error name in the output');
        if (requests !== 0) problems.push(`${requests} requests reached the emulator`);
        const echoed = PLANTED.filter((p) => output.includes(p));
        if (echoed.length > 0) problems.push(`repeats a planted credential: ${echoed.join(', ')}`);
        if (repo.withinMs !== undefined && run.ms > repo.withinMs) problems.push(`took ${Math.round(run.ms)} ms (limit ${repo.withinMs})`);
        if (asProcess) processes += 1;
        const first = run.stderr.split('\n').find((l) => / error: \[/.test(l)) ?? run.stderr.split('\n')[0] ?? '';
        area.tried(`${repo.name}: ${command}${asProcess ? ' (process)' : ''} → exit ${run.code ?? run.signal} in ${Math.round(run.ms)} ms, ${requests} requests; ${first.slice(0, 160)}`);
        if (problems.length > 0) failures.push(`${repo.name} (${command}, ${run.label}): ${problems.join('; ')}\n  ${run.stderr.split('\n').slice(0, 4).join('\n  ')}`);
        return run;
      }),
    );
    area.count('bad inputs', results.length);
    area.tried(`${results.length} repositories (${processes} as processes), ${new Set(repos.map((r) => r.code)).size} distinct rules, ${failures.length} failures; emulator saw ${emulator.requests().length} requests in all`);
    expect(repos.length).toBeGreaterThanOrEqual(60);
    expect(failures).toEqual([]);
    expect(emulator.requests()).toEqual([]);
  });

  it('SIGTERM while a huge repository is being read: exit 130 promptly, nothing sent', async () => {
    const dir = await area.folder('huge');
    const files: RepoFiles = { 'termsync.yaml': CONFIG };
    const rows = Array.from({ length: 300 }, (_, i) => `term ${i}\tBegriff ${i}`).join('\n');
    for (let g = 0; g < 3000; g++) {
      files[`glossaries/g${g}.yaml`] = `kind: glossary\nname: G${g}\ndictionaries:\n  - source_lang: en\n    target_lang: de\n    entries_file: g${g}.tsv\n`;
      files[`glossaries/g${g}.tsv`] = rows;
    }
    await writeRepo(dir, files);
    const before = emulator.requests().length;
    let child: ChildProcess | undefined;
    let signalledAt = 0;
    let cpuAtSignal = 0;
    const running = area.run(['plan', '--dir', '.'], { cwd: dir, env: serviceEnv(emulator.url), timeoutMs: 120_000, onSpawn: (c) => (child = c) });
    // Once the process has spent more CPU than starting Node and termsync costs, it is reading the repository.
    const sampler = setInterval(() => {
      const pid = child?.pid;
      if (pid === undefined || signalledAt > 0) return;
      cpuAtSignal = cpuSeconds(pid);
      if (cpuAtSignal >= 1.5) {
        signalledAt = performance.now();
        child?.kill('SIGTERM');
      }
    }, 20);
    const run = await running;
    clearInterval(sampler);
    const afterSignalMs = signalledAt > 0 ? performance.now() - signalledAt : Number.NaN;
    const sent = emulator.requests().length - before;
    area.tried(`SIGTERM after ${cpuAtSignal.toFixed(1)} CPU s of reading 3,000 glossaries: exit ${run.code ?? run.signal} ${afterSignalMs.toFixed(0)} ms later, ${sent} requests; said: ${run.stderr.trim().split('\n').pop() ?? ''}`);
    expect(signalledAt).toBeGreaterThan(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('interrupted while reading the repository (received SIGTERM): nothing was sent');
    expect(afterSignalMs).toBeLessThan(10_000);
    expect(sent).toBe(0);
    expect(looksLikeStackTrace(run.stdout + run.stderr)).toBe(false);
  });

  it('covers every rule of the validator that reports an error', () => {
    const covered = new Set(repos.map((r) => r.code));
    const codes = validatorErrorCodes();
    const missing = [...codes].filter((c) => !covered.has(c)).sort();
    area.tried(`the rule table lists ${codes.size} error rules; the bad repositories cover ${codes.size - missing.length}${missing.length > 0 ? `; not covered: ${missing.join(', ')}` : ''}`);
    expect(codes.size).toBeGreaterThan(80);
    expect(missing).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files (outputs, repositories, emulator log) for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(100);
    expect(hits).toEqual([]);
  });
});
