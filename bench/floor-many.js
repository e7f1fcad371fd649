#!/usr/bin/env node
// How the many-glossaries row's target compares with the least any diff must do. The performance
// issue asks `termsync plan` with no change (1,000 glossaries × 2 × 1,000 entries) to cost no more
// CPU than the replace-all script (bench/baseline.js), which sends every dictionary. A diff must
// instead receive every dictionary: the service offers no version, digest or ETag for a glossary's
// entries. This script measures, in the same window and alternating run by run, as processes of
// their own against the emulator in its own process (latency 20-40 ms), 8 requests at once, no rate
// limit unless --rate:
//   - the replace-all script (bench/baseline.js): reads the repository, PUTs every dictionary;
//   - the floor reader (bench/floor-reader.js): reads the repository, GETs every dictionary,
//     compares each with its file by sha256 — the least a diff does, no checks at all;
//   - the same, receiving each answer's body and throwing it away (no decoding, no comparison);
//   - `termsync plan --detailed-exitcode` (exit 0: no change), concurrency 8, rate 1000.
// With --rate N the floor reader and termsync also run with their requests N per second apart, as
// bench/run.js runs termsync (rate 100): a spread-out run costs more CPU for the same work.
//
//   node bench/floor-many.js [--runs 5] [--glossaries 1000] [--rate 100] [--build DIR,...] [--state sorted] [--no-floor]
//
// --build names the build(s) measured (default this checkout); with several (comma-separated, e.g.
// older commits exported and built as bench/compare-plans.js says), each build's plan is a row of
// its own in the same rounds, and the first build applies and re-applies. --no-floor leaves out the
// two floor readers (the script and the plans only: shorter rounds when builds are compared).
// The service is in the state bench/run.js measures: termsync applied, then the replace-all script
// rewrote every dictionary in file order. --state sorted skips the script before the first round
// and between rounds re-applies with termsync, so the service answers sorted (as after termsync's
// own apply). Results go to bench/out/floor-many.{txt,json} only.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fmt, generateMany, HERE, measure, OUT, parseArgs, resolveBuild, startEmulatorProcess, stats } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
const runs = Number(args.runs ?? 5);
const glossaries = Number(args.glossaries ?? 1000);
const rate = args.rate === undefined ? undefined : Number(args.rate);
const builds = typeof args.build === 'string' ? args.build.split(',').map((dir) => resolveBuild(dir)) : [resolveBuild(undefined)];
const build = builds[0];
const sorted = args.state === 'sorted';

const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};

log(`floor of the many-glossaries row — build${builds.length > 1 ? 's' : ''} ${builds.join(', ')}, node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
log(`date: ${new Date().toISOString()}; ${glossaries} glossaries × 2 × 1,000 entries; ${runs} rounds; service ${sorted ? 'answers sorted (termsync applied last)' : 'answers in file order (the replace-all script wrote last)'}`);

const work = await mkdtemp(path.join(tmpdir(), 'termsync-floor-'));
const dir = path.join(work, 'many');
const emulator = await startEmulatorProcess();
const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'bench' };
const configFile = path.join(dir, 'config', 'termsync.yaml');
try {
  await generateMany(dir, glossaries);
  const config = await readFile(configFile, 'utf8');
  const withRate = (r) => writeFile(configFile, config.replace(/requests_per_second: \d+/, `requests_per_second: ${r}`));

  measure(['apply', '--dir', dir], { build, env });
  if (!sorted) measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env });

  const floors = [
    ['floor reader (GET every dictionary, sha256 against its file)', () => measure([path.join(HERE, 'floor-reader.js'), '--dir', dir], { bare: true, env })],
    ['receive only (GET every dictionary, body thrown away)', () => measure([path.join(HERE, 'floor-reader.js'), '--dir', dir, '--receive-only'], { bare: true, env })],
  ];
  const kinds = [
    ['replace-all script (PUT every dictionary)', () => measure([path.join(HERE, 'baseline.js'), '--dir', dir], { bare: true, env })],
    ...(args['no-floor'] === true ? [] : floors),
    ...builds.map((b) => [`termsync plan, no change (rate 1000)${builds.length > 1 ? `, ${b}` : ''}`, () => measure(['plan', '--detailed-exitcode', '--dir', dir], { build: b, env, expect: [0] })]),
  ];
  if (rate !== undefined) {
    kinds.push(
      [`floor reader at ${rate} requests/s`, () => measure([path.join(HERE, 'floor-reader.js'), '--dir', dir, '--rate', String(rate)], { bare: true, env })],
      [
        `termsync plan, no change (rate ${rate})`,
        async () => {
          await withRate(rate);
          try {
            return measure(['plan', '--detailed-exitcode', '--dir', dir], { build, env, expect: [0] });
          } finally {
            await withRate(1000);
          }
        },
      ],
    );
  }
  const samples = kinds.map(() => []);
  for (let round = 0; round < runs; round++) {
    for (const [i, [name, run]] of kinds.entries()) {
      // The script rewrites the service in file order; in the sorted state termsync puts it back.
      if (sorted && i === 1) measure(['apply', '--dir', dir], { build, env });
      const m = await run();
      samples[i].push(m);
      console.log(`  round ${round + 1}, ${name}: ${m.cpu.toFixed(2)} s CPU (user ${m.user.toFixed(2)}, sys ${m.sys.toFixed(2)}), ${m.rssMb.toFixed(0)} MB, ${m.wall.toFixed(2)} s wall`);
    }
  }
  const results = {};
  const script = stats(samples[0].map((m) => m.cpu)).median;
  log('');
  log('| process | CPU s | × script | peak RSS MB | wall s |');
  log('|---|---|---|---|---|');
  for (const [i, [name]] of kinds.entries()) {
    const cpu = stats(samples[i].map((m) => m.cpu));
    const rss = stats(samples[i].map((m) => m.rssMb));
    const wall = stats(samples[i].map((m) => m.wall));
    results[name] = { cpu, rssMb: rss, wall };
    log(`| ${name} | ${fmt(cpu)} | ${(cpu.median / script).toFixed(2)} | ${fmt(rss, 0)} | ${fmt(wall)} |`);
  }
  log(`load after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'floor-many.txt'), `${lines.join('\n')}\n`);
  await writeFile(path.join(OUT, 'floor-many.json'), `${JSON.stringify({ build, builds, date: new Date().toISOString(), glossaries, runs, rate, sorted, results }, null, 2)}\n`);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
