#!/usr/bin/env node
// The remote part of the many-glossaries plan alone: the CPU of reading the 2,000 dictionaries of
// 1,000 glossaries × 2 × 1,000 entries through termsync's client, each answer told by its literal
// digest (as `plan` with no change tells it), without loading the repository (the digests are made
// before the clock starts). Each run is a process of its own against the emulator (its own process,
// latency 20-40 ms), 8 requests at once, and measures process.cpuUsage() around the reads only
// (compiler and GC threads included). Builds alternate run by run, next to a bare reader of the
// same answers: undici's Agent, each body joined and hashed (sha256), nothing else — the floor of
// this part.
//
//   node bench/fetch-many.js [--runs 5] [--build DIR,DIR...]
//
// --build: builds to alternate (folders with a built dist/, e.g. an older commit exported and
// built elsewhere; default this checkout). Results go to bench/out/fetch-many.{txt,json} only.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const arg = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (args[0] === '--child') await child(args[1], args[2], args[3]);
else await main();

/** One run: reads every dictionary of `dir` from the service at `url` through the client of `build` (or the bare reader: build 'floor'); prints the CPU. */
async function child(build, dir, url) {
  const tool = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const dist = (p) => pathToFileURL(path.join(build === 'floor' ? tool : build, 'dist', p)).href;
  const { createClient } = await import(dist('api/create-client.js'));
  const { createAgent } = await import(dist('api/send-request.js'));
  const { literalDigestOfBytes } = await import(dist('lib/text-digest.js'));
  const client = createClient({ baseUrl: url, apiKey: 'bench', requestsPerSecond: 1000, concurrency: 8 });
  const jobs = [];
  for (const g of await client.listGlossaries()) {
    const n = /Catalogue (\d+)/.exec(g.name)[1];
    for (const d of g.dictionaries) {
      const bytes = readFileSync(path.join(dir, 'glossaries', 'entries', `g${n}.en-${d.targetLang}.tsv`));
      const literal = literalDigestOfBytes(bytes, 0, bytes.length - 1);
      jobs.push({ id: g.id, source: d.sourceLang, target: d.targetLang, literal: { bytes: literal.bytes, digests: [literal.digest] } });
    }
  }
  const agent = build === 'floor' ? createAgent(8) : undefined;
  const origin = new URL(url).origin;
  const bare = (job) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      agent.dispatch(
        { origin, path: `/v3/glossaries/${job.id}/entries?source_lang=${job.source}&target_lang=${job.target}`, method: 'GET', headers: { authorization: 'Service-Auth-Key bench', accept: 'application/json' } },
        {
          onRequestStart() {},
          onResponseData(_c, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            resolve(createHash('sha256').update(Buffer.concat(chunks)).digest('hex') !== '' ? 'read' : '');
          },
          onResponseError(_c, error) {
            reject(error);
          },
        },
      );
    });
  const read = async (job) => {
    if (agent !== undefined) return bare(job);
    const answer = await client.readEntries(job.id, job.source, job.target, job.literal);
    if (!('sameLiteral' in answer)) throw new Error(`dictionary ${job.id} ${job.target}: not told by its literal`);
    return 'same';
  };
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < jobs.length) await read(jobs[next++]);
  }));
  const cpu = process.cpuUsage(start);
  console.log(JSON.stringify({ cpu: (cpu.user + cpu.system) / 1e6, rssMb: process.memoryUsage().rss / 1e6, dictionaries: jobs.length }));
  await client.close();
  await agent?.close();
}

async function main() {
  const { fmt, generateMany, HERE, measure, OUT, startEmulatorProcess, stats } = await import('./cpu-common.js');
  const runs = Number(arg('--runs') ?? 5);
  const builds = (arg('--build') ?? path.resolve(HERE, '..')).split(',').map((b) => path.resolve(b));
  const lines = [];
  const log = (line) => {
    lines.push(line);
    console.log(line);
  };
  log(`remote part of the many-glossaries plan — node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  log(`date: ${new Date().toISOString()}; 2,000 dictionaries told by their literal; ${runs} rounds`);
  const work = await mkdtemp(path.join(tmpdir(), 'termsync-fetch-many-'));
  const dir = path.join(work, 'many');
  const emulator = await startEmulatorProcess();
  const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench' };
  try {
    await generateMany(dir);
    measure(['apply', '--dir', dir], { env });
    // The state bench/cpu-rows.js measures: the replace-all script wrote last (the service answers in file order).
    measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env });
    const kinds = [...builds, 'floor'];
    const samples = kinds.map(() => []);
    for (let round = 0; round < runs; round++) {
      for (const [i, kind] of kinds.entries()) {
        const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', kind, dir, emulator.url], { encoding: 'utf8' });
        const m = JSON.parse(out.trim().split('\n').pop());
        samples[i].push({ ...m, load: loadavg()[0] });
        console.log(`  round ${round + 1}, ${kind}: ${m.cpu.toFixed(3)} s CPU, ${m.rssMb.toFixed(0)} MB (load ${loadavg()[0].toFixed(2)})`);
      }
    }
    const results = {};
    log('');
    log('| reader | CPU s of the reads (min / median / max) | RSS MB at the end |');
    log('|---|---|---|');
    for (const [i, kind] of kinds.entries()) {
      const cpu = stats(samples[i].map((m) => m.cpu));
      const rss = stats(samples[i].map((m) => m.rssMb));
      results[kind] = { cpu, rssMb: rss };
      log(`| ${kind === 'floor' ? 'bare reader (join + sha256)' : kind} | ${fmt(cpu, 3)} | ${fmt(rss, 0)} |`);
    }
    log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await mkdir(OUT, { recursive: true });
    await writeFile(path.join(OUT, 'fetch-many.txt'), `${lines.join('\n')}\n`);
    await writeFile(path.join(OUT, 'fetch-many.json'), `${JSON.stringify({ builds, date: new Date().toISOString(), runs, results }, null, 2)}\n`);
  } finally {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  }
}
