import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INIT_CONFIG, INIT_GITIGNORE } from '../../src/cli/commands/init.js';
import { loadRepository } from '../../src/config/index.js';
import { runCliCaptured } from './run-cli.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'termsync-init-'));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('termsync init', () => {
  it('writes a config that loads without a diagnostic, the example outside the managed folders, and .gitignore lines', async () => {
    const run = await runCliCaptured(['init', '--dir', 'repo'], { cwd: home });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const dir = join(home, 'repo');
    expect((await readdir(dir)).sort()).toEqual(['.gitignore', 'config', 'examples', 'glossaries']);
    expect(await readdir(join(dir, 'glossaries'))).toEqual([]);
    const config = await readFile(join(dir, 'config', 'termsync.yaml'), 'utf8');
    expect(config.split('\n').filter((l) => l.trimStart().startsWith('#')).length).toBeGreaterThan(5);
    const loaded = await loadRepository({ dir });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.desired?.config.targets).toEqual([expect.objectContaining({ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY' })]);
    expect(loaded.desired?.glossaries).toEqual([]); // the example is not managed where it is
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toMatch(/^# termsync: .*\n\.termsync\.lock\nplan\.json\nids\.json\n$/);
    // Next: the two variables, import, plan.
    const next = run.stdout.slice(run.stdout.indexOf('Next:\n')).split('\n').slice(1, 4);
    expect(next.map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(['export TERMSYNC_BASE_URL=https://…', 'termsync import', 'termsync plan']);
  });

  it('names every setting of the config schema, commented where it is not set; uncommented, they load as they are', async () => {
    const schema = JSON.parse(await readFile(join(import.meta.dirname, '..', '..', 'schema', 'config.schema.json'), 'utf8')) as JsonSchema;
    const settings = settingPaths(schema, '');
    expect(settings).toEqual(expect.arrayContaining(['schedule', 'verify.max_characters', 'targets.capabilities.delete_custom_instruction']));
    const uncommented = INIT_CONFIG.replace(/^(\s*)# ( *)(?=[a-z_]+:)/gm, '$1$2');
    expect(settingPaths(undefined, '', parse(uncommented) as unknown).sort()).toEqual(settings.sort());
    await mkdir(join(home, 'config'));
    await mkdir(join(home, 'glossaries'));
    await writeFile(join(home, 'config', 'termsync.yaml'), uncommented);
    const loaded = await loadRepository({ dir: home });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.desired?.config.schedule).toBe('*/15 * * * *');
  });

  it('the example glossary is valid once moved into glossaries/', async () => {
    expect((await runCliCaptured(['init'], { cwd: home })).code).toBe(0);
    for (const file of ['example-glossary.yaml', 'example-glossary.en-de.tsv']) await rename(join(home, 'examples', file), join(home, 'glossaries', file));
    const validate = await runCliCaptured(['validate'], { cwd: home });
    expect(validate.code).toBe(0);
    const { desired } = await loadRepository({ dir: home });
    expect(desired?.glossaries.map((g) => [g.name, g.dictionaries.map((d) => `${d.sourceLang}-${d.targetLang}:${d.entries.size}`), g.tests?.length])).toEqual([
      ['Example glossary', ['en-de:3', 'en-fr:2'], 1],
    ]);
  });

  it('appends only the missing lines to an existing .gitignore', async () => {
    await writeFile(join(home, '.gitignore'), 'node_modules/\n/plan.json');
    expect((await runCliCaptured(['init'], { cwd: home })).code).toBe(0);
    const lines = (await readFile(join(home, '.gitignore'), 'utf8')).split('\n');
    expect(lines.slice(0, 2)).toEqual(['node_modules/', '/plan.json']);
    expect(lines.filter((l) => !l.startsWith('#') && l !== '')).toEqual(['node_modules/', '/plan.json', '.termsync.lock', 'ids.json']);
  });

  it('refuses to overwrite: exit 3, names the files, writes nothing', async () => {
    await mkdir(join(home, 'config'));
    await writeFile(join(home, 'config', 'termsync.yaml'), 'version: 1\n');
    await writeFile(join(home, 'termsync.yaml'), 'version: 1\n');
    const run = await runCliCaptured(['init'], { cwd: home });
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(
      'Error: init writes nothing over existing files: config/termsync.yaml, termsync.yaml exist (a termsync repository is already there? `termsync validate` checks it); nothing was written\n',
    );
    expect((await readdir(home)).sort()).toEqual(['config', 'termsync.yaml']);
    expect(await readFile(join(home, 'config', 'termsync.yaml'), 'utf8')).toBe('version: 1\n');
  });
});

describe("the project's own .gitignore", () => {
  it('keeps out what the README has a clone write (ids and plan files, the lock): the lines init writes', async () => {
    const root = join(import.meta.dirname, '..', '..');
    const ignored = new Set((await readFile(join(root, '.gitignore'), 'utf8')).split('\n').map((l) => l.trim()));
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const written = [...readme.matchAll(/^ {4}node bin\/termsync\.js .*--(?:ids-out|out) (\S+)/gm)].map((m) => m[1]);
    expect(written).toContain('ids.json');
    for (const file of [...written, ...INIT_GITIGNORE.slice(1)]) expect(ignored, file).toContain(file);
  });
});

describe('termsync init where it cannot write', () => {
  it('a folder under a file: exit 3 with the reason, nothing left behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'termsync-init-'));
    try {
      await writeFile(join(dir, 'a-file'), 'x');
      const run = await runCliCaptured(['init', '--dir', 'a-file/repo'], { cwd: dir });
      expect(run.code).toBe(3);
      expect(run.stderr).toBe('Error: init could not write into a-file/repo (ENOTDIR); nothing was written\n');
      expect(await readdir(dir)).toEqual(['a-file']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the target variables default to the names the README gives', () => {
  it('a target with only a name reads TERMSYNC_BASE_URL and TERMSYNC_API_KEY', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'termsync-defaults-'));
    try {
      await writeFile(join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - name: default\n');
      await mkdir(join(dir, 'glossaries'));
      const loaded = await loadRepository({ dir });
      expect(loaded.diagnostics).toEqual([]);
      expect(loaded.desired?.config.targets).toEqual([expect.objectContaining({ name: 'default', baseUrlEnv: 'TERMSYNC_BASE_URL', apiKeyEnv: 'TERMSYNC_API_KEY' })]);
      // And the CLI then asks for exactly those.
      const plan = await runCliCaptured(['plan', '--dir', dir], { env: {} });
      expect(plan.code).toBe(7);
      expect(plan.stderr).toMatch(/set TERMSYNC_(BASE_URL|API_KEY)\b/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

interface JsonSchema {
  readonly properties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
}

/** The dotted paths of the settings a schema describes (arrays' items as their parent), or of the keys a parsed value holds. */
function settingPaths(schema: JsonSchema | undefined, prefix: string, value?: unknown): string[] {
  if (schema === undefined) {
    const item = Array.isArray(value) ? (value[0] as unknown) : value;
    if (item === null || typeof item !== 'object') return [];
    return Object.entries(item as Record<string, unknown>).flatMap(([key, v]) => [`${prefix}${key}`, ...settingPaths(undefined, `${prefix}${key}.`, v)]);
  }
  const node = schema.items ?? schema;
  return Object.entries(node.properties ?? {}).flatMap(([key, sub]) => [`${prefix}${key}`, ...settingPaths(sub, `${prefix}${key}.`)]);
}
