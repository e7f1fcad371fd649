import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureComment, firstErrorLine, labelFor, readPlanFacts } from '../../action/run-termsync.js';
import { createPlan } from '../../src/plan/index.js';
import { renderPlanJson } from '../../src/report/index.js';
import { desiredState, glossary, liveState } from '../plan/builders.js';
import { createWorld, PROJECT_ROOT, type World } from '../e2e/harness.js';

const run = promisify(execFile);

/**
 * The action's main step (action/run-termsync.js) as the runner runs it: `termsync` on PATH (this
 * checkout's build), the inputs and GitHub's files in the environment, the emulator as the service.
 */
let world: World;
let scratch: string;
let runs = 0;

interface StepResult {
  readonly code: number;
  readonly log: string;
  readonly outputs: Record<string, string>;
  readonly summary: string;
}

async function step(inputs: Record<string, string>, env: Record<string, string> = {}): Promise<StepResult> {
  const dir = join(scratch, `run-${++runs}`);
  await mkdir(join(dir, 'temp'), { recursive: true });
  const outputFile = join(dir, 'output');
  const summaryFile = join(dir, 'summary');
  await writeFile(outputFile, '');
  await writeFile(summaryFile, '');
  const environment: Record<string, string> = {
    PATH: `${join(scratch, 'bin')}:${process.env['PATH'] ?? ''}`,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: join(dir, 'temp'),
    TERMSYNC_BASE_URL: world.emulator.url,
    TERMSYNC_API_KEY: world.key,
    TERMSYNC_ALLOWED_HOSTS: '127.0.0.1',
    INPUT_DIRECTORY: world.dir,
    INPUT_TARGET: 'default',
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v])),
    ...env,
  };
  let code = 0;
  let log = '';
  try {
    ({ stdout: log } = await run(process.execPath, [join(PROJECT_ROOT, 'action/run-termsync.js')], { env: environment, cwd: dir }));
  } catch (error) {
    const e = error as { code?: number; stdout?: string };
    code = e.code ?? -1;
    log = e.stdout ?? '';
  }
  const outputs = Object.fromEntries(
    (await readFile(outputFile, 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { code, log, outputs, summary: await readFile(summaryFile, 'utf8') };
}

beforeAll(async () => {
  world = await createWorld('basic');
  // On the service: the repository as it was, with one v2 glossary entry that the repository has changed since.
  const legacy = await world.read('glossaries/legacy.yaml');
  await world.write('glossaries/legacy.yaml', legacy.replace('sign out: cerrar sesión', 'sign out: salir'));
  expect((await world.cli(['apply'])).code).toBe(0);
  await world.write('glossaries/legacy.yaml', legacy);
  scratch = await mkdtemp(join(tmpdir(), 'termsync-action-'));
  await mkdir(join(scratch, 'bin'));
  await symlink(join(PROJECT_ROOT, 'bin/termsync.js'), join(scratch, 'bin/termsync'));
});

afterAll(async () => {
  await world.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('the action step', () => {
  it('plan, then apply: outputs, label, comment and summary follow the saved plan', async () => {
    const first = await step({ command: 'plan' });
    expect(first.code).toBe(0);
    expect(first.outputs).toMatchObject({ exitcode: '2', has_changes: 'true', has_destroy: 'true', label: 'glossary:destroy', marker: '<!-- termsync-plan target=default -->' });
    const comment = await readFile(first.outputs['comment-file'] ?? '', 'utf8');
    expect(comment.startsWith('<!-- termsync-plan target=default -->\n### termsync plan for target default\n')).toBe(true);
    expect(comment).toContain('**Plan: 1 to add, 0 to change, 1 to destroy.**');
    expect(comment).toContain('> This plan deletes or replaces: replace glossary Legacy terms (its id changes).');
    expect(first.summary).toBe(`${comment}\n`);
    expect(JSON.parse(await readFile(first.outputs['plan-json'] ?? '', 'utf8'))).toMatchObject({ format_version: '1.0', target: 'default' });
    expect(first.log).toContain('$ termsync plan --format markdown --out ');

    const apply = await step({ command: 'apply', 'ids-file': join(scratch, 'ids.json') });
    expect(apply.outputs).toMatchObject({ exitcode: '0', has_changes: 'true', has_destroy: 'true', 'ids-file': join(scratch, 'ids.json'), 'comment-file': '' });
    const ids = JSON.parse(await readFile(join(scratch, 'ids.json'), 'utf8')) as { glossaries: Record<string, string> };
    expect(Object.keys(ids.glossaries).sort()).toEqual(['Legacy terms', 'Product terms']);
    // The summary: the plan that was applied, then the result.
    expect(apply.summary).toContain('**Plan: 1 to add, 0 to change, 1 to destroy.**');
    expect(apply.summary).toMatch(/#### Apply: complete\n\n```text\n[\s\S]*Apply complete: 2 applied, 0 failed, 0 skipped.\n```\n$/);
    // (The no-changes case of the outputs is read from a saved plan below, without another process.)
  }, 60_000);

  it('a plan that cannot be made: its exit code, no facts, no label, a comment that says so', async () => {
    const failed = await step({ command: 'plan' }, { TERMSYNC_API_KEY: '' });
    expect(failed.code).toBe(0);
    expect(failed.outputs).toMatchObject({ exitcode: '7', has_changes: '', has_destroy: '', label: '', 'plan-json': '' });
    const comment = await readFile(failed.outputs['comment-file'] ?? '', 'utf8');
    // Why, in the comment itself: termsync's own error line, in a code block.
    expect(comment).toBe(
      '<!-- termsync-plan target=default -->\n### termsync plan for target default\n\n**termsync plan failed with exit code 7: authentication, permission or destination error.**\n\n```text\nError: no API key for target "default": set TERMSYNC_API_KEY (or TERMSYNC_API_KEY_FILE)\n```\n\nThe job log has the rest.\n',
    );
    expect(failed.summary).toBe(`${comment}\n`);
  });

  it('a plan refused for an invalid repository: the comment names the first problem where it is', async () => {
    await world.write('glossaries/broken.yaml', 'kind: glossary\nname: Broken\ndictionaries: []\n');
    try {
      const failed = await step({ command: 'plan' });
      expect(failed.outputs['exitcode']).toBe('3');
      const comment = await readFile(failed.outputs['comment-file'] ?? '', 'utf8');
      expect(comment).toContain('**termsync plan failed with exit code 3: invalid configuration or input: nothing was sent to the service.**');
      expect(comment).toMatch(/\n```text\n\S*glossaries\/broken\.yaml:3:1: error: \[glossary\/no-dictionaries\] a glossary needs at least one dictionary\n```\n/);
    } finally {
      await rm(join(world.dir, 'glossaries/broken.yaml'));
    }
  });

  it('validate: annotations in the log, exit code 3 and the count in the summary', async () => {
    await world.write('glossaries/broken.yaml', 'kind: glossary\nname: Broken\ndictionaries: []\n');
    const validate = await step({ command: 'validate' });
    expect(validate.outputs['exitcode']).toBe('3');
    expect(validate.log).toMatch(/^::error file=.*broken\.yaml,line=\d+,col=\d+,title=/m);
    expect(validate.summary).toMatch(/^### termsync validate\n\n❌ 1 error, 0 warnings in \d+ files\. See the annotations on the changed files\.\n$/);
    await rm(join(world.dir, 'glossaries/broken.yaml'));
  });

  it('reads has_changes and has_destroy from the saved plan: a deleted dictionary counts as destroy', async () => {
    const plans = {
      none: createPlan({ target: 'd', desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }), live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' } } }] }) }),
      changes: createPlan({ target: 'd', desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'B' } })] }), live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' } } }] }) }),
      dictionary: createPlan({
        target: 'd',
        desired: desiredState({ glossaries: [glossary('G', { 'en-de': { a: 'A' } })] }),
        live: liveState({ glossaries: [{ id: 'g', name: 'G', dicts: { 'en-de': { a: 'A' }, 'en-fr': { a: 'A' } } }] }),
      }),
    };
    const facts = async (name: keyof typeof plans): Promise<ReturnType<typeof readPlanFacts>> => {
      const file = join(scratch, `${name}.json`);
      await writeFile(file, renderPlanJson(plans[name]));
      return readPlanFacts(file);
    };
    expect(await facts('none')).toEqual({ hasChanges: 'false', hasDestroy: 'false' });
    expect(labelFor(await facts('none'))).toBe('glossary:no-changes');
    expect(await facts('changes')).toEqual({ hasChanges: 'true', hasDestroy: 'false' });
    expect(labelFor(await facts('changes'))).toBe('glossary:changes');
    expect(await facts('dictionary')).toEqual({ hasChanges: 'true', hasDestroy: 'true' });
    expect(labelFor(await facts('dictionary'))).toBe('glossary:destroy');
    expect(readPlanFacts(join(scratch, 'none-such.json'))).toEqual({ hasChanges: '', hasDestroy: '' });
    expect(labelFor({ hasChanges: '', hasDestroy: '' })).toBe('');
  });

  it('finds the line that says why: a located problem, an Error: line or an error-level log message, whichever comes first; never a warning', () => {
    const warning = JSON.stringify({ level: 40, msg: 'cannot reach http://127.0.0.1:1 (ECONNREFUSED), retrying 2 more times…' });
    expect(firstErrorLine(`${warning}\nError: GET /v3/glossaries: cannot reach http://127.0.0.1:1 (ECONNREFUSED) after 3 attempts\n`)).toBe('Error: GET /v3/glossaries: cannot reach http://127.0.0.1:1 (ECONNREFUSED) after 3 attempts');
    expect(firstErrorLine('g/b.yaml:3:1: error: [glossary/no-dictionaries] a glossary needs at least one dictionary\nError: the repository has 1 error; nothing was sent to the service\n')).toBe(
      'g/b.yaml:3:1: error: [glossary/no-dictionaries] a glossary needs at least one dictionary',
    );
    expect(firstErrorLine('g/t.xlsx:Terms!B12: error: [entries/formula] the cell holds a formula\n')).toBe('g/t.xlsx:Terms!B12: error: [entries/formula] the cell holds a formula');
    expect(firstErrorLine(`${JSON.stringify({ level: 50, msg: 'the lock is held by another run' })}\n`)).toBe('the lock is held by another run');
    expect(firstErrorLine(`${warning}\nsomething unforeseen\n`)).toBe('something unforeseen');
    // The same log lines as termsync writes them beside human output.
    expect(firstErrorLine('warning: cannot reach http://127.0.0.1:1 (ECONNREFUSED), retrying 2 more times…\nError: GET /v3/glossaries: cannot reach\n')).toBe('Error: GET /v3/glossaries: cannot reach');
    expect(firstErrorLine('warning: slow\nerror: the lock is held by another run\n')).toBe('the lock is held by another run');
    expect(firstErrorLine('warning: slow\n')).toBe('');
    expect(firstErrorLine('')).toBe('');
    // Control characters shown as ?, long lines cut; the comment puts it in a code block longer than any backtick run in it.
    expect(firstErrorLine('Error: a\u001b[31mred\u0007 `x`\n')).toBe('Error: a?[31mred? `x`');
    expect(firstErrorLine(`Error: ${'x'.repeat(600)}`)).toHaveLength(500);
    expect(failureComment('<!-- termsync-plan target=t -->', 't', 'plan', 7, 'Error: ```fence``` in the message\n')).toContain('\n````text\nError: ```fence``` in the message\n````\n');
  });

  it('refuses an unknown command before running anything', async () => {
    const bad = await step({ command: 'destroy' });
    expect(bad.code).toBe(1);
    expect(bad.log).toContain('::error title=termsync action::expected the input "command" to be validate, plan or apply, got "destroy"');
    expect(bad.outputs).toEqual({});
  });
});
