// Writes the JSON Schemas of the repository formats (for editors) from the zod schemas.
// Run `npm run build` first. test/config/json-schema.test.ts fails when these files are stale.
import { writeFile } from 'node:fs/promises';
import { jsonSchemas } from '../dist/config/index.js';

const { resource, config } = jsonSchemas();
const here = new URL('.', import.meta.url);
await writeFile(new URL('resource.schema.json', here), `${JSON.stringify(resource, null, 2)}\n`);
await writeFile(new URL('config.schema.json', here), `${JSON.stringify(config, null, 2)}\n`);
console.log('wrote schema/resource.schema.json and schema/config.schema.json');
