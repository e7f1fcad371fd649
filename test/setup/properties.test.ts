import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import explore from '../../vitest.explore.config.js';
import reliability from '../../vitest.reliability.config.js';
import slow from '../../vitest.slow.config.js';
import unit from '../../vitest.config.js';
import { DEFAULT_RUNS, PROPERTIES, PROPERTY_SEED, propertySettings, propertyTimeout, runs } from '../helpers/properties.js';

describe('the seed and runs of the fast-check properties', () => {
  it('under CI=true: the fixed seed, the usual runs; exploring (TERMSYNC_PROPERTY_RUNS=N) wins over CI: random seeds, N times the runs', () => {
    expect(propertySettings({ CI: 'true' })).toEqual({ seed: PROPERTY_SEED, factor: 1 });
    expect(propertySettings({})).toEqual({ seed: undefined, factor: 1 });
    expect(propertySettings({ CI: 'false' })).toEqual({ seed: undefined, factor: 1 });
    expect(propertySettings({ CI: 'true', TERMSYNC_PROPERTY_RUNS: '10' })).toEqual({ seed: undefined, factor: 10 });
    // A seed that exploring printed runs again, with the runs it was found with.
    expect(propertySettings({ CI: 'true', TERMSYNC_PROPERTY_RUNS: '10', TERMSYNC_PROPERTY_SEED: '-123456' })).toEqual({ seed: -123456, factor: 10 });
    expect(() => propertySettings({ TERMSYNC_PROPERTY_RUNS: '0' })).toThrow('TERMSYNC_PROPERTY_RUNS must be an integer of at least 1, not "0"');
    expect(() => propertySettings({ TERMSYNC_PROPERTY_SEED: 'x' })).toThrow('TERMSYNC_PROPERTY_SEED must be an integer, not "x"');
  });

  it("are in force in this run: fast-check's global settings, and the seed a property runs with", () => {
    expect(PROPERTIES).toEqual(propertySettings(process.env));
    const global = fc.readConfigureGlobal();
    expect(global.seed).toBe(PROPERTIES.seed);
    expect(global.numRuns).toBe(runs(DEFAULT_RUNS));
    // The seed fast-check reports (and prints on a failure) for a property that names none: under
    // CI=true (.ci/run), PROPERTY_SEED; the first values drawn are then the same in every run.
    const ran = fc.check(fc.property(fc.nat(), () => true));
    expect(ran.seed).toBe(PROPERTIES.seed ?? ran.seed);
    expect(ran.numRuns).toBe(runs(DEFAULT_RUNS));
    if (PROPERTIES.seed !== undefined) expect(fc.sample(fc.nat(), 3)).toEqual(fc.sample(fc.nat(), { seed: PROPERTIES.seed, numRuns: 3 }));
    expect(propertyTimeout(1000)).toBe(1000 * PROPERTIES.factor);
  });

  it('are set up by every vitest config: npm test, test:slow, test:reliability, test:explore', () => {
    for (const config of [unit, slow, reliability, explore]) expect(config.test?.setupFiles).toContain('test/setup/properties.ts');
    // test:explore runs every file with properties, those of test:slow too.
    expect(explore.test?.include).toEqual(expect.arrayContaining(['test/config/entries-fast-path.test.ts', 'test/e2e/converge.property.test.ts']));
    expect(explore.test?.env?.['TERMSYNC_PROPERTY_RUNS']).toMatch(/^[1-9]\d*$/);
  });

  it('every count of runs in the tests is written runs(n), so that exploring multiplies it', () => {
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
    const literal = files('test').flatMap((file) => readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (/numRuns: (?!runs\()/.test(line) && !line.includes('fc.sample') ? [`${file}:${i + 1}`] : [])));
    expect(literal).toEqual([]);
  });
});
