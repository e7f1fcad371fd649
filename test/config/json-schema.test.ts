import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jsonSchemas } from '../../src/config/index.js';

const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema');

describe('committed JSON Schemas', () => {
  it.each([
    ['resource', 'resource.schema.json'],
    ['config', 'config.schema.json'],
  ] as const)('schema/%s matches the zod schema (regenerate with `npm run build && node schema/generate.js`)', async (which, file) => {
    const committed: unknown = JSON.parse(await readFile(path.join(SCHEMA_DIR, file), 'utf8'));
    expect(committed).toEqual(jsonSchemas()[which]);
  });

  it('offers the language enumerations and rejects unknown fields for editors', () => {
    const text = JSON.stringify(jsonSchemas());
    expect(text).toContain('"additionalProperties":false');
    expect(text).toContain('"enum":["de","en","es","fr","it","ja","ko","zh"]');
  });
});
