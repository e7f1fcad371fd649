import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeImportFiles } from '../../src/cli/commands/import.js';
import { runCli } from '../../src/cli/main.js';
import { createWorld, type World } from '../e2e/harness.js';

let world: World;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await world.close();
});

/** Runs the CLI in the world's repository; `onStdout` sees each piece of stdout as it is printed. */
async function runWith(argv: readonly string[], onStdout: (text: string) => Promise<void> | void): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const pending: Promise<void>[] = [];
  const code = await runCli([...argv, '--dir', world.dir], {
    stdout: (t) => {
      stdout += t;
      pending.push(Promise.resolve(onStdout(t)));
    },
    stderr: (t) => {
      stderr += t;
    },
    env: { TERMSYNC_BASE_URL: world.emulator.url, TERMSYNC_API_KEY: world.key },
    cwd: world.dir,
    signal: new AbortController().signal,
  });
  await Promise.all(pending);
  return { code, stdout, stderr };
}

describe('output files are checked before anything is sent (exit 3, a plain message)', () => {
  it('plan --out into a folder that does not exist', async () => {
    const run = await world.cli(['plan', '--out', 'missing/dir/p.json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('Error: --out missing/dir/p.json: the folder missing/dir does not exist (create it first); nothing was sent to the service\n');
    expect(world.mark()).toBe(0);
  });

  it('plan --out naming a folder, or a path through a file', async () => {
    const folder = await world.cli(['plan', '--out', 'glossaries']);
    expect(folder.code).toBe(3);
    expect(folder.stderr).toContain('--out glossaries: is a folder, expected a file name');
    const throughFile = await world.cli(['plan', '--out', 'glossaries/product.yaml/p.json']);
    expect(throughFile.code).toBe(3);
    expect(throughFile.stderr).toContain('glossaries/product.yaml is not a folder');
    expect(throughFile.stderr).not.toContain('Internal error');
    expect(world.mark()).toBe(0);
  });

  it('apply --ids-out into a folder that does not exist', async () => {
    const run = await world.cli(['apply', '--ids-out', 'out/ids.json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe('Error: --ids-out out/ids.json: the folder out does not exist (create it first); nothing was sent to the service\n');
    expect(world.mark()).toBe(0);
  });

  it('import into a folder under a file', async () => {
    const run = await world.cli(['import', '--out-dir', 'glossaries/product.yaml/imported']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Error: --out-dir glossaries/product.yaml/imported: glossaries/product.yaml is not a folder; nothing was sent to the service');
    expect(world.mark()).toBe(0);
  });

  it('plan --out writes the whole plan, and nothing beside it', async () => {
    await mkdir(join(world.dir, 'plans'));
    const run = await world.cli(['plan', '--out', 'plans/p.json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(await world.read('plans/p.json'))).toHaveProperty('operations');
    expect(await readdir(join(world.dir, 'plans'))).toEqual(['p.json']);
  });
});

describe('a write that fails anyway', () => {
  it('after an apply: exit 6 with the reason (the apply happened), not 1', async () => {
    await mkdir(join(world.dir, 'out'));
    // The folder goes away once the plan is printed, before the apply writes anything.
    const run = await runWith(['apply', '--ids-out', 'out/ids.json'], async (text) => {
      if (text.includes('Plan:')) await rm(join(world.dir, 'out'), { recursive: true, force: true });
    });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('Error: the apply ran (see the result above), but the ids could not be written to out/ids.json (ENOENT); run `apply --ids-out out/ids.json` again to write them');
    expect(run.stderr).not.toContain('Internal error');
    expect(world.writesSince(0).length).toBeGreaterThan(0);
    // Running it again writes the ids and changes nothing.
    await mkdir(join(world.dir, 'out'));
    const mark = world.mark();
    const again = await world.cli(['apply', '--ids-out', 'out/ids.json']);
    expect(again.code).toBe(0);
    expect(world.writesSince(mark)).toEqual([]);
    expect(JSON.parse(await world.read('out/ids.json'))).toHaveProperty('glossaries');
  });

  it('after a plan: exit 3 with the reason, not 1', async () => {
    await mkdir(join(world.dir, 'plans'));
    const run = await runWith(['plan', '--out', 'plans/p.json'], async (text) => {
      if (text.includes('Plan:')) await rm(join(world.dir, 'plans'), { recursive: true, force: true });
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Error: the plan could not be saved to plans/p.json (ENOENT); nothing was changed on the service');
    expect(world.writesSince(0)).toEqual([]);
  });

  it('import writes every file or none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'termsync-import-'));
    try {
      await mkdir(join(dir, 'repo'));
      await writeFile(join(dir, 'repo', 'taken.tsv'), 'a\tb\n');
      const files = [
        { name: 'first.yaml', content: 'kind: glossary\n' },
        { name: 'taken.tsv', content: 'x\ty\n' },
      ];
      await expect(writeImportFiles(join(dir, 'repo'), join(dir, 'repo', 'new'), [files[0], { ...files[1], name: '../taken.tsv' }] as never, 'repo/new')).rejects.toThrow(
        'cannot write the imported files into repo/new (EEXIST); nothing was written',
      );
      expect(await readdir(join(dir, 'repo'))).toEqual(['taken.tsv']); // the folder it made is gone too
      expect(await readFile(join(dir, 'repo', 'taken.tsv'), 'utf8')).toBe('a\tb\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
