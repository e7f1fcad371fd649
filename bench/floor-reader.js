#!/usr/bin/env node
// The least a diff of the many-glossaries repository must do, written as plainly as bench/baseline.js
// (the replace-all script) so that the two cost the same per byte: read every glossary's YAML and
// every entries file, GET every dictionary's entries from the service (8 at once, like the script),
// and compare each with its file by sha256. No validation, no canonical form, no plan: a floor for
// what `termsync plan` costs, not a tool. bench/floor-many.js runs it next to the script and termsync.
//
//   node bench/floor-reader.js --dir DIR [--receive-only] [--rate N]
//
// --receive-only reads each answer's body and throws it away (no decoding, no JSON, no hash): the
// cost of receiving the bytes alone. --rate N spaces the requests' starts 1000 / N ms apart, as a
// configured rate does. Environment: TERMSYNC_BASE_URL, TERMSYNC_API_KEY.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parse } from 'yaml';

const CONCURRENCY = 8;
const argv = process.argv.slice(2);
const dir = argv[argv.indexOf('--dir') + 1];
const receiveOnly = argv.includes('--receive-only');
const rate = argv.includes('--rate') ? Number(argv[argv.indexOf('--rate') + 1]) : undefined;
const base = new URL(process.env.TERMSYNC_BASE_URL ?? '');
const key = process.env.TERMSYNC_API_KEY ?? '';
const dispatcher = new Agent({ connections: CONCURRENCY });
const root = base.href.endsWith('/') ? base : new URL(`${base.href}/`);

let nextStart = 0;
async function paced() {
  if (rate === undefined) return;
  const now = performance.now();
  const at = Math.max(now, nextStart);
  nextStart = at + 1000 / rate;
  if (at > now) await sleep(at - now);
}

async function get(url, { discard = false } = {}) {
  await paced();
  const res = await request(new URL(url.replace(/^\//, ''), root), { method: 'GET', dispatcher, headers: { authorization: `Service-Auth-Key ${key}` } });
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode}`);
  if (discard) {
    await res.body.dump({ limit: Infinity });
    return undefined;
  }
  return JSON.parse(await res.body.text());
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

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

const glossaries = [];
for (const file of await resourceFiles(path.join(dir, 'glossaries'))) {
  const doc = parse(await readFile(file, 'utf8'));
  if (doc?.kind === 'glossary') glossaries.push({ ...doc, folder: path.dirname(file) });
}
const ids = new Map(((await get('/v3/glossaries')).glossaries ?? []).map((g) => [g.name, g.glossary_id]));

let next = 0;
let same = 0;
let differ = 0;
async function worker() {
  while (next < glossaries.length) {
    const g = glossaries[next++];
    const id = ids.get(g.name);
    if (id === undefined) throw new Error(`glossary ${g.name} is not on the service`);
    for (const d of g.dictionaries) {
      // The service keeps no trailing line break; neither does the comparison.
      const text = (await readFile(path.join(g.folder, d.entries_file), 'utf8')).replace(/\n$/, '');
      const query = `source_lang=${encodeURIComponent(d.source_lang)}&target_lang=${encodeURIComponent(d.target_lang)}`;
      const answer = await get(`/v3/glossaries/${id}/entries?${query}`, { discard: receiveOnly });
      if (receiveOnly) continue;
      const live = answer.dictionaries?.[0]?.entries ?? '';
      if (sha256(text) === sha256(live)) same++;
      else differ++;
    }
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
await dispatcher.close();
console.log(receiveOnly ? `${glossaries.length} glossaries received` : `${same} dictionaries equal, ${differ} differ`);
