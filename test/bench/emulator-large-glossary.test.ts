import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'emulator-large-glossary.js');

describe('bench/emulator-large-glossary.js', () => {
  it('exits 1 when an operation misses the goal, naming each one that did', () => {
    // A goal no operation can meet (0 ms): every one misses. One run after the warm-up.
    const run = spawnSync(process.execPath, [SCRIPT], { env: { ...process.env, RUNS: '1', GOAL_MS: '0' }, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/GOAL MISSED: 4 of 4 operations — POST \/v3\/glossaries \(10 MiB, parse \+ store\): [\d.]+ ms \(goal < 0 ms\); GET entries/);
    expect(run.stdout).toContain('POST 10 MiB with a duplicate at the end → 400: ');
  });
});
