#!/usr/bin/env node
// The script people run today, as a reference for termsync's CPU: for every declared glossary,
// PUT each dictionary's entries file as it is (no diff). Reads the repository's resource files
// with the same YAML library; creates a glossary that does not exist yet. Eight requests at once.
//   node bench/replace-all.js --dir REPO   (TERMSYNC_BASE_URL, TERMSYNC_API_KEY in the environment)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { parse } from 'yaml';

const dir = process.argv[process.argv.indexOf('--dir') + 1];
const base = process.env.TERMSYNC_BASE_URL;
const headers = { Authorization: `Service-Auth-Key ${process.env.TERMSYNC_API_KEY}`, 'Content-Type': 'application/json' };

async function call(method, url, body) {
  const response = await fetch(`${base}${url}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text.slice(0, 200)}`);
  return text === '' ? undefined : JSON.parse(text);
}

const folder = path.join(dir, 'glossaries');
const glossaries = [];
for (const name of (await readdir(folder)).filter((n) => n.endsWith('.yaml')).sort()) {
  const doc = parse(await readFile(path.join(folder, name), 'utf8'));
  if (doc?.kind === 'glossary') glossaries.push(doc);
}
const ids = new Map();
for (const g of (await call('GET', '/v3/glossaries')).glossaries ?? []) ids.set(g.name, g.glossary_id);

let next = 0;
let writes = 0;
async function worker() {
  while (next < glossaries.length) {
    const g = glossaries[next++];
    const dictionaries = await Promise.all(
      g.dictionaries.map(async (d) => ({ source_lang: d.source_lang, target_lang: d.target_lang, entries: await readFile(path.join(folder, d.entries_file), 'utf8'), entries_format: 'tsv' })),
    );
    const id = ids.get(g.name);
    if (id === undefined) {
      await call('POST', '/v3/glossaries', { name: g.name, dictionaries });
      writes++;
      continue;
    }
    for (const d of dictionaries) {
      await call('PUT', `/v3/glossaries/${id}/dictionaries`, d);
      writes++;
    }
  }
}
await Promise.all(Array.from({ length: 8 }, worker));
console.log(`${writes} writes`);
