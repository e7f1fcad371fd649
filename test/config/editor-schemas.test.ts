/**
 * The JSON Schemas as editors use them: each has the `$id` of its release, a resource file is
 * checked against the branch of its `kind`, the SchemaStore catalog entries point at them, and
 * every YAML file of the example repository and every YAML file `init` and `import` write is valid
 * against its schema (Ajv, JSON Schema 2020-12) and starts with the line that tells the YAML
 * language server where that schema is.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { VERSION } from '../../src/cli/version.js';
import { catalogEntries, SCHEMA_BASE_URL, schemaUrl } from '../../src/config/index.js';
import { createWorld, PROJECT_ROOT, type World } from '../e2e/harness.js';
import { runCliCaptured } from '../cli/run-cli.js';

const SCHEMA_DIR = join(PROJECT_ROOT, 'schema');
const resourceSchema = JSON.parse(await readFile(join(SCHEMA_DIR, 'resource.schema.json'), 'utf8')) as Record<string, unknown>;
const configSchema = JSON.parse(await readFile(join(SCHEMA_DIR, 'config.schema.json'), 'utf8')) as Record<string, unknown>;
const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; repository: { url: string } };

// strict: a keyword Ajv does not know, or a schema it would read differently than written, fails compiling.
const ajv = new Ajv2020({ allErrors: true, strict: true });
const validateResource = ajv.compile(resourceSchema);
const validateConfig = ajv.compile(configSchema);

function problems(validate: ValidateFunction, value: unknown): string[] {
  validate(value);
  // Ajv also says that the `then` of the kind failed, above the errors that say why: left out.
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}${e.params['additionalProperty'] === undefined ? '' : ` (${String(e.params['additionalProperty'])})`}`);
}

/** Every YAML file under a folder, relative paths. */
async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.yaml')).sort();
}

const URL_LINE = (name: 'resource' | 'config'): string => `# yaml-language-server: $schema=${schemaUrl(name, VERSION)}`;

describe('the schemas', () => {
  it("each has the $id of this release: the file in the repository at the tag; the address's repository is package.json's", () => {
    expect(resourceSchema['$id']).toBe(`https://raw.githubusercontent.com/your-org/termsync/v${pkg.version}/schema/resource.schema.json`);
    expect(configSchema['$id']).toBe(`https://raw.githubusercontent.com/your-org/termsync/v${pkg.version}/schema/config.schema.json`);
    expect(VERSION).toBe(pkg.version);
    expect(pkg.repository.url.replace(/^git\+https:\/\/github\.com\/(.*)\.git$/, 'https://raw.githubusercontent.com/$1')).toBe(SCHEMA_BASE_URL);
  });

  it('the SchemaStore catalog entries (schema/schemastore-catalog.json) point at this release, the config by its file name', async () => {
    const committed = JSON.parse(await readFile(join(SCHEMA_DIR, 'schemastore-catalog.json'), 'utf8')) as unknown;
    expect(committed).toEqual(catalogEntries(VERSION));
    expect(catalogEntries(VERSION).map((e) => [e.name, e.url, e.fileMatch ?? null])).toEqual([
      ['termsync config', configSchema['$id'], ['termsync.yaml']],
      ['termsync resource', resourceSchema['$id'], null],
    ]);
  });

  it('a resource is checked against its kind: a glossary with a style rule list field is told that field, and nothing about style rule lists', () => {
    expect(problems(validateResource, { kind: 'glossary', name: 'G', language: 'de', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: { a: 'b' } }] })).toEqual([
      '/ must NOT have additional properties (language)',
    ]);
    expect(problems(validateResource, { kind: 'style_rules', name: 'S', dictionaries: [] })).toEqual(["/ must have required property 'language'", '/ must NOT have additional properties (dictionaries)']);
    expect(problems(validateResource, { kind: 'glossary', name: 'G', api: 'v4', dictionaries: [{ source_lang: 'en', target_lang: 'de', entries: { a: 'b' } }] })).toEqual(['/api must be equal to one of the allowed values']);
    expect(problems(validateResource, { kind: 'terms', name: 'T' })).toEqual(['/kind must be equal to one of the allowed values']);
    expect(problems(validateResource, { name: 'T' })).toEqual(["/ must have required property 'kind'"]);
  });
});

describe('every YAML file is valid against its schema', () => {
  it('the example repository (config/, glossaries/)', async () => {
    expect(problems(validateConfig, parseYaml(await readFile(join(PROJECT_ROOT, 'config', 'termsync.yaml'), 'utf8')))).toEqual([]);
    const files = await yamlFiles(join(PROJECT_ROOT, 'glossaries'));
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const file of files) expect(problems(validateResource, parseYaml(await readFile(join(PROJECT_ROOT, 'glossaries', file), 'utf8'))), file).toEqual([]);
  });

  it('what init writes, with the line naming its schema: the published one, or the installed termsync of the repository by a relative path', async () => {
    const home = await mkdtemp(join(tmpdir(), 'termsync-editor-init-'));
    try {
      expect((await runCliCaptured(['init', '--dir', 'plain'], { cwd: home })).code).toBe(0);
      const config = await readFile(join(home, 'plain', 'config', 'termsync.yaml'), 'utf8');
      const example = await readFile(join(home, 'plain', 'examples', 'example-glossary.yaml'), 'utf8');
      expect(config.split('\n')[0]).toBe(URL_LINE('config'));
      expect(example.split('\n')[0]).toBe(URL_LINE('resource'));
      expect(problems(validateConfig, parseYaml(config))).toEqual([]);
      expect(problems(validateResource, parseYaml(example))).toEqual([]);

      // termsync installed in the repository (npm install --save-dev termsync): its own schema files.
      const installed = join(home, 'local', 'node_modules', 'termsync', 'schema');
      await mkdir(installed, { recursive: true });
      for (const file of ['config.schema.json', 'resource.schema.json']) await writeFile(join(installed, file), '{}');
      expect((await runCliCaptured(['init', '--dir', 'local'], { cwd: home })).code).toBe(0);
      expect((await readFile(join(home, 'local', 'config', 'termsync.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/termsync/schema/config.schema.json');
      expect((await readFile(join(home, 'local', 'examples', 'example-glossary.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/termsync/schema/resource.schema.json');

      // A node_modules above the repository would not be in another clone: the published schema.
      await mkdir(join(home, 'local', 'nested'));
      expect((await runCliCaptured(['init', '--dir', 'local/nested'], { cwd: home })).code).toBe(0);
      expect((await readFile(join(home, 'local', 'nested', 'config', 'termsync.yaml'), 'utf8')).split('\n')[0]).toBe(URL_LINE('config'));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  describe('what import writes (TSV, TBX and workbook glossaries, style rule lists)', () => {
    let world: World;
    beforeAll(async () => {
      world = await createWorld([join(PROJECT_ROOT, 'config'), join(PROJECT_ROOT, 'glossaries')]);
      expect((await world.cli(['apply'])).code).toBe(0);
    }, 60_000);
    afterAll(async () => {
      await world.close();
    });

    it.each(['tsv', 'tbx', 'xlsx'])('--format %s: every resource file is valid and starts with the line naming the resource schema', async (format) => {
      // The repository declares nothing any more: everything live is imported.
      for (const file of await yamlFiles(join(world.dir, 'glossaries'))) await unlink(join(world.dir, 'glossaries', file));
      const outDir = join('glossaries', `imported-${format}`);
      const run = await world.cli(['import', '--format', format, '--out-dir', outDir]);
      expect(run.code, run.stderr).toBe(0);
      const files = await yamlFiles(join(world.dir, outDir));
      expect(files.length).toBeGreaterThanOrEqual(8);
      for (const file of files) {
        const text = await readFile(join(world.dir, outDir, file), 'utf8');
        expect(text.split('\n')[0], file).toBe(URL_LINE('resource'));
        expect(problems(validateResource, parseYaml(text)), file).toEqual([]);
      }
      // The files are the repository now: plan finds nothing to do, the line changes nothing.
      const plan = await world.cli(['plan', '--detailed-exitcode']);
      expect(plan.code, plan.stderr).toBe(0);
      for (const file of files) await unlink(join(world.dir, outDir, file));
      for (const file of (await readdir(join(world.dir, outDir))).map((f) => join(world.dir, outDir, f))) await unlink(file);
      // Back to the example repository for the next format.
      for (const file of await yamlFiles(join(PROJECT_ROOT, 'glossaries'))) {
        await mkdir(dirname(join(world.dir, 'glossaries', file)), { recursive: true });
        await writeFile(join(world.dir, 'glossaries', file), await readFile(join(PROJECT_ROOT, 'glossaries', file)));
      }
      expect(relative(world.dir, join(world.dir, outDir))).toBe(outDir);
    }, 60_000);
  });
});
