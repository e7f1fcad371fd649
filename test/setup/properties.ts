import fc from 'fast-check';
import { DEFAULT_RUNS, PROPERTIES, runs } from '../helpers/properties.js';

// Every vitest config (npm test, test:slow, test:reliability, test:explore) runs this before each
// test file: the properties' seed and runs, as test/helpers/properties.ts explains.
fc.configureGlobal({ ...(PROPERTIES.seed === undefined ? {} : { seed: PROPERTIES.seed }), numRuns: runs(DEFAULT_RUNS) });
