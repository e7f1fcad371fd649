import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/cli/version.js';
import { jsonSchemas, loadRepository } from '../../src/config/index.js';

const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema');

describe('committed JSON Schemas', () => {
  it.each([
    ['resource', 'resource.schema.json'],
    ['config', 'config.schema.json'],
  ] as const)('schema/%s matches the zod schema (regenerate with `npm run build && node schema/generate.js`)', async (which, file) => {
    const committed: unknown = JSON.parse(await readFile(path.join(SCHEMA_DIR, file), 'utf8'));
    expect(committed).toEqual(jsonSchemas(VERSION)[which]);
  });

  it('offers the language enumerations and rejects unknown fields for editors', () => {
    const text = JSON.stringify(jsonSchemas(VERSION));
    expect(text).toContain('"additionalProperties":false');
    expect(text).toContain('"enum":["de","en","es","fr","it","ja","ko","zh"]');
  });

  /** Every place of the resource schema that carries `pattern: "\\S"` (not blank), as a dotted path. */
  function notBlankPaths(node: unknown, at: string, found: string[]): string[] {
    if (node === null || typeof node !== 'object') return found;
    const schema = node as Record<string, unknown>;
    if (schema['pattern'] === '\\S') found.push(at);
    for (const [key, child] of Object.entries(schema)) {
      if (key === 'properties') for (const [name, sub] of Object.entries(child as Record<string, unknown>)) notBlankPaths(sub, `${at}.${name}`, found);
      else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') (child as unknown[]).forEach((sub) => notBlankPaths(sub, at, found));
      else if (key === 'then') notBlankPaths(child, at, found);
      else if (key === 'items' || key === 'additionalProperties' || key === 'propertyNames') notBlankPaths(child, `${at}[${key}]`, found);
    }
    return found;
  }

  it('tells editors which texts must not be blank: those the loader refuses when only whitespace', async () => {
    const resource = jsonSchemas(VERSION).resource as Record<string, unknown>;
    expect(notBlankPaths(resource, '', []).sort()).toEqual([
      '.configured_rules[additionalProperties][additionalProperties]',
      '.configured_rules[additionalProperties][propertyNames]',
      '.configured_rules[propertyNames]',
      '.custom_instructions[items].label',
      '.custom_instructions[items].prompt',
      '.name',
      '.name',
      '.tests[items].expect[items]',
      '.tests[items].forbid[items]',
      '.tests[items].text',
    ]);
    // The loader refuses each of them when blank (a located error, whatever its rule id).
    const dir = await mkdtemp(path.join(tmpdir(), 'termsync-schema-'));
    try {
      await writeFile(path.join(dir, 'termsync.yaml'), 'version: 1\ntargets:\n  - {name: default, base_url_env: TERMSYNC_BASE_URL, api_key_env: TERMSYNC_API_KEY}\n');
      await mkdir(path.join(dir, 'glossaries'));
      const blank = '" \\u00a0"';
      const cases = [
        `kind: glossary\nname: ${blank}\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\n`,
        `kind: style_rules\nname: ${blank}\nlanguage: de\n`,
        `kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - {label: ${blank}, prompt: p}\n`,
        `kind: style_rules\nname: S\nlanguage: de\ncustom_instructions:\n  - {label: l, prompt: ${blank}}\n`,
        `kind: style_rules\nname: S\nlanguage: de\nconfigured_rules:\n  ${blank}: {apostrophe: use_curly_apostrophes}\n`,
        `kind: style_rules\nname: S\nlanguage: de\nconfigured_rules:\n  punctuation: {${blank}: use_curly_apostrophes}\n`,
        `kind: style_rules\nname: S\nlanguage: de\nconfigured_rules:\n  punctuation: {apostrophe: ${blank}}\n`,
        ...['text: ${blank}, expect: [b]', 'text: t, expect: [${blank}]', 'text: t, forbid: [${blank}]'].map(
          (test) => `kind: glossary\nname: G\ndictionaries:\n  - {source_lang: en, target_lang: de, entries: {a: b}}\ntests:\n  - {source_lang: en, target_lang: de, ${test.replace('${blank}', blank)}}\n`,
        ),
      ];
      for (const text of cases) {
        await writeFile(path.join(dir, 'glossaries', 'x.yaml'), text);
        const { diagnostics } = await loadRepository({ dir });
        expect(diagnostics.filter((d) => d.severity === 'error').map((d) => d.line), text).toEqual([text.split('\n').findIndex((line) => line.includes(blank)) + 1]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says that a configured rules category needs at least one rule', () => {
    expect(JSON.stringify(jsonSchemas(VERSION).resource)).toContain('"minProperties":1');
  });
});
