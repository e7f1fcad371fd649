import { configDefaults, defineConfig } from 'vitest/config';
import { PROCESS_SUITES } from './vitest.config.js';

// `npm run test:slow`: the suites that start processes (the list and why: vitest.config.ts). Part
// of `npm run test:all` and of CI, not of `npm test`.
export default defineConfig({
  test: {
    include: [...PROCESS_SUITES],
    exclude: [...configDefaults.exclude],
    environment: 'node',
    setupFiles: ['test/setup/properties.ts'],
    pool: 'forks',
    // Each test waits for processes (vitest, npm, termsync) that a busy machine slows down most:
    // 60 s, where a test that hangs is still what fails (tests that set their own time keep it).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file starts processes of its own; two files at a time fill two cores.
    maxWorkers: 2,
  },
});
