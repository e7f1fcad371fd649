// Writes the JSON Schemas of the repository formats (for editors) from the zod schemas, each with
// the `$id` of this release (package.json's version), and the SchemaStore catalog entries that
// point at them (src/config/schema-urls.ts). Run `npm run build` first.
// test/config/json-schema.test.ts and test/config/editor-schemas.test.ts fail when these files are stale.
import { readFile, writeFile } from 'node:fs/promises';
import { catalogEntries, jsonSchemas } from '../dist/config/index.js';

const here = new URL('.', import.meta.url);
const { version } = JSON.parse(await readFile(new URL('../package.json', here), 'utf8'));
const { resource, config } = jsonSchemas(version);
await writeFile(new URL('resource.schema.json', here), `${JSON.stringify(resource, null, 2)}\n`);
await writeFile(new URL('config.schema.json', here), `${JSON.stringify(config, null, 2)}\n`);
await writeFile(new URL('schemastore-catalog.json', here), `${JSON.stringify(catalogEntries(version), null, 2)}\n`);
console.log('wrote schema/resource.schema.json, schema/config.schema.json and schema/schemastore-catalog.json');
