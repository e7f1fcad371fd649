import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/config/index.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A repository whose config holds `extra` (YAML lines) after the required fields; its schema errors. */
async function configErrors(extra: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'termsync-numeric-'));
  dirs.push(dir);
  await mkdir(path.join(dir, 'config'));
  await mkdir(path.join(dir, 'glossaries'));
  const text = `version: 1\nresources: [glossaries]\n${extra}\ntargets:\n  - name: default\n`;
  await writeFile(path.join(dir, 'config', 'termsync.yaml'), text);
  const { diagnostics } = await loadRepository({ dir });
  return diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: d.code, message: d.message, line: d.line, column: d.column }));
}

describe('numeric fields of the config: the message says what is allowed', () => {
  it.each([
    // A bound the value may not equal (requests_per_second must be above 0).
    ['rate_limit: { requests_per_second: 0 }', 3, 36, '`rate_limit.requests_per_second`: must be greater than 0, got 0'],
    ['rate_limit: { requests_per_second: -2 }', 3, 36, '`rate_limit.requests_per_second`: must be greater than 0, got -2'],
    ['rate_limit:\n  requests_per_second: 0', 4, 24, '`rate_limit.requests_per_second`: must be greater than 0, got 0'],
    // Bounds the value may equal.
    ['rate_limit: { requests_per_second: 5, concurrency: 0 }', 3, 52, '`rate_limit.concurrency`: at least 1 required, got 0'],
    ['guards: { max_deletes: -1 }', 3, 24, '`guards.max_deletes`: at least 0 required, got -1'],
    ['guards: { max_removed_entries_percent: 101 }', 3, 40, '`guards.max_removed_entries_percent`: at most 100 allowed, got 101'],
    ['ui: { keep_runs: 0 }', 3, 18, '`ui.keep_runs`: at least 1 required, got 0'],
    ['parallel_targets: 257', 3, 19, '`parallel_targets`: at most 256 allowed, got 257'],
  ])('%s', async (extra, line, column, message) => {
    expect(await configErrors(extra)).toEqual([{ code: 'schema/invalid-value', message, line, column }]);
  });

  it.each([
    // YAML's infinities and NaN are numbers to the schema, not finite ones; a fraction where an integer is due.
    ['rate_limit: { requests_per_second: .inf }', 3, 36, 'schema/invalid-type', '`rate_limit.requests_per_second`: expected a finite number, got Infinity'],
    ['rate_limit: { requests_per_second: .nan }', 3, 36, 'schema/invalid-type', '`rate_limit.requests_per_second`: expected a finite number, got NaN'],
    ['guards: { max_removed_entries_percent: -.inf }', 3, 40, 'schema/invalid-type', '`guards.max_removed_entries_percent`: expected a finite number, got -Infinity'],
    ['guards: { max_deletes: 1.5 }', 3, 24, 'schema/invalid-type', '`guards.max_deletes`: expected an integer, got 1.5'],
    ['verify: { max_characters: .inf }', 3, 27, 'schema/invalid-type', '`verify.max_characters`: expected a finite number, got Infinity'],
    ['verify: { seed: 1e300 }', 3, 17, 'schema/invalid-value', '`verify.seed`: at most 9007199254740991 allowed, got 1e+300'],
    ['rate_limit: { requests_per_second: "5" }', 3, 36, 'schema/invalid-type', '`rate_limit.requests_per_second`: expected a number, got a string'],
  ])('%s', async (extra, line, column, code, message) => {
    expect(await configErrors(extra)).toEqual([{ code, message, line, column }]);
  });

  it('a target of its own rate limit: the same message, located in the target', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'termsync-numeric-'));
    dirs.push(dir);
    await mkdir(path.join(dir, 'config'));
    await mkdir(path.join(dir, 'glossaries'));
    await writeFile(path.join(dir, 'config', 'termsync.yaml'), 'version: 1\ntargets:\n  - name: a\n    rate_limit: { requests_per_second: 0 }\n');
    const { diagnostics } = await loadRepository({ dir });
    expect(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.message, d.line, d.column])).toEqual([
      ['schema/invalid-value', '`targets.0.rate_limit.requests_per_second`: must be greater than 0, got 0', 4, 40],
    ]);
  });
});
