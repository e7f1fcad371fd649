import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { validateAction, validateWorkflow } from '@action-validator/core';
import { CommanderError } from 'commander';
import { parse as parseShell } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { commandLines } from '../../action/run-termsync.js';
import { createProgram } from '../../src/cli/main.js';
import { PROJECT_ROOT } from '../e2e/harness.js';

const run = promisify(execFile);
const BIN = join(PROJECT_ROOT, 'node_modules', '.bin');
const GITHUB_FILES = [
  'action.yml',
  ...(await readdir(join(PROJECT_ROOT, 'examples/github'))).map((f) => `examples/github/${f}`),
  ...(await readdir(join(PROJECT_ROOT, '.github/workflows'))).map((f) => `.github/workflows/${f}`),
];
const GITLAB_FILE = 'examples/gitlab/.gitlab-ci.yml';

type Yaml = Record<string, unknown>;

async function readYaml(file: string): Promise<Yaml> {
  return parseYaml(await readFile(join(PROJECT_ROOT, file), 'utf8')) as Yaml;
}

/** Exit code and output of a tool; a non-zero exit is a value here, not an exception. */
async function tool(file: string, args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; output: string }> {
  try {
    const { stdout, stderr } = await run(file, [...args], { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Parses a termsync command line as the CLI would, without running the command; the usage error if any. */
async function usageError(argv: readonly string[]): Promise<string | undefined> {
  let stderr = '';
  const program = await createProgram(
    {
      io: { stdout: () => {}, stderr: (t) => (stderr += t), env: {}, cwd: PROJECT_ROOT, signal: new AbortController().signal },
      setExitCode: () => {},
    },
    argv,
  );
  for (const command of program.commands) command.action(() => {});
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? undefined : stderr || error.message;
    throw error;
  }
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'termsync-ci-examples-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** What `action-validator FILE` checks (its CLI calls the same functions, one process per file). */
function githubSchemaErrors(file: string, text: string): unknown[] {
  return (file.endsWith('action.yml') ? validateAction(text) : validateWorkflow(text)).errors;
}

describe('GitHub action and workflows', () => {
  it.each(GITHUB_FILES)('%s is valid against the published schema (action-validator)', async (file) => {
    expect(githubSchemaErrors(file, await readFile(join(PROJECT_ROOT, file), 'utf8'))).toEqual([]);
  });

  it('action-validator rejects a broken copy of each kind (so the checks above can fail)', async () => {
    const action = (await readFile(join(PROJECT_ROOT, 'action.yml'), 'utf8')).replace('using: composite', 'using: compost');
    expect(githubSchemaErrors('action.yml', action)).not.toEqual([]);
    const workflow = (await readFile(join(PROJECT_ROOT, 'examples/github/terminology-apply.yml'), 'utf8')).replace('runs-on:', 'run-on:');
    expect(githubSchemaErrors('workflow.yml', workflow)).not.toEqual([]);
  });

  it('the action-validator command line agrees (one process per file, as in a CI step)', async () => {
    const results = await Promise.all(GITHUB_FILES.map((f) => tool(join(BIN, 'action-validator'), [join(PROJECT_ROOT, f)], PROJECT_ROOT)));
    expect(results).toEqual(GITHUB_FILES.map(() => ({ code: 0, stdout: '', output: '' })));
  });

  it('workflows give the action only inputs it declares, and every command line it runs parses', async () => {
    const action = await readYaml('action.yml');
    const declared = Object.keys(action['inputs'] as Yaml);
    const seen: string[][] = [];
    for (const file of GITHUB_FILES.filter((f) => f.startsWith('examples/'))) {
      const workflow = await readYaml(file);
      for (const job of Object.values(workflow['jobs'] as Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>)) {
        for (const step of job.steps.filter((s) => /\/termsync@v\d/.test(s.uses ?? ''))) {
          const inputs = step.with ?? {};
          for (const name of Object.keys(inputs)) expect(declared, `${file}: input "${name}"`).toContain(name);
          const lines = commandLines({
            command: inputs['command'] ?? 'plan',
            directory: inputs['directory'] ?? '.',
            target: inputs['target'] ?? '',
            args: inputs['args'] ?? '',
            work: '/tmp/termsync',
            ...(inputs['ids-file'] === undefined ? {} : { idsFile: inputs['ids-file'] }),
          });
          for (const argv of lines) {
            expect(await usageError(argv), `${file}: termsync ${argv.join(' ')}`).toBeUndefined();
            seen.push(argv);
          }
        }
      }
    }
    // Files in name order: plan + apply (push), plan (drift), validate and plan (pull request).
    expect(seen.map((argv) => argv[0])).toEqual(['plan', 'apply', 'plan', 'validate', 'plan']);
    expect(seen).toContainEqual(['validate', '--format', 'github', '--dir', '.']);
  });
});

describe('GitLab pipeline', () => {
  it('is valid: gitlab-ci-local --preview checks it against the published CI schema (and rejects a broken copy)', async () => {
    const good = join(scratch, 'gitlab');
    const broken = join(scratch, 'gitlab-broken');
    await mkdir(good, { recursive: true });
    await mkdir(broken, { recursive: true });
    await copyFile(join(PROJECT_ROOT, GITLAB_FILE), join(good, '.gitlab-ci.yml'));
    const text = await readFile(join(PROJECT_ROOT, GITLAB_FILE), 'utf8');
    await writeFile(join(broken, '.gitlab-ci.yml'), text.replace('resource_group: terminology-production', 'resource_group: [terminology-production]'));
    // Both at once: each takes seconds, mostly the schema validation.
    const [ok, bad] = await Promise.all([tool(join(BIN, 'gitlab-ci-local'), ['--preview'], good), tool(join(BIN, 'gitlab-ci-local'), ['--preview'], broken)]);
    expect(ok.code, ok.output).toBe(0);
    const expanded = parseYaml(ok.stdout) as Record<string, Yaml>;
    expect(Object.keys(expanded)).toEqual(expect.arrayContaining(['validate', 'plan', 'plan-note', 'apply', 'drift']));
    expect(expanded['apply']?.['resource_group']).toBe('terminology-production');
    expect(bad.code).not.toBe(0);
    expect(bad.output).toMatch(/resource_group/);
  }, 60_000);

  it('every termsync command line in the scripts parses', async () => {
    const pipeline = await readYaml(GITLAB_FILE);
    const variables = pipeline['variables'] as Record<string, string>;
    const lines: string[] = [];
    for (const [name, job] of Object.entries(pipeline)) {
      if (typeof job !== 'object' || job === null || name === 'variables') continue;
      for (const key of ['before_script', 'script']) {
        const script = (job as Yaml)[key];
        if (Array.isArray(script)) lines.push(...script.filter((l): l is string => typeof l === 'string' && /^termsync\s/.test(l)));
      }
    }
    const argvs = lines.map((line) => {
      const words = parseShell(line, (name) => variables[name] ?? `$${name}`);
      const end = words.findIndex((w) => typeof w !== 'string');
      return (end < 0 ? words : words.slice(0, end)).slice(1) as string[];
    });
    for (const argv of argvs) expect(await usageError(argv), `termsync ${argv.join(' ')}`).toBeUndefined();
    expect(argvs.map((a) => a[0])).toEqual(['--version', 'validate', 'plan', 'apply', 'plan']);
    expect(argvs).toContainEqual([
      'plan', '--format', 'markdown', '--out', 'plan.json', '--detailed-exitcode', '--target', 'default', '--refresh', 'changed', '--base', '$CI_MERGE_REQUEST_DIFF_BASE_SHA',
    ]);
  });
});

describe('GitLab plan job: the line the note quotes when the plan fails', () => {
  it("is termsync's first located problem, taken by the job's own grep line from the plan's stderr", async () => {
    const pipeline = await readYaml(GITLAB_FILE);
    const script = (pipeline['plan'] as { script: string[] }).script;
    const grep = script.find((line) => line.startsWith('grep '));
    expect(grep).toBeDefined();
    const repo = join(scratch, 'gitlab-failing-plan');
    await mkdir(join(repo, 'glossaries'), { recursive: true });
    await writeFile(join(repo, 'termsync.yaml'), 'version: 1\ntargets:\n  - {name: default, base_url_env: TERMSYNC_BASE_URL, api_key_env: TERMSYNC_API_KEY}\n');
    await writeFile(join(repo, 'glossaries', 'broken.yaml'), 'kind: glossary\nname: Broken\ndictionaries: []\n');
    // The job's plan line, its stderr in plan-errors.txt (a repository with an error: exit 3, nothing sent).
    const plan = await tool(process.execPath, [join(PROJECT_ROOT, 'bin', 'termsync.js'), 'plan', '--format', 'markdown', '--dir', repo], repo);
    expect(plan.code).toBe(3);
    await writeFile(join(repo, 'plan-errors.txt'), plan.output);
    const run = await tool('bash', ['-c', grep ?? ''], repo);
    expect(run.code).toBe(0);
    expect(await readFile(join(repo, 'plan-error-line.txt'), 'utf8')).toBe(`${join(repo, 'glossaries', 'broken.yaml')}:3:1: error: [glossary/no-dictionaries] a glossary needs at least one dictionary\n`);
  });
});

describe('the command-line check', () => {
  it('catches an unknown option, a bad choice and an unknown command', async () => {
    expect(await usageError(['plan', '--detailed-exit-code'])).toMatch(/unknown option/);
    expect(await usageError(['validate', '--format', 'markdown'])).toMatch(/invalid/);
    expect(await usageError(['deploy'])).toMatch(/unknown command/);
  });
});
