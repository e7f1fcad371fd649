#!/usr/bin/env node
// The baseline of bench/run.js: what people run today instead of termsync. For every declared
// glossary, replace each dictionary with its entries file as it is, no diff: PUT the dictionary
// (v3), or delete and recreate the glossary (v2, `api: v2`); create a glossary that does not exist
// yet. Eight requests at once, and a 429/529 waits its Retry-After and is sent again (the polite
// minimum; the script has no rate of its own). Plain undici, the YAML library for the resource files.
//   node bench/baseline.js --dir REPO   (TERMSYNC_BASE_URL, TERMSYNC_API_KEY in the environment)
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parse } from 'yaml';

const CONCURRENCY = 8;
const dir = process.argv[process.argv.indexOf('--dir') + 1];
const base = new URL(process.env.TERMSYNC_BASE_URL ?? '');
const key = process.env.TERMSYNC_API_KEY ?? '';
const dispatcher = new Agent({ connections: CONCURRENCY });

async function call(method, url, body) {
  for (let attempt = 1; ; attempt++) {
    const res = await request(new URL(url.replace(/^\//, ''), base.href.endsWith('/') ? base : `${base.href}/`), {
      method,
      dispatcher,
      headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if ((res.statusCode === 429 || res.statusCode === 529 || res.statusCode >= 500) && attempt < 20) {
      await sleep(Number(res.headers['retry-after'] ?? 1) * 1000);
      continue;
    }
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text === '' ? undefined : JSON.parse(text);
  }
}

async function resourceFiles(folder) {
  const files = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await resourceFiles(full)));
    else if (entry.name.endsWith('.yaml') || entry.name.endsWith('.yml')) files.push(full);
  }
  return files.sort();
}

const glossaries = [];
for (const file of await resourceFiles(path.join(dir, 'glossaries'))) {
  const doc = parse(await readFile(file, 'utf8'));
  if (doc?.kind === 'glossary') glossaries.push({ ...doc, folder: path.dirname(file) });
}
const v3 = new Map(((await call('GET', '/v3/glossaries')).glossaries ?? []).map((g) => [g.name, g.glossary_id]));
const needV2 = glossaries.some((g) => g.api === 'v2');
const v2 = new Map(needV2 ? ((await call('GET', '/v2/glossaries')).glossaries ?? []).map((g) => [g.name, g.glossary_id]) : []);

const entriesOf = async (g, d) => {
  if (d.entries_file !== undefined) return readFile(path.join(g.folder, d.entries_file), 'utf8');
  return Object.entries(d.entries ?? {})
    .map(([s, t]) => `${s}\t${t}\n`)
    .join('');
};

let next = 0;
let writes = 0;
async function worker() {
  while (next < glossaries.length) {
    const g = glossaries[next++];
    const dictionaries = await Promise.all(
      g.dictionaries.map(async (d) => ({ source_lang: d.source_lang, target_lang: d.target_lang, entries: await entriesOf(g, d), entries_format: 'tsv' })),
    );
    if (g.api === 'v2') {
      const id = v2.get(g.name);
      if (id !== undefined) {
        await call('DELETE', `/v2/glossaries/${id}`);
        writes++;
      }
      const d = dictionaries[0];
      await call('POST', '/v2/glossaries', { name: g.name, ...d });
      writes++;
      continue;
    }
    const id = v3.get(g.name);
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
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
await dispatcher.close();
console.log(`${writes} writes`);
