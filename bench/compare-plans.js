#!/usr/bin/env node
// Checks that a change to how plans are made changed no plan: runs `plan --format json` (and the
// text plan) of an older build and of this one on the benchmark repositories, in the same states
// of the service, and compares the outputs byte for byte. Exits 1 on any difference.
//
//   node bench/compare-plans.js --before DIR [--quick]
//
// DIR holds an older build (bin/termsync.js and a built dist/), e.g. main at some commit:
//   git archive <commit> | tar -x -C DIR && ln -s "$PWD/node_modules" DIR/ && (cd DIR && npx tsc -p tsconfig.build.json)
// --quick uses 100 instead of 1,000 glossaries in the many-glossaries repository.
// The report goes to bench/out/compare-plans.txt.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { editBig, generateBig, renameBigSource, generateMany, measure, OUT, parseArgs, resolveBuild, ROOT, startEmulatorProcess } from './cpu-common.js';

const args = parseArgs(process.argv.slice(2));
if (typeof args.before !== 'string') {
  console.error('usage: node bench/compare-plans.js --before DIR [--quick]');
  process.exit(3);
}
const before = resolveBuild(args.before);
const after = ROOT;
const lines = [];
const log = (line) => {
  lines.push(line);
  console.log(line);
};
let differences = 0;

const emulator = await startEmulatorProcess({ latency: '' });
const env = { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: 'compare-plans' };
const work = await mkdtemp(path.join(tmpdir(), 'termsync-compare-plans-'));

/** Both builds' plans of `dir` in the service's current state: JSON and text, byte for byte. */
function compare(label, dir) {
  for (const format of ['json', 'text']) {
    const run = (build) => measure(['plan', '--format', format, '--detailed-exitcode', '--dir', dir], { build, env, expect: [0, 2] });
    const old = run(before);
    const now = run(after);
    const same = old.stdout === now.stdout && old.code === now.code;
    if (!same) {
      differences++;
      let at = 0;
      while (at < old.stdout.length && old.stdout[at] === now.stdout[at]) at++;
      log(`DIFFERENT ${label} (${format}): exit ${old.code} → ${now.code}; first difference at character ${at}:\n  before: ${JSON.stringify(old.stdout.slice(Math.max(0, at - 80), at + 80))}\n  after:  ${JSON.stringify(now.stdout.slice(Math.max(0, at - 80), at + 80))}`);
    } else {
      log(`identical ${label} (${format}): ${old.stdout.length} characters, exit ${old.code}; CPU ${old.cpu.toFixed(2)} s → ${now.cpu.toFixed(2)} s`);
    }
  }
}

function apply(dir) {
  measure(['apply', '--dir', dir], { build: after, env });
}

async function editFile(file, from, to) {
  const text = await readFile(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not hold ${from}`);
  await writeFile(file, text.replace(from, to));
}

try {
  log(`compare plans: before ${before}, after ${after}; ${new Date().toISOString()}`);

  // The example repository: v2 and v3 glossaries, TBX, workbook, CSV, style rules.
  const example = path.join(work, 'example');
  await mkdir(example);
  await cp(path.join(ROOT, 'config'), path.join(example, 'config'), { recursive: true });
  await cp(path.join(ROOT, 'glossaries'), path.join(example, 'glossaries'), { recursive: true });
  compare('example, nothing on the service', example);
  apply(example);
  compare('example, applied', example);
  await editFile(path.join(example, 'glossaries', 'entries', 'storefront-ui.en-de.tsv'), '\n', '\nneu hinzugefügt\tganz neu\n');
  await editFile(path.join(example, 'glossaries', 'entries', 'support-macros.en-de.tsv'), '\t', '\tgeändert ');
  compare('example, a term added and a v2 term changed', example);
  await emulator.reset();

  const big = path.join(work, 'big');
  await generateBig(big);
  compare('10 MiB dictionary, nothing on the service', big);
  apply(big);
  compare('10 MiB dictionary, applied', big);
  await editBig(big);
  compare('10 MiB dictionary, one changed term', big);
  await renameBigSource(big);
  compare('10 MiB dictionary, one changed, one added, one removed term', big);
  await emulator.reset();

  const many = path.join(work, 'many');
  const glossaries = args.quick ? 100 : 1000;
  await generateMany(many, glossaries);
  apply(many);
  compare(`${glossaries} × 2 × 1,000, applied`, many);
  for (let g = 0; g < 10; g++) {
    const file = path.join(many, 'glossaries', 'entries', `g${g * 7}.en-de.tsv`);
    for (let i = 0; i < 10; i++) await editFile(file, `Produktbegriff de ${g * 7}-${i * 50} Größe`, `Produktbegriff de ${g * 7}-${i * 50} geändert`);
  }
  compare(`${glossaries} × 2 × 1,000, 1 % of the terms changed in 10 dictionaries`, many);
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}

log(differences === 0 ? 'All plans identical.' : `${differences} plans differ.`);
await mkdir(OUT, { recursive: true });
await writeFile(path.join(OUT, 'compare-plans.txt'), `${lines.join('\n')}\n`);
process.exitCode = differences === 0 ? 0 : 1;
