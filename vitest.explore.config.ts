import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm run test:explore`: every test file with fast-check properties (those of npm test and of
// test:slow), each property with a random seed and TERMSYNC_PROPERTY_RUNS times its runs (10 unless
// set); test/helpers/properties.ts says how. A failure prints its seed and path; the counterexample
// is fixed at its root and pinned in the property's `examples`.

function propertyFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return propertyFiles(path);
    return e.name.endsWith('.test.ts') && /from 'fast-check'/.test(readFileSync(path, 'utf8')) ? [path] : [];
  });
}

export default defineConfig({
  test: {
    include: propertyFiles('test'),
    environment: 'node',
    setupFiles: ['test/setup/properties.ts'],
    env: { TERMSYNC_PROPERTY_RUNS: process.env['TERMSYNC_PROPERTY_RUNS'] ?? '10' },
    pool: 'forks',
    maxWorkers: 2,
    // N times the runs take about N times as long: the bound is on the work (the runs), the
    // timeout only catches a hang.
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
  },
});
