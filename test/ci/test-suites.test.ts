/**
 * The three vitest runs of `npm run test:all` (and so of CI) split the tests between them: every
 * test file is in exactly one of `npm test` (vitest.config.ts), the process-starting suites
 * (vitest.slow.config.ts) and the reliability suite (vitest.reliability.config.ts), so that no file
 * runs twice and none is left out of CI; scripts/test-all.js runs the three.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import type { ViteUserConfig } from 'vitest/config';
import fast from '../../vitest.config.js';
import reliability from '../../vitest.reliability.config.js';
import slow from '../../vitest.slow.config.js';
import { PROJECT_ROOT } from '../e2e/harness.js';

const RUNS = [
  ['npm test', 'vitest.config.ts', fast],
  ['slow', 'vitest.slow.config.ts', slow],
  ['reliability', 'vitest.reliability.config.ts', reliability],
] as const;

/** The files of a folder and below, relative to the project, with `/`. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(PROJECT_ROOT, join(e.parentPath, e.name)).split(sep).join('/'));
}

/** Whether a config's include and exclude take this file, as vitest matches them (picomatch). */
function takes(config: ViteUserConfig, file: string): boolean {
  const include = config.test?.include ?? [];
  const exclude = config.test?.exclude ?? [];
  return picomatch([...include])(file) && !picomatch([...exclude], { dot: true })(file);
}

describe('the test runs', () => {
  const files = [...filesUnder('test'), ...filesUnder('src')].filter((f) => f.endsWith('.test.ts'));

  it('take every test file, each in exactly one run', () => {
    expect(files.length).toBeGreaterThan(100);
    const wrong = files
      .map((file) => ({ file, runs: RUNS.filter(([, , config]) => takes(config, file)).map(([name]) => name) }))
      .filter((f) => f.runs.length !== 1)
      .map((f) => `${f.file}: ${f.runs.length === 0 ? 'in no run' : `in ${f.runs.join(' and ')}`}`);
    expect(wrong).toEqual([]);
  });

  it('each run takes some files, and npm test the unit tests of every room of src/', () => {
    for (const [name, , config] of RUNS) expect(files.filter((f) => takes(config, f)).length, name).toBeGreaterThan(0);
    expect(takes(fast, 'test/plan/plan-glossaries.test.ts')).toBe(true);
    expect(takes(fast, 'test/e2e/plan-apply.test.ts')).toBe(false);
    expect(takes(slow, 'test/e2e/plan-apply.test.ts')).toBe(true);
    expect(takes(reliability, 'test/reliability/faults.test.ts')).toBe(true);
  });

  it('are the ones npm run test:all runs, one after another', () => {
    const script = readFileSync(join(PROJECT_ROOT, 'scripts', 'test-all.js'), 'utf8');
    const configs = [...script.matchAll(/config: '([^']+)'/g)].map((m) => m[1]);
    expect(configs).toEqual(RUNS.map(([, file]) => file));
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['test:all']).toBe('node scripts/test-all.js');
    expect(readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8')).toMatch(/^npm run --silent test:all -- --checks "\$checks_passed" "\$checks_failed"$/m);
  });
});
