import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites that start processes: termsync's own (bin/termsync.js), npm, a container install, the
 * CI examples, and the CLI end to end. They run in `npm run test:slow` (vitest.slow.config.ts) and
 * `npm run test:all`, not in `npm test`.
 */
export const PROCESS_SUITES: readonly string[] = [
  'test/e2e/**/*.test.ts', // the CLI end to end against the emulator, some as processes
  'test/ci/**/*.test.ts', // the GitHub Action and its install, the CI examples, .ci/summarize.js on real vitest runs
  'test/release/**/*.test.ts', // npm pack and the release steps
  'test/deploy/container-install.test.ts', // the image's install steps, then termsync watch as the image runs it
  'test/deploy/monitoring.test.ts', // promtool, and termsync watch serving the metrics the alerts use
  'test/cli/bundle.test.ts', // bin/termsync.js, the bundle, as processes
  'test/daemon/watch-process.test.ts', // termsync watch as a process: signals, exit code
  'test/browser/**/*.test.ts', // npm start's daemon and its dashboard in Chromium
  'test/bench/emulator-large-glossary.test.ts', // the emulator's 10 MiB benchmark as a process: its exit code
];

/** The reliability suite has its own config (`npm run test:reliability`). */
export const RELIABILITY_SUITES: readonly string[] = ['test/reliability/**'];

// `npm test`: the unit and integration tests, in process (a few processes of git or node at most):
// what it costs, in wall and CPU seconds, is `node bench/test-suite.js` (bench/results/test-suite.txt).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...RELIABILITY_SUITES, ...PROCESS_SUITES],
    environment: 'node',
    setupFiles: ['test/setup/properties.ts'],
    pool: 'forks',
    // Each test is bounded by its work (runs, trials, files), not by time; the timeout only catches
    // a hang. Not near any test's duration on a busy machine: at a load of 13-15 on two cores the
    // heaviest took 12-15 s (the daemon's replicas, the writers' round trip, the parallel loader),
    // twice that at a load of 25, where a 20 s timeout failed them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
  },
});
